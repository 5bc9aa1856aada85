"""The plan read as a new user reads it: names, a negative variance, designs that do not hold α.

Every check derives what the text, the CSV or the result must say from numbers
(the registry's names, an independent one-way ANOVA of the pilot, the type I
errors in the plan's own table), not from copied sentences.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

import cvreport
from cvreport.cli import main
from cvreport.methods.registry import get_spec
from cvreport.planning.power import corrected_t_power
from cvreport.planning.result import SIZE_TOLERANCE

PAIR = ("logistic_regression", "decision_tree")
EFFECT = 0.05
ALPHA = 0.05


@pytest.fixture(scope="module")
def pilot():
    return cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )


@pytest.fixture(scope="module")
def result(pilot):
    return cvreport.plan(pilot, *PAIR, effect=EFFECT, alpha=ALPHA)


@pytest.fixture()
def cli_run(tmp_path, capsys):
    csv = tmp_path / "plan.csv"
    status = main(["plan", "--example", "--effect", str(EFFECT), *PAIR, "--csv", str(csv)])
    assert status == 0
    return capsys.readouterr().out, pd.read_csv(csv)


def _section(text: str, title: str) -> list[str]:
    """The lines of the summary section that starts with ``title``, up to the next rule."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next(i for i in range(start + 1, len(lines)) if set(lines[i]) <= {"-", "="})
    return lines[start + 1 : end]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_every_test_carries_the_name_the_reports_give_it(result, cli_run):
    printed, csv = cli_run
    for frame in (result.to_frame(), csv):
        names = {get_spec(test).method for test in frame["test"]}
        assert set(frame["label"]) == names
    for rec in result.recommendations:
        assert rec.label == get_spec(rec.test).method
        assert rec.note.startswith(get_spec(rec.test).method + ":")
    rows = _section(printed, "Smallest design reaching the power")[1:]
    assert sorted(row.strip().split("  ")[0] for row in rows) == sorted(
        get_spec(rec.test).method for rec in result.recommendations
    )
    # the power curve and the plan agree on every name
    curve = cvreport.power_curve(
        result.components, effect=EFFECT, replications=range(1, 3)
    ).to_frame()
    plan_names = dict(zip(result.to_frame()["test"], result.to_frame()["label"]))
    for test, label in zip(curve["test"], curve["label"]):
        assert plan_names[test] == label


def _anova_between(frame: pd.DataFrame) -> tuple[float, float, int, int]:
    """(MS_between − MS_within)/K and MS_within of the per-fold differences, from raw losses."""
    errors = frame.groupby(["replication", "fold", "model"])["loss"].mean().unstack("model")
    diff = (errors[PAIR[0]] - errors[PAIR[1]]).unstack("fold").to_numpy()
    m, k = diff.shape
    means = diff.mean(axis=1)
    ms_within = ((diff - means[:, None]) ** 2).sum() / (m * (k - 1))
    ms_between = k * means.var(ddof=1)
    return (ms_between - ms_within) / k, ms_within, m, k


def test_a_negative_between_variance_says_what_it_is_and_what_the_plan_does(result, cli_run):
    between, within, m, k = _anova_between(cvreport.load_example())
    assert between < 0  # the example's replication means vary less than its folds predict
    assert result.components.between == pytest.approx(between)
    printed, _ = cli_run
    row = next(line for line in printed.splitlines() if line.startswith("between variance"))
    assert f"{between:.4g}" in row and "below 0" in row
    limits = _one_line(result.limits)
    assert f"is estimated below 0 ({between:.4g})" in limits
    assert "no detectable variation between replications" in limits
    assert f"({m - 1:g} df)" in limits
    assert f"bounded below by −within/K = {-within / k:.4g}" in limits
    # the plan keeps the negative value: the chosen power is the one computed with it ...
    best = result.best
    kept = corrected_t_power(EFFECT, result.components.at(best.design.K), best.design.m)
    assert best.power == pytest.approx(kept)
    # ... and the sentence gives the power with it read as 0, recomputed here
    as_zero = dataclasses.replace(
        result.components,
        between=0.0,
        common=result.components.within * result.components.test_train_ratio,
    )
    zero = corrected_t_power(EFFECT, as_zero.at(best.design.K), best.design.m)
    assert f"would be {zero:.3f} instead of {kept:.3f}" in limits
    assert "(estimated below 0, kept as is)" in result.components.describe()


def test_a_positive_between_variance_keeps_the_plain_sentence():
    vc = cvreport.planning.VarianceComponents(
        within=0.0009, between=0.0001, common=0.0001, K=10, source="replications", df_between=4
    )
    res = cvreport.planning.plan_from_components(vc, None, effect=0.03, designs=["10x10"])
    assert "below 0" not in res.limits and "below 0" not in str(res.summary())


