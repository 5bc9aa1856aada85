"""Report: test selection for the design, multiplicity adjustment, readings, saving.

Most tests here drive :class:`cvreport.reporting.report.Report` with a small stand-in
table and stand-in test functions that return :class:`TestResult` objects
with chosen p-values, so that every branch (recommendation, fallback,
adjustment, disagreement, skipped tests) is exercised with known numbers.
The end-to-end tests at the bottom run the real tests on the real example data.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from cvreport.errors import CVReportError, DataError, DegenerateStatisticWarning, DesignError
from cvreport.methods import recommendation as recommender
from cvreport.methods import registry
from cvreport.results import TestResult
from tests._fakes import (
    FakeDesign,
    FakeTable,
    IntervalResult,
    PosteriorResult,
    make_result,
    route_tests,
    with_audit,
)

report_module = importlib.import_module("cvreport.reporting.report")
Report = report_module.Report


# -- stand-ins -----------------------------------------------------------------
# -- selection -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "partitions", "binary", "expected"),
    [
        ("mx2", "balanced", True, ("calibrated_ftest_5x2cv",)),
        ("mx2", "block-regularized", True, ("calibrated_ftest_5x2cv",)),
        ("mx2", "block-regularized", False, ("calibrated_ftest_5x2cv",)),
        ("mx2", "random", True, ("combined_ftest_5x2cv",)),
        ("mx2", None, True, ("combined_ftest_5x2cv",)),
        ("kfold", None, True, ("corrected_repeated_kfold_ttest",)),
        ("repeated_kfold", None, False, ("corrected_repeated_kfold_ttest",)),
        ("repeated_holdout", None, True, ("corrected_resampled_ttest",)),
        ("holdout", None, True, ("mcnemar",)),
        ("holdout", None, False, ()),
    ],
)
def test_recommended_tests_per_design(
    kind: str, partitions: str | None, binary: bool, expected: tuple[str, ...]
) -> None:
    rec = recommender.recommendation(kind, partitions=partitions, binary=binary, per_record=True)
    assert rec.names == expected
    assert rec.reason.endswith(".")
    # every recommended test is registered for the design it is recommended for
    for name in rec.names:
        assert registry.get_spec(name, in_report=True).fits(kind, binary=binary, per_record=True)


def test_registry_covers_every_design_and_rejects_unknown_names() -> None:
    for kind in registry.DESIGN_KINDS:
        assert registry.specs_for(kind, binary=True, per_record=True)
    assert [s.name for s in registry.specs_for("holdout", binary=False, per_record=True)] == []
    with pytest.raises(CVReportError, match=r"unknown test 'nope'.*mcnemar"):
        registry.get_spec("nope", in_report=True)
    with pytest.raises(CVReportError, match="unknown design kind"):
        recommender.recommendation("bootstrap", binary=True, per_record=True)


def test_every_registered_test_exists_in_methods() -> None:
    from cvreport import methods

    missing = [s.name for s in registry.SPECS if s.in_report and not hasattr(methods, s.name)]
    assert missing == []


# -- recommended tests and reasons ---------------------------------------------------
def test_balanced_binary_mx2_runs_calibrated_f_and_bcv_mcnemar(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "balanced")
    report = Report(FakeTable())
    assert [o.name for o in report.outcomes] == ["calibrated_ftest_5x2cv", "mcnemar_5x2bcv"]
    # one test decides; the BCV McNemar test is shown beside it as a secondary check
    assert [(o.recommended, o.secondary) for o in report.outcomes] == [(True, False), (False, True)]
    assert "balanced" in report.recommendation.reason
    assert report.partitions == "balanced"


def test_random_mx2_recommends_combined_f(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable())
    assert [o.name for o in report.outcomes] == ["combined_ftest_5x2cv"]
    assert "random" in report.recommendation.reason


def test_unaudited_mx2_says_so_and_falls_back_to_combined_f(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, None)
    report = Report(FakeTable())
    assert [o.name for o in report.outcomes] == ["combined_ftest_5x2cv"]
    assert "could not be audited" in report.recommendation.reason
    assert report.context()["audit"] == {
        "available": False,
        "note": "The overlap audit could not run: no audit for this table",
    }


def test_tests_all_runs_every_fitting_test_recommended_first(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable(), tests="all")
    names = [o.name for o in report.outcomes]
    fitting = [s.name for s in registry.specs_for("mx2", binary=True, per_record=True)]
    assert names[0] == "combined_ftest_5x2cv"
    assert sorted(names) == sorted(fitting)
    assert [o.name for o in report.outcomes if o.recommended] == ["combined_ftest_5x2cv"]


def test_named_tests_in_given_order_and_unknown_name_rejected(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable(), tests=["paired_ttest_5x2cv", "combined_ftest_5x2cv"])
    assert [o.name for o in report.outcomes] == ["paired_ttest_5x2cv", "combined_ftest_5x2cv"]
    assert Report(FakeTable(), tests="paired_ttest_5x2cv").test_names == ["paired_ttest_5x2cv"]
    with pytest.raises(CVReportError, match="unknown test 'anova'"):
        Report(FakeTable(), tests=["anova"])
    with pytest.raises(CVReportError, match="no test named"):
        Report(FakeTable(), tests=[])


def test_test_that_does_not_fit_is_listed_as_not_run(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    fake_tests["blocked_ttest_3x2cv"] = DesignError("blocked_ttest_3x2cv needs m = 3")
    report = Report(FakeTable(), tests=["combined_ftest_5x2cv", "blocked_ttest_3x2cv"])
    assert [o.name for o in report.outcomes] == ["combined_ftest_5x2cv"]
    assert [(s.name, s.reason) for s in report.skipped] == [
        ("blocked_ttest_3x2cv", "blocked_ttest_3x2cv needs m = 3")
    ]
    assert "Blocked 3×2cv t test: it needs m = 3." in report.to_markdown().replace("\\_", "_")


def test_kfold_falls_back_to_plain_t_when_corrected_cannot_run(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, None)
    fake_tests["corrected_repeated_kfold_ttest"] = DesignError("needs training-set sizes")
    table = FakeTable(design=FakeDesign(kind="kfold", m=1, K=10), per_record=False)
    report = Report(table)
    assert [o.name for o in report.outcomes] == ["paired_ttest_kfold"]
    assert report.outcomes[0].recommended
    note = report.comparisons[0].fallback_note
    assert note is not None and "needs training-set sizes" in note
    assert "K-fold cross-validated paired t test" in note  # the name its result and table give


def test_holdout_without_binary_losses_runs_nothing_and_says_why(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, None)
    table = FakeTable(design=FakeDesign(kind="holdout", m=1, K=1), binary=False)
    report = Report(table)
    assert report.results == []
    context = report.context()
    assert context["bottom_line"][0]["text"].startswith("No test could be run")
    assert any("fits none of cvreport's tests" in c for c in context["caveats"])


# -- multiplicity ----------------------------------------------------------------------
def holm_by_hand(pvalues: list[float]) -> list[float]:
    """Holm (1979): sort, multiply the i-th smallest by (m − i + 1), enforce monotonicity, cap at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def test_holm_adjustment_across_pairs_and_decisions_use_it(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    raw = {("A", "B"): 0.01, ("A", "C"): 0.04, ("B", "C"): 0.03}
    for (a, b), p in raw.items():
        fake_tests[("combined_ftest_5x2cv", a, b)] = p
    report = Report(FakeTable(("A", "B", "C")))
    outcomes = report.outcomes
    assert [(o.a, o.b) for o in outcomes] == list(raw)
    expected = holm_by_hand(list(raw.values()))
    assert expected == pytest.approx([0.03, 0.06, 0.06])
    assert [o.adjusted for o in outcomes] == pytest.approx(expected)
    # raw p = 0.04 and 0.03 are below α but their adjusted p-values are not
    assert [o.reject for o in outcomes] == [True, False, False]
    assert [o.result.reject(0.05) for o in outcomes] == [True, True, True]
    frame = report.to_frame()
    assert frame["pvalue_adjusted"].tolist() == pytest.approx(expected)
    assert frame["decision"].tolist() == [True, False, False]


def test_other_corrections_match_statsmodels(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from statsmodels.stats.multitest import multipletests

    with_audit(monkeypatch, "random")
    raw = [0.01, 0.02, 0.04]
    for (a, b), p in zip([("A", "B"), ("A", "C"), ("B", "C")], raw):
        fake_tests[("combined_ftest_5x2cv", a, b)] = p
    report = Report(FakeTable(("A", "B", "C")), correction="fdr_bh")
    assert [o.adjusted for o in report.outcomes] == pytest.approx(
        list(multipletests(raw, method="fdr_bh")[1])
    )
    # by hand: BH multiplies the i-th smallest by m / i and takes running minima from the top
    assert [o.adjusted for o in report.outcomes] == pytest.approx([0.03, 0.03, 0.04])


def test_no_adjustment_for_one_pair_or_correction_none(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    fake_tests["combined_ftest_5x2cv"] = 0.03
    two = Report(FakeTable(("A", "B")))
    assert [o.adjusted for o in two.outcomes] == [None]
    assert two.outcomes[0].reject is True
    three = Report(FakeTable(("A", "B", "C")), correction="none")
    assert [o.adjusted for o in three.outcomes] == [None, None, None]
    assert any("without a multiplicity correction" in c for c in three.context()["caveats"])
    one_pair = Report(FakeTable(("A", "B", "C")), pairs=[("C", "A")])
    assert [(o.a, o.b, o.adjusted) for o in one_pair.outcomes] == [("C", "A", None)]
    with pytest.raises(CVReportError, match="unknown correction 'tukey'"):
        Report(FakeTable(), correction="tukey")


# -- readings -----------------------------------------------------------------------------
def test_disagreement_sentence_only_when_decisions_differ(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "balanced")
    fake_tests["calibrated_ftest_5x2cv"] = 0.01
    fake_tests["mcnemar_5x2bcv"] = 0.30
    report = Report(FakeTable())
    sentence = report.comparisons[0].disagreement
    assert sentence is not None
    assert "method calibrated_ftest_5x2cv finds a difference" in sentence
    assert "method mcnemar_5x2bcv does not" in sentence
    assert "the recommended test (method calibrated_ftest_5x2cv) decides" in sentence
    assert "secondary check" in sentence and "borderline" in sentence
    assert sentence in report.to_markdown().replace("\\_", "_")
    fake_tests["mcnemar_5x2bcv"] = 0.02
    assert Report(FakeTable()).comparisons[0].disagreement is None
    # recommended tests agree, another test does not: point to the recommended ones
    fake_tests["paired_ttest_5x2cv"] = 0.4
    one_side = Report(FakeTable(), tests="all").comparisons[0].disagreement
    assert one_side is not None
    assert "rely on the recommended test (method calibrated_ftest_5x2cv)" in one_side


def test_reading_states_direction_pvalue_and_interval(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    fake_tests["combined_ftest_5x2cv"] = lambda a, b: IntervalResult(
        statistic=3.1, pvalue=0.004, estimate=-0.021, method="Interval test", models=(a, b)
    )
    outcome = Report(FakeTable(("forest", "tree"))).outcomes[0]
    assert outcome.interval == (-0.05, 0.01)
    text = outcome.interpretation
    assert "statistically significant (p = 0.004)" in text
    assert "forest has the lower mean error rate, by 0.0210 (A − B = -0.0210)" in text
    assert "[-0.0500, 0.0100]; it includes 0" in text
    assert outcome.headline == "significant difference at α = 0.05 (Interval test, p = 0.004)"


def test_bottom_line_gives_every_recommended_verdict_then_the_direction(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "balanced")
    fake_tests["calibrated_ftest_5x2cv"] = 0.2
    fake_tests["mcnemar_5x2bcv"] = 0.0004
    fake_tests["combined_ftest_5x2cv"] = 0.01  # not recommended here: not in the bottom line
    report = Report(FakeTable(("forest", "tree")), tests="all")
    [line] = report.context()["bottom_line"]
    assert line["pair"] == "forest vs tree"
    # one deciding test: the secondary BCV McNemar check is not a verdict of its own
    assert line["text"] == (
        "No significant difference at α = 0.05 (Method calibrated_ftest_5x2cv, p = 0.200). "
        "forest has the lower mean error rate, by 0.0100 (forest − tree = -0.0100)."
    )


def test_bayesian_result_is_read_as_probabilities_and_not_adjusted(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    fake_tests["bayesian_correlated_ttest"] = lambda a, b: PosteriorResult(
        statistic=0.5, pvalue=0.9, method="Bayesian correlated t test", models=(a, b)
    )
    report = Report(FakeTable(("A", "B", "C")), tests=["bayesian_correlated_ttest"])
    for outcome in report.outcomes:
        assert outcome.posterior is not None
        assert (outcome.adjusted, outcome.reject) == (None, None)
        assert "probability that" in outcome.interpretation
        assert "0.2000" in outcome.interpretation and "±0.0100" in outcome.interpretation
    assert report.context()["pvalue_figure"] is None
    pair = report.context()["pairs"][0]
    assert pair["tests"] == [] and pair["bayesian"][0]["posterior"]["p_b_better"] == 0.5


def test_degenerate_warnings_are_shown_once_and_not_leaked(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    message = "every split difference is 0: statistic 0 and p = 1"

    def degenerate(a: str, b: str) -> TestResult:
        warnings.warn(message, DegenerateStatisticWarning, stacklevel=2)
        warnings.warn("an extra remark", DegenerateStatisticWarning, stacklevel=2)
        return make_result("combined_ftest_5x2cv", a, b, 1.0, warnings=(message,))

    fake_tests["combined_ftest_5x2cv"] = degenerate
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = Report(FakeTable())
    caveats = [c["text"] for c in report.context()["pairs"][0]["caveats"]]
    # each warning once, as a sentence after the test's label
    assert caveats == [
        f"Method combined_ftest_5x2cv: {message}.",
        "Method combined_ftest_5x2cv: an extra remark.",
    ]


def test_higher_is_better_scores_are_described_as_scores(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable(higher_is_better=True))
    # results speak the metric: the fake test's estimate −0.01 is score(A) − score(B)
    assert "B has the higher mean loss, by 0.0100 (A − B = -0.0100)" in (
        report.outcomes[0].interpretation
    )
    assert report.outcomes[0].shown_estimate == pytest.approx(-0.01)
    assert not any("negated" in c for c in report.context()["caveats"])


# -- arguments -----------------------------------------------------------------------
def test_argument_validation(fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with_audit(monkeypatch, "random")
    table = FakeTable(("A", "B", "C"))
    for alpha in (0, 1, 1.5, -0.1, True):
        with pytest.raises(CVReportError, match="alpha must lie strictly between 0 and 1"):
            Report(table, alpha=alpha)
    with pytest.raises(DataError, match="unknown model 'Z'"):
        Report(table, pairs=[("A", "Z")])
    with pytest.raises(CVReportError, match="two different models"):
        Report(table, pairs=[("A", "A")])
    with pytest.raises(CVReportError, match="each pair must be two model names"):
        Report(table, pairs=["AB"])  # type: ignore[list-item,unused-ignore]
    with pytest.raises(DataError, match="only 'A'"):
        Report(FakeTable(("A",)))
    with pytest.raises(CVReportError, match=r"the pair \('B', 'A'\) is given twice"):
        Report(table, pairs=[("B", "A"), ("B", "A")])


def test_context_is_plain_data(fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with_audit(monkeypatch, "balanced")
    report = Report(FakeTable(("A", "B", "C")), tests="all")
    context = report.context()
    json.dumps(context)  # only numbers, strings, lists, dicts, None
    assert context["data"]["models"] == ["A", "B", "C"]
    assert len(context["pairs"]) == 3
    assert context["model_losses"][0]["mean"] == pytest.approx(
        float(report.table.errors["A"].mean())
    )
    assert context["model_losses"][0]["sd"] == pytest.approx(
        float(report.table.errors["A"].std(ddof=1))
    )
    assert repr(report).startswith("Report(3 models, 3 pairs")


def test_notebook_reprs(fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable())
    fragment = report._repr_html_()
    assert fragment.startswith('<div class="cvreport">') and "<html" not in fragment
    assert "<svg" in fragment and "<table" in fragment
    assert report._repr_markdown_() == report.to_markdown()
    assert report.to_html().startswith("<!DOCTYPE html>")


# -- saving -------------------------------------------------------------------------
def test_save_chooses_format_from_suffix_and_refuses_to_overwrite(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable())
    for name, start in [
        ("r.html", "<!DOCTYPE html>"),
        ("r.HTM", "<!DOCTYPE html>"),
        ("r.md", "# Comparison of A and B"),
        ("r.tex", "\\documentclass"),
    ]:
        written = report.save(tmp_path / name)
        assert written == tmp_path / name
        assert written.read_text(encoding="utf-8").startswith(start)
    target = tmp_path / "r.md"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError, match="exists; pass overwrite=True") as info:
        report.save(target)
    assert isinstance(info.value, CVReportError) and info.value.filename == str(target)
    assert target.read_text(encoding="utf-8") == "keep me"
    report.save(target, overwrite=True)
    assert target.read_text(encoding="utf-8").startswith("# Comparison")
    assert (
        report.save(tmp_path / "plain.txt", format="md").read_text(encoding="utf-8").startswith("#")
    )
    with pytest.raises(CVReportError, match="cannot tell the report format"):
        report.save(tmp_path / "report.pdf")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        report.save(tmp_path / "missing" / "r.html")
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_save_leaves_no_partial_file_when_rendering_fails(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable())

    def broken(text_target: Path, text: str, *, overwrite: bool) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(report_module, "_write_atomically", broken)
    with pytest.raises(OSError, match="disk full"):
        report.save(tmp_path / "r.html")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_uses_same_folder_and_normal_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    report_module._write_atomically(target, "x", overwrite=False)
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text(encoding="utf-8") == "x"
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    with pytest.raises(FileExistsError):
        report_module._write_atomically(target, "y", overwrite=False)
    assert target.read_text(encoding="utf-8") == "x"
    report_module._write_atomically(target, "z", overwrite=True)
    assert target.read_text(encoding="utf-8") == "z"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]


# -- end to end on the real example data -------------------------------------------------
def real_example_table() -> Any:
    from cvreport.data import examples
    from cvreport.data import table as table_module

    frame = examples.load_example()
    return table_module.ResultsTable.from_formula(
        "loss ~ model | replication + fold", frame, record="record"
    )


def test_real_example_report_runs_real_tests() -> None:
    table = real_example_table()
    report = Report(table, tests="all")
    assert report.results, "no test ran on the example data"
    assert not report.skipped or all(s.reason for s in report.skipped)
    methods = importlib.import_module("cvreport.methods")
    for outcome in report.outcomes:
        # the report passes results through untouched: recompute each one directly
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the report shows them; here only numbers matter
            function = getattr(methods, outcome.name)
            options = report.analysis.options_for(outcome.name)
            direct = function(table, outcome.a, outcome.b, **options)
        assert outcome.result.statistic == pytest.approx(direct.statistic, nan_ok=True)
        assert outcome.result.pvalue == pytest.approx(direct.pvalue)
    names = {o.name for o in report.outcomes if o.recommended}
    assert names == set(report.recommendation.names) - {s.name for s in report.skipped}
    assert math.isfinite(report.context()["model_losses"][0]["mean"])


def test_test_options_reach_the_test_and_bad_ones_fail_clearly(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    seen: dict[str, Any] = {}

    def resolve(name: str) -> Any:
        def run(table: Any, a: str, b: str, rope: float = 0.0) -> TestResult:
            seen[name] = rope
            return PosteriorResult(statistic=0.1, pvalue=0.9, rope=rope, models=(a, b))

        return run

    route_tests(monkeypatch, resolve, passed=("rope",))
    options = {"bayesian_correlated_ttest": {"rope": 0.02}}
    report = Report(FakeTable(), tests=["bayesian_correlated_ttest"], test_options=options)
    assert seen == {"bayesian_correlated_ttest": 0.02}
    assert report.outcomes[0].posterior is not None and report.outcomes[0].posterior.rope == 0.02
    with pytest.raises(CVReportError, match="test_options for 'bayesian_correlated_ttest'"):
        Report(
            FakeTable(),
            tests=["bayesian_correlated_ttest"],
            test_options={"bayesian_correlated_ttest": {"width": 1}},
        )
    with pytest.raises(CVReportError, match="unknown test 'ropes'"):
        Report(FakeTable(), test_options={"ropes": {}})


def test_context_is_built_once_and_handed_out_as_a_copy(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    with_audit(monkeypatch, "random")
    report = Report(FakeTable())
    first = report.context()
    first["title"] = "changed"
    first["pairs"][0]["tests"].clear()
    assert report.context()["title"] == "Comparison of A and B"
    assert report.context()["pairs"][0]["tests"]
    assert "changed" not in report.to_markdown()


def test_latex_display_only_behind_the_option(
    fake_tests: dict[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cvreport.options import option_context

    with_audit(monkeypatch, "random")
    report = Report(FakeTable())
    assert report._repr_latex_() is None
    with option_context("display.latex", True):
        latex = report._repr_latex_()
    assert latex is not None and "\\begin{tabular}" in latex and "\\documentclass" not in latex


def test_cvreport_report_is_the_shortcut_even_after_importing_the_module() -> None:
    """``cvreport.reporting.report`` stays the shortcut function after ``import cvreport.reporting.report``."""
    import cvreport
    import cvreport.reporting.report  # must not rebind the package attribute

    table = real_example_table()
    made = cvreport.report(table, pairs=[("naive_bayes", "decision_tree")])
    assert isinstance(made, Report)
    assert made.pairs == [("naive_bayes", "decision_tree")]
    assert cvreport.Report is Report
    assert isinstance(report_module.report(table), Report)


# -- bad arguments and degenerate data, on small real tables -----------------------------
def small_table(
    m: int = 1, k: int = 2, n: int = 4, *, losses: dict[str, list[float]] | None = None
) -> Any:
    """A tiny real table: record r is in fold r % k of every replication."""
    table_module = importlib.import_module("cvreport.data.table")
    losses = losses or {"a": [1.0, 1.0, 0.0, 0.0] * (n // 4), "b": [0.0] * n}
    rows = [
        (i + 1, r % k + 1, model, r, values[r])
        for i in range(m)
        for model, values in losses.items()
        for r in range(n)
    ]
    frame = pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])
    return table_module.ResultsTable(frame)


def test_tests_argument_of_the_wrong_kind_is_a_clear_error() -> None:
    table = small_table()
    for bad in (None, 3, ["paired_ttest_kfold", 4]):
        with pytest.raises(CVReportError, match="tests must be 'recommended', 'all' or a list"):
            Report(table, tests=bad)  # type: ignore[arg-type]
    with pytest.raises(CVReportError, match=r"unknown test 'rec'.*or pass tests='recommended'"):
        Report(table, tests="rec")


def test_a_pair_and_its_reverse_are_one_comparison() -> None:
    table = small_table(losses={"a": [1, 0, 1, 0], "b": [0, 0, 0, 0], "c": [1, 1, 0, 0]})
    with pytest.raises(CVReportError, match=r"\('b', 'a'\) repeats \('a', 'b'\) reversed"):
        Report(table, pairs=[("a", "b"), ("b", "a")])
    with pytest.raises(CVReportError, match=r"for one pair write pairs=\[\('a', 'b'\)\]"):
        Report(table, pairs=("a", "b"))  # type: ignore[arg-type]
    with pytest.raises(CVReportError, match="pairs is empty"):
        Report(table, pairs=[])


def test_save_checks_format_and_folder_before_anything_else(tmp_path: Path) -> None:
    report = Report(small_table())
    existing = tmp_path / "old.txt"
    existing.write_text("keep", encoding="utf-8")
    with pytest.raises(CVReportError, match="unknown report format 'pdf'"):
        report.save(existing, format="pdf")  # the format is wrong, whether or not it exists
    with pytest.raises(CVReportError, match="is a folder; give a file name inside it"):
        report.save(tmp_path, format="html", overwrite=True)
    assert tmp_path.is_dir() and existing.read_text(encoding="utf-8") == "keep"
    with pytest.raises(CVReportError, match="stars does not apply to markdown output"):
        report.save(tmp_path / "r.md", stars=True)
    with pytest.raises(CVReportError, match="colour does not apply to latex output"):
        report.render("tex", colour=True)
    assert not (tmp_path / "r.md").exists()
    assert report.save(tmp_path / "r.tex", stars=True).read_text(encoding="utf-8")


def test_an_infinite_statistic_is_not_read_as_evidence() -> None:
    # every fold shows the same difference: zero variance, statistic +inf, p = 0 by convention
    report = Report(small_table(), tests="all")
    degenerate = [o for o in report.outcomes if math.isinf(o.result.statistic)]
    assert degenerate, "the data should give a zero-variance statistic"
    for outcome in degenerate:
        assert "convention, not evidence" in outcome.interpretation
        if outcome.posterior is None:
            assert "by the zero-variance convention, not evidence" in outcome.headline
    bottom = report.context()["bottom_line"][0]["text"]
    assert "p < 0.001 by the zero-variance convention, not evidence" in bottom
    finite = [o for o in report.outcomes if not math.isinf(o.result.statistic)]
    assert all("convention, not evidence" not in o.interpretation for o in finite)


def test_per_model_scores_are_shown_as_given_not_negated() -> None:
    table_module = importlib.import_module("cvreport.data.table")
    scores = pd.DataFrame(
        {
            "fold": [1, 1, 2, 2, 3, 3],
            "model": ["a", "b"] * 3,
            "auc": [0.90, 0.80, 0.92, 0.81, 0.88, 0.79],
        }
    )
    table = table_module.ResultsTable.from_fold_scores(scores, score="auc", replication=None)
    rows = Report(table).context()["model_losses"]
    assert [r["mean"] for r in rows] == [pytest.approx(0.90), pytest.approx(0.80)]
    assert (rows[0]["min"], rows[0]["max"]) == (pytest.approx(0.88), pytest.approx(0.92))
    assert "| a | 0.9000 |" in Report(table).to_markdown()


def test_a_score_is_read_the_right_way_round() -> None:
    """A score's estimate is score(A) − score(B), in every output and in the result itself."""
    table_module = importlib.import_module("cvreport.data.table")
    scores = pd.DataFrame(
        {
            "fold": [1, 1, 2, 2, 3, 3],
            "model": ["a", "b"] * 3,
            "auc": [0.90, 0.80, 0.92, 0.81, 0.88, 0.79],
        }
    )
    table = table_module.ResultsTable.from_fold_scores(scores, score="auc", replication=None)
    report = Report(table)
    for text in (report.to_markdown(), report.to_html(), report.to_latex()):
        assert "a positive estimate means A has the higher AUC" in text
        assert "negated" not in text
        assert "a has the higher mean per-fold AUC, by 0.1000" in text
    assert report.outcomes[0].shown_estimate == pytest.approx(0.1)
    result = report.results[0]
    assert result.estimate == pytest.approx(0.1) and result.loss_name == "auc"
    assert "(mean AUC A − B)" in result.summary().as_text()
    assert "negated" not in result.summary().as_text()


def test_the_repr_counts_in_words_that_agree_with_the_number():
    table = real_example_table()
    one_pair = Report(table, pairs=[table.models[:2]])
    assert repr(one_pair).startswith(f"Report({len(table.models)} models, 1 pair, ")