def test_a_smallest_design_whose_test_rejects_too_often_is_marked_everywhere(result, cli_run):
    printed, csv = cli_run
    bound = SIZE_TOLERANCE * ALPHA
    # the CSV: holds_level follows the type I error on every row
    assert (csv["holds_level"] == (csv["type_i_error"] <= bound)).all()
    # the result: each recommendation's flag follows its design's type I error in the table
    frame = result.to_frame()
    flagged = []
    for rec in result.recommendations:
        row = frame[(frame.test == rec.test) & (frame.design == rec.design.label)]
        size = float(row.type_i_error.iloc[0])
        assert rec.type_i_error == pytest.approx(size)
        assert rec.holds_level == (size <= bound) == bool(row.holds_level.iloc[0])
        if not rec.holds_level:
            flagged.append(rec)
    assert {r.test for r in flagged} >= {"combined_ftest_5x2cv"}  # 0.146 at 12×2
    assert result.best.holds_level
    # the text: the row itself says so, and only on the flagged rows
    rows = _section(printed, "Smallest design reaching the power")[1:]
    for rec in result.recommendations:
        line = next(r for r in rows if r.strip().startswith(rec.label))
        assert rec.design.label in line
        assert f"{rec.type_i_error:.4f}" in line
        assert ("no: not recommended" in line) == (not rec.holds_level)
    assert f"exceeds {SIZE_TOLERANCE:g} α ({bound:g})" in _one_line(printed)
    # and every row of the table of every design carries the same mark
    every = _section(printed, "Power of every test on every design")[1:]
    assert len(every) == len(csv)
    for line, (_, row) in zip(every, csv.iterrows()):
        assert row.label in line and row.design in line
        assert line.rstrip().endswith("yes" if row.holds_level else "no")


def test_the_choice_is_explained_against_every_test_that_trains_fewer_models(result):
    best = result.best
    text = _one_line(result.summary().interpretation)
    assert text.startswith(f"{best.label} on {best.design.label} reaches the power.")
    cheaper = [
        r
        for r in result.recommendations
        if r.design is not None and r.design.trainings < best.design.trainings
    ]
    assert cheaper  # the F tests (24, 28 models) and McNemar's test (1 model) train fewer
    for rec in cheaper:
        assert rec.label in text
        assert rec.design.label in text
    assert "fewest models trained" not in text


def test_when_only_tests_that_reject_too_often_reach_the_power_it_says_so(result):
    res = cvreport.planning.plan_from_components(
        result.components, None, effect=EFFECT, alpha=ALPHA, designs=["20x2"]
    )
    frame = res.to_frame()
    reaching = frame[frame.reaches]
    assert len(reaching) and not reaching.holds_level.any()  # the F tests, at 0.17-0.20
    assert res.best is None
    text = _one_line(res.summary().interpretation)
    assert "holds its level" in text
    for label, design in zip(reaching.label, reaching.design):
        assert f"{label} on {design}" in text
    assert f"more often than {SIZE_TOLERANCE:g} α" in text


def test_the_power_curve_rings_only_designs_whose_test_holds_its_level(result):
    curve = cvreport.power_curve(result.components, effect=EFFECT, alpha=ALPHA, power=0.8)
    frame = curve.to_frame()
    assert (frame["holds_level"] == (frame["type_i_error"] <= SIZE_TOLERANCE * ALPHA)).all()
    expected_rings = set()
    for (test, k), group in frame.groupby(["test", "K"]):
        hits = group[(group.power >= 0.8) & group.holds_level].sort_values("m")
        if len(hits):
            expected_rings.add((test, str(k), hits.design.iloc[0]))
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(curve.svg)
    rings, hollow = set(), 0
    for g in root.iter(f"{ns}g"):
        if g.get("class") != "cvr-curve":
            continue
        for circle in g.iter(f"{ns}circle"):
            title = circle.find(f"{ns}title").text
            design = title.split(": ")[1].split(", power")[0]
            if circle.get("r") == "5":
                rings.add((g.get("data-test"), g.get("data-folds"), design))
            if "rejects too often" in title:
                hollow += 1
                assert circle.get("fill") == "none"
    assert rings == expected_rings
    assert hollow == int((~frame.holds_level).sum()) > 0  # the F tests from 6×2 CV on
    assert "Hollow points" in curve.svg


def test_the_discordance_standard_error_counts_records_not_repeated_predictions(result):
    frame = cvreport.load_example()
    losses = frame.pivot_table(index=["replication", "record"], columns="model", values="loss")
    psi = float((losses[PAIR[0]] != losses[PAIR[1]]).mean())
    predictions, records = len(losses), frame["record"].nunique()
    assert predictions == 5 * records  # every replication scores each record once
    limits = _one_line(result.limits)
    assert f"ψ = {psi:.4f}" in limits
    independent = (psi * (1 - psi) / predictions) ** 0.5
    once = (psi * (1 - psi) / records) ** 0.5
    assert f"between {independent:.4f}, if its {predictions} scored predictions" in limits
    assert f"and {once:.4f}, counting each of the {records} distinct records once" in limits


def test_the_csv_says_how_each_power_was_computed_not_which_test_variant(cli_run):
    _, csv = cli_run
    assert "method" not in csv.columns  # read beside "label" it named a test variant
    mcnemar = csv[csv.test == "mcnemar"]
    # McNemar's power is that of the continuity-corrected test, summed over binomial counts;
    # the column must not read as cvreport's other variant, "McNemar's exact binomial test"
    assert (mcnemar.label == get_spec("mcnemar").method).all()
    assert not mcnemar.power_method.eq("exact binomial").any()
    assert set(csv.power_method) >= {"exact binomial sums", "numerical integration"}


def test_the_help_says_designs_that_do_not_hold_the_level_are_marked(capsys):
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    text = _one_line(capsys.readouterr().out)
    assert f"type I error exceeds {SIZE_TOLERANCE:g} α is marked as not recommended" in text
    assert "each recommended test" not in text  # the F tests are planned, not recommended


def test_a_test_that_reaches_no_power_is_given_its_best_power_where_it_holds_its_level(pilot):
    """'the best on any design searched is 0.640' was the power at a design where the F test
    rejects a true null several times too often; the fair best is said beside it."""
    res = cvreport.plan(pilot, *PAIR, effect=0.02, alpha=ALPHA)
    frame = res.to_frame()
    for rec in res.recommendations:
        rows = frame[frame["test"] == rec.test]
        fair = rows[rows["holds_level"]]
        if rec.design is not None or len(fair) == len(rows):
            assert "where it holds its level" not in rec.note
            continue
        best = fair.loc[fair["power"].idxmax()]
        assert rec.note.endswith(
            f"On the designs of the table where it holds its level, the best is "
            f"{best['power']:.3f} ({best['design']})."
        )
        assert best["power"] < rec.power  # the unqualified best flatters the test
    assert any("where it holds its level" in rec.note for rec in res.recommendations)


def test_a_given_design_no_planned_test_fits_is_said_not_dropped():
    pilot = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    res = cvreport.plan(
        pilot, "logistic_regression", "decision_tree", effect=0.05, designs=["10x10", "30 splits"]
    )
    assert set(res.to_frame()["design"]) == {"10×10 CV"}
    said = " ".join(res.limits.split())
    assert "The given design '30 hold-out splits' fits none of the tests this pilot plans" in said
    assert "'30 hold-out splits'" in " ".join(str(res.summary()).split())
    # every given design that fits leaves nothing to say
    fitting = cvreport.plan(
        pilot, "logistic_regression", "decision_tree", effect=0.05, designs=["10x10"]
    )
    assert "given design" not in fitting.limits


def test_the_plans_references_list_papers_not_the_equations_tests_cite() -> None:
    """Was: "... Neural Computation 11(8):1885–1892, eq. 3.1." in the plan's references."""
    from cvreport.planning import VarianceComponents, plan_from_components

    components = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
    res = plan_from_components(components, None, effect=0.03, power=0.8, designs=["10x10", "5x2"])
    references = res.references()
    assert any(r.startswith("Alpaydın, E. (1999)") for r in references)
    assert any(r.startswith("Wang, Y., Li, J., Li, Y. (2017)") for r in references)
    for reference in references:
        assert not re.search(r",\s*eqs?\.\s*[\d.–-]+\.?$", reference), reference
        assert reference.endswith(".")
    assert len({r.split(" (")[0] + r.split(")")[0][-4:] for r in references}) == len(references)
    assert " eq. " not in res.summary().as_text()


def test_the_best_power_beside_no_design_carries_its_type_i_error(pilot):
    """Was: "Alpaydın's combined 5×2cv F test | none (best found) | 0.7520" with the type I
    error and holds-level cells blank, and ``holds_level=True`` in the API, though that power
    is at 1000×2 CV, where the test rejects a true null about a third of the time."""
    from cvreport.planning.power import holds_level
    from cvreport.planning.search import MAX_REPLICATIONS

    res = cvreport.plan(pilot, *PAIR, effect=0.02, alpha=ALPHA)
    unreached = [rec for rec in res.recommendations if rec.design is None]
    assert unreached, "an effect of 0.02 is out of reach of some test on this pilot"
    text = str(res)
    for rec in unreached:
        assert rec.type_i_error == rec.type_i_error  # not NaN
        assert rec.holds_level == holds_level(rec.type_i_error, ALPHA)
        row = next(line for line in text.splitlines() if line.strip().startswith(rec.label))
        cells = row.split(rec.label, 1)[1].split()
        assert cells[:4] == ["none", "(best", "found)", f"{rec.power:.4f}"]
        assert cells[4] == f"{rec.type_i_error:.4f}"
        assert " ".join(cells[5:]) == ("yes" if rec.holds_level else "no: not recommended")
        if not rec.holds_level:
            assert f"where its type I error is {rec.type_i_error:.3f}" in " ".join(rec.note.split())
    f_test = next(r for r in unreached if r.test == "combined_ftest_5x2cv")
    assert not f_test.holds_level and f"({MAX_REPLICATIONS}×2 CV," in " ".join(f_test.note.split())
