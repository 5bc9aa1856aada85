"""Round five of reading cvreport's output as a new user: plans, names, LaTeX, small designs.

Each test renders what a user reads (a plan's text, a report in Markdown, HTML or
LaTeX, a compiled PDF) and checks a sentence, a row or a mark against numbers
computed here from the data.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport.methods.registry import get_spec
from cvreport.planning import VarianceComponents, plan_from_components
from cvreport.reporting.multi_report import DatasetsReport
from cvreport.reporting.report import Report
from tests._fakes import compile_latex, open_page, pdflatex_or_skip


def quiet(*args: object, **kwargs: object) -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(*args, **kwargs)  # type: ignore[arg-type]


def _errors(rates: dict[str, float], records: np.ndarray, rng: np.random.Generator) -> list:
    return [(model, r, int(rng.random() < rate)) for model, rate in rates.items() for r in records]


@pytest.fixture(scope="module")
def holdout_pilot() -> cvreport.ResultsTable:
    """0/1 errors of two models on one hold-out set of 500 records."""
    rng = np.random.default_rng(1)
    rows = _errors({"a": 0.10, "b": 0.13}, np.arange(500), rng)
    frame = pd.DataFrame(rows, columns=["model", "record", "error"])
    return cvreport.ResultsTable.from_formula("error ~ model", frame)


@pytest.fixture(scope="module")
def repeated_holdout_frame() -> pd.DataFrame:
    """0/1 errors on 10 hold-out splits, each a random 100 of 300 records."""
    rng = np.random.default_rng(1)
    rows = []
    for split in range(1, 11):
        chosen = rng.permutation(300)[:100]
        rows += [(split, *row) for row in _errors({"a": 0.10, "b": 0.13}, chosen, rng)]
    return pd.DataFrame(rows, columns=["replication", "model", "record", "error"])


def _notes(text: str) -> list[list[str]]:
    """The plan's notes, each as its printed lines."""
    block = text.split("\nNotes:\n", 1)[1].split("\n---", 1)[0]
    notes: list[list[str]] = []
    for line in block.splitlines():
        if line.startswith("- "):
            notes.append([line])
        else:
            notes[-1].append(line)
    return notes


# -- 1. a plan's notes wrap at the output's width, not at 40 characters ------------------------
def test_plan_notes_wrap_at_the_width_of_the_output(
    holdout_pilot: cvreport.ResultsTable,
) -> None:
    """Was: every note of a hold-out plan broken into 38-character lines ("- Pilot:
    hold-out validation (n = 500" / "  records).")."""
    text = str(cvreport.plan(holdout_pilot, "a", "b", effect=0.02))
    rule = len(text.splitlines()[0])
    assert set(text.splitlines()[0]) == {"="} and rule >= 78
    notes = _notes(text)
    assert notes
    for lines in notes:
        assert all(len(line) <= rule for line in lines)
        # filled as a paragraph at that width: the next word would not have fitted
        for line, following in itertools.pairwise(lines):
            next_word = following.strip().split(" ", 1)[0]
            assert len(line) + 1 + len(next_word) > rule - 2, (line, following)
    assert "- Pilot: hold-out validation (n = 500 records)." in text


# -- 2. a hold-out pilot has no within-fold variance: said in words, and no contradiction ------
def test_a_holdout_pilot_names_its_variance_between_splits(
    repeated_holdout_frame: pd.DataFrame,
) -> None:
    """Was: "within variance (K = 1)   0" and "between 0.002773 ... (between-replication
    variance taken as 0: ...)", a 0 that was never estimated beside a contradiction, and
    "More replications cannot help ... the covariance every fold shares" of hold-out splits."""
    table = cvreport.ResultsTable.from_formula(
        "error ~ model | replication", repeated_holdout_frame
    )
    text = str(cvreport.plan(table, "a", "b", effect=0.02))
    means = repeated_holdout_frame.groupby(["replication", "model"])["error"].mean().unstack()
    spread = float(np.var(means["a"] - means["b"], ddof=1))
    rows = {line[:31].strip(): line[31:].strip() for line in text.splitlines()[3:12]}
    assert rows["within variance (K = 1)"] == "not estimable from one fold per split"
    assert rows["variance between splits"] == f"{spread:.4g}"
    assert not re.search(r"within variance \(K = 1\)\s+0\s*$", text, re.MULTILINE)
    flat = " ".join(text.split())
    assert f"variance between hold-out splits {spread:.4g} (one fold per split" in flat
    assert "taken as 0" not in flat
    # the design is a number of splits, and a split is what every difference comes from
    assert "More splits cannot help" in flat and "the covariance every split shares" in flat
    assert "replication" not in flat


# -- 3. a plan cites the papers of the tests it plans, no others ------------------------------
def test_a_plan_cites_only_the_tests_it_plans(holdout_pilot: cvreport.ResultsTable) -> None:
    """Was: a McNemar-only plan cited Nadeau & Bengio, Bouckaert & Frank, Alpaydın and Wang."""
    result = cvreport.plan(holdout_pilot, "a", "b", effect=0.02)
    assert list(result.to_frame()["test"].unique()) == ["mcnemar"]
    reference = " ".join(str(result).split("Reference:", 1)[1].split())
    assert reference.startswith("Connor, R. J. (1987).")
    for absent in ("Nadeau", "Bouckaert", "Alpaydın", "Wang"):
        assert absent not in reference


# -- 4. the plan names the metric as the report does -------------------------------------------
def test_the_plan_names_the_metric_as_the_report_does() -> None:
    """Was: "effect to detect (auc)" where the report says "Per-model AUC"."""
    rng = np.random.default_rng(4)
    rows = [
        (rep, fold, model, 0.85 + shift + rng.normal(0, 0.01))
        for rep in range(1, 6)
        for fold in (1, 2)
        for model, shift in (("svm", 0.0), ("rf", 0.01))
    ]
    frame = pd.DataFrame(rows, columns=["rep", "k", "clf", "auc"])
    table = cvreport.ResultsTable.from_formula("auc ~ clf | rep + k", frame, per_fold=True)
    heading = re.search(r"^## Per-model (.+)$", quiet(table).to_markdown(), re.MULTILINE)
    assert heading is not None
    text = str(cvreport.plan(table, "svm", "rf", effect=0.02))
    assert f"effect to detect ({heading.group(1)})" in text


# -- 5. an unreachable power is a ceiling, not where the power "stays" ------------------------
def test_the_limit_of_more_replications_is_a_ceiling() -> None:
    """Was: "the best on any of the given designs is 0.089 ... the power stays at 0.104"."""
    components = VarianceComponents(within=0.0009, between=0.0, common=0.0001, K=10)
    result = plan_from_components(components, None, effect=0.005, power=0.8, designs=["2x10"])
    note = " ".join(str(result).split())
    best = re.search(r"the best on any of the given designs is ([0-9.]+)\.", note)
    ceiling = re.search(r"with unlimited replications the power cannot exceed ([0-9.]+)\.", note)
    assert best and ceiling, note
    assert float(best[1]) < float(ceiling[1]) < 1
    assert "stays at" not in note


# -- 6. one spelling of K-fold in every name ---------------------------------------------------
def test_every_test_name_spells_k_fold_with_a_capital_k() -> None:
    """Was: "Corrected repeated K-fold t test" (label) beside "Corrected repeated k-fold CV t
    test" (method) and "K-fold paired t test" elsewhere."""
    rng = np.random.default_rng(6)
    order = rng.permutation(200)
    rows = [
        (fold + 1, *row)
        for fold in range(10)
        for row in _errors({"a": 0.1, "b": 0.14}, order[fold::10], rng)
    ]
    frame = pd.DataFrame(rows, columns=["fold", "model", "record", "error"])
    report = quiet(cvreport.ResultsTable.from_formula("error ~ model | fold", frame), tests="all")
    spec = get_spec("corrected_repeated_kfold_ttest")
    for page in (report.to_markdown(), report.to_html(), report.to_latex()):
        assert spec.method in page
        assert "k-fold" not in page
    assert spec.method == "Corrected repeated K-fold CV t test"
    assert "K-fold" in spec.label


# -- 7. LaTeX sets a negative number with a minus sign ------------------------------------------
def test_latex_sets_negative_numbers_with_a_minus() -> None:
    """Was: "(logistic\\_regression $-$ decision\\_tree = -0.0573)": a hyphen, not a minus."""
    frame = cvreport.load_example()
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", frame)
    means = frame.groupby("model")["loss"].mean()
    estimate = means["logistic_regression"] - means["decision_tree"]
    assert estimate < 0
    latex = quiet(table).to_latex()
    assert f"decision\\_tree = $-${-estimate:.4f})" in latex
    assert f"& $-${-estimate:.4f} &" in latex
    assert not re.search(r"(?<![\w.\-+$])-\d", latex)


# -- 8. the rope disagreement says what the posterior puts inside and beyond the rope -----------
def test_the_rope_disagreement_states_both_posterior_probabilities() -> None:
    """Was: "but Bayesian correlated t test calls neither model practically better: a posterior
    probability of 0.4851 lies within the region ..., the difference may be real but smaller
    than the rope" although the estimate (0.0102) lies beyond the rope (0.0100)."""
    rng = np.random.default_rng(3)
    rows = []
    for rep in range(1, 11):
        for fold in range(1, 11):
            base = rng.normal(0.8, 0.02)
            rows += [
                (rep, fold, "a", base + 0.01 + rng.normal(0, 0.01)),
                (rep, fold, "b", base + rng.normal(0, 0.01)),
            ]
    frame = pd.DataFrame(rows, columns=["replication", "fold", "model", "accuracy"])
    table = cvreport.ResultsTable.from_fold_scores(frame, score="accuracy", test_train_ratio=1 / 9)
    report = quiet(table, tests=["corrected_repeated_kfold_ttest", "bayesian_correlated_ttest"])
    frequentist, bayesian = report.outcomes
    posterior = bayesian.posterior
    assert frequentist.reject and max(posterior.p_a_better, posterior.p_b_better) < 0.95
    leader, beyond = max(
        ("a", posterior.p_a_better), ("b", posterior.p_b_better), key=lambda x: x[1]
    )
    note = report.comparisons[0].disagreement
    assert "but the Bayesian correlated t test calls neither model practically better" in note
    assert (
        f"a posterior probability of {posterior.p_equivalent:.4f} on a difference within the "
        f"region of practical equivalence ±0.0100 and {beyond:.4f} on {leader} being better "
        "by more, neither above 0.95" in note
    )
    assert "lies within" not in note
    assert note in " ".join(report.to_markdown().split())


# -- 9. a rank test over too few folds says it cannot reach α ----------------------------------
@pytest.mark.parametrize(("folds", "warned"), [(5, True), (10, False)])
def test_a_rank_test_over_too_few_folds_says_it_cannot_reach_alpha(
    folds: int, warned: bool
) -> None:
    """Was: with 5-fold CV and every fold won by a, "the data do not show a difference
    (p = 0.062)", with nothing saying that no 5 folds could have given p ≤ 0.05."""
    rng = np.random.default_rng(9)
    order = rng.permutation(200)
    rows = [
        (fold + 1, *row)
        for fold in range(folds)
        for row in _errors({"a": 0.05, "b": 0.45}, order[fold::folds], rng)
    ]
    frame = pd.DataFrame(rows, columns=["fold", "model", "record", "error"])
    table = cvreport.ResultsTable.from_formula("error ~ model | fold", frame)
    report = quiet(table, tests=["sign_test", "wilcoxon_kfold"])
    floor = stats.binomtest(folds, folds).pvalue  # every fold on one side
    assert stats.wilcoxon(np.arange(1.0, folds + 1)).pvalue == pytest.approx(floor)
    for outcome in report.outcomes:
        assert outcome.result.pvalue == pytest.approx(floor)  # a won every fold
    sentence = (
        f"with {folds} fold differences other than 0 the smallest p-value the test can give "
        f"is {floor:.4g} (every difference on one side), above α = 0.05"
    )
    markdown = " ".join(report.to_markdown().split())
    assert (sentence in markdown) is warned
    if warned:  # one caveat names both tests
        (caveat,) = [line for line in report.to_markdown().splitlines() if sentence in line]
        names = caveat.split(": with", 1)[0].lower()
        assert "wilcoxon signed-rank test" in names and "sign test over k-fold" in names
        assert caveat.endswith(": it cannot find a difference here, whatever the folds show.")


# -- 10. the HTML footer claims nothing false ---------------------------------------------------
def test_the_footer_does_not_claim_the_report_computes_nothing() -> None:
    """Was: "The report computes no statistic itself: every number comes from the result
    objects of the tests and the audit", under a page of per-model means computed from data."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    page = quiet(table).to_html()
    assert "Per-model" in page and "computes no statistic" not in page
    footer = page.split("<footer>", 1)[1].split("</footer>", 1)[0]
    assert f"Made with cvreport {cvreport.__version__}." in footer
    assert "per-model summaries are computed from the same data" in footer


# -- 11. the LaTeX test table marks the tests the other formats call not recommended ------------
def test_latex_marks_the_tests_that_are_not_recommended() -> None:
    """Was: Markdown and HTML said "(not recommended)" beside the K-fold t, Wilcoxon and sign
    tests; the LaTeX table marked only the recommended test."""
    rng = np.random.default_rng(11)
    order = rng.permutation(300)
    rows = [
        (fold + 1, *row)
        for fold in range(10)
        for row in _errors({"a": 0.1, "b": 0.13}, order[fold::10], rng)
    ]
    frame = pd.DataFrame(rows, columns=["fold", "model", "record", "error"])
    report = quiet(cvreport.ResultsTable.from_formula("error ~ model | fold", frame), tests="all")
    markdown = report.to_markdown()
    flagged = set(re.findall(r"^\| (.+?) \(not recommended\) \|", markdown, re.MULTILINE))
    assert len(flagged) >= 3
    latex = report.to_latex()
    marked = set(re.findall(r"^(.+?)\\textsuperscript\{N\} &", latex, re.MULTILINE))
    assert {name.replace("Alpayd{\\i}n", "Alpaydın") for name in marked} == flagged
    assert "\\textsuperscript{N} not recommended as the deciding test" in latex


# -- 12. a standalone datasets report keeps data-set names whole --------------------------------
def test_a_standalone_datasets_report_keeps_names_whole(tmp_path: Path) -> None:
    """Was: "iris\\_" / "versicolor\\_" / "virginica" on three lines of a 1.9 cm column, on a
    landscape page with room to spare."""
    exe = pdflatex_or_skip()
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    multi = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )
    report = DatasetsReport(multi, baseline="logistic_regression", n_samples=2000)
    pdf = compile_latex(exe, report.to_latex(), tmp_path)
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, check=True, timeout=60
    ).stdout.decode("utf-8")
    table_page = text.split("Table 1", 1)[1].split("average rank", 1)[0]
    words = set(table_page.split())
    names = [str(name) for name in multi.datasets]
    assert max(len(name) for name in names) > 20
    for name in names:
        assert name in words, name


# -- 13. the p-value figure: "p < 0.001", and the off-scale mark clear of the label -------------
def test_the_pvalue_figure_reads_p_below_and_keeps_its_mark_clear(
    browser: Any, tmp_path: Path
) -> None:
    """Was: "p = <0.001" beside the row, and the "<" that marks a p-value below the axis
    drawn over the last letter of the test's name ("... t tes<t")."""
    rng = np.random.default_rng(13)
    rows = []
    for rep in (1, 2):
        order = rng.permutation(300)
        rows += [
            (rep, fold + 1, *row)
            for fold in range(5)
            for row in _errors({"good": 0.02, "bad": 0.35}, order[fold::5], rng)
        ]
    frame = pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "error"])
    table = cvreport.ResultsTable.from_formula("error ~ model | replication + fold", frame)
    report = quiet(table)
    (outcome,) = [o for o in report.outcomes if o.posterior is None]
    floor = 1e-4  # the axis starts at α/10 rounded down to a decade, here 0.0001
    assert outcome.result.pvalue < floor
    page, seen = open_page(browser, report.save(tmp_path / "report.html"))
    try:
        figure = page.locator("svg.cvr-figure", has_text="p-values against")
        texts = figure.locator("text")
        shown = [texts.nth(i).text_content() for i in range(texts.count())]
        assert "p < 0.001" in shown and not any("= <" in (t or "") for t in shown)
        label = figure.locator("text", has_text=outcome.method).bounding_box()
        mark = texts.nth(shown.index("<")).bounding_box()
        assert label and mark
        assert label["x"] + label["width"] <= mark["x"], (label, mark)
        assert not seen["errors"]
    finally:
        page.close()


# -- 14. a resampling test's summary names the metric as DeLong's and the report do -------------
def test_resampling_summaries_name_the_auc_as_the_report_does() -> None:
    """Was: DeLong's summary "AUC of A 0.9056", the paired bootstrap's "roc_auc of A 0.9056"
    for the same two models on the same test set."""
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(14)
    truth = rng.integers(0, 2, 400)
    frames = [
        pd.DataFrame(
            {
                "id": np.arange(truth.size),
                "model": model,
                "y": truth,
                "p": 1 / (1 + np.exp(-(shift * (2 * truth - 1) + rng.normal(0, 1, truth.size)))),
            }
        )
        for model, shift in (("forest", 1.0), ("svm", 0.8))
    ]
    frame = pd.concat(frames)
    table = cvreport.ResultsTable.from_formula("roc_auc(y, p) ~ model", frame, record="id")
    expected = {
        model: roc_auc_score(part["y"], part["p"]) for model, part in frame.groupby("model")
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [
            cvreport.delong_test(table, "forest", "svm"),
            cvreport.paired_bootstrap_test(table, "forest", "svm", n_resamples=999),
            cvreport.paired_permutation_test(table, "forest", "svm", n_resamples=999),
        ]
    for result in results:
        text = str(result.summary())
        for side, model in (("A", "forest"), ("B", "svm")):
            row = re.search(rf"^AUC of {side}\s+([0-9.]+)$", text, re.MULTILINE)
            assert row is not None, text
            assert float(row[1]) == pytest.approx(expected[model], abs=5e-5)
        assert "roc_auc of" not in text


# -- 15. the audit's E X is the one its Z values are measured from ------------------------------
def test_the_audit_summary_prints_the_expected_overlap_its_z_uses() -> None:
    """Was: "expected overlap E X 142.2500" (n/4 for n = 569) above pairs whose Z = |X − E X|
    is measured from 142.7504 (X = 133, Z = 9.7504), so no row of the table added up."""
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    text = str(cvreport.audit_overlap(table).summary())
    expected = float(re.search(r"^expected overlap E X\s+([0-9.]+)$", text, re.MULTILINE)[1])
    pairs = text.split("Training-set overlap X of every pair of replications\n", 1)[1]
    rows = [line.split() for line in pairs.splitlines()[1:] if line.strip()[:1].isdigit()]
    assert len(rows) == 10  # 5 replications: 10 pairs
    for _, _, _, overlap, _, z, _ in rows:
        assert abs(int(overlap) - expected) == pytest.approx(float(z), abs=1e-4)
    z_max = float(re.search(r"^Z_max = max \|X − E X\|\s+([0-9.]+)$", text, re.MULTILINE)[1])
    assert z_max == pytest.approx(max(abs(int(r[3]) - expected) for r in rows), abs=1e-4)


# -- 16. a test that treats clustered records as independent says so ---------------------------
def test_tests_that_ignore_clusters_say_so_beside_the_cluster_robust_one() -> None:
    """Was: with 60 passages of 5 records, McNemar's test (p = 0.012) and the difference of
    proportions test stood beside the cluster-robust test with no word that they count
    every record as independent, which the recommendation itself says understates the error."""
    rng = np.random.default_rng(2)
    rows = []
    for passage in range(60):
        shared = rng.normal(0, 0.1)  # records of a passage succeed or fail together
        for record in range(passage * 5, passage * 5 + 5):
            rows += [
                (model, record, passage, int(rng.random() < rate + shared))
                for model, rate in (("a", 0.15), ("b", 0.2))
            ]
    frame = pd.DataFrame(rows, columns=["model", "record", "passage", "error"])
    sentence = (
        f"the records come in {frame['passage'].nunique()} clusters, but the test treats every "
        "record as independent"
    )
    clustered = quiet(
        cvreport.ResultsTable.from_formula("error ~ model", frame, cluster="passage"), tests="all"
    )
    (caveat,) = [line for line in clustered.to_markdown().splitlines() if sentence in line]
    assert caveat.startswith("- McNemar's test (continuity-corrected) and difference of")
    robust = [o for o in clustered.outcomes if o.recommended]
    assert [o.name for o in robust] == ["clustered_paired_test"]
    assert sentence not in " ".join(robust[0].result.notes)
    plain = quiet(cvreport.ResultsTable.from_formula("error ~ model", frame), tests="all")
    assert "clusters" not in plain.to_markdown()


def _five_fold_scores_a_wins() -> cvreport.ResultsTable:
    """One 5-fold run of scores where A beats B on every fold by about 0.03."""
    rng = np.random.default_rng(1)
    rows = [
        {"replication": 0, "fold": f, "model": m, "score": 0.8 + 0.03 * (m == "A") + e}
        for f in range(5)
        for m, e in zip("AB", rng.normal(0, 0.005, 2))
    ]
    return cvreport.ResultsTable.from_fold_scores(
        pd.DataFrame(rows), score="score", fold="fold", model="model", higher_is_better=True
    )


def test_the_smallest_attainable_p_is_said_once_per_report():
    # the result's own note and the report's note against its α say one thing: once
    table = _five_fold_scores_a_wins()
    report = cvreport.Report(table, tests=["sign_test", "wilcoxon_kfold"])
    floor = f"{2.0 ** (1 - 5):g}"  # five differences of one sign, two-sided
    for text in (report.to_markdown(), report.render("html")):
        assert text.count("smallest p-value") == 1
        assert floor in text


def test_a_resampled_auc_on_one_test_set_is_not_called_a_mean():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 200)
    score_a, score_b = np.clip(truth * 0.3 + rng.random(200) * 0.7, 0, 1), rng.random(200)
    one_set = cvreport.arrays.paired_bootstrap_test(
        truth, score_a, score_b, metric="roc_auc", n_resamples=200
    )
    assert "estimate (AUC A − B)" in str(one_set.summary())
    assert "mean AUC" not in str(one_set.summary())
    # over five folds the estimate is a mean of per-fold AUCs, and says so
    rows = [
        {"replication": 0, "fold": i % 5, "record": i, "model": model, "y": truth[i], "p": s[i]}
        for i in range(200)
        for model, s in (("A", score_a), ("B", score_b))
    ]
    table = cvreport.ResultsTable.from_formula(
        "roc_auc(y, p) ~ model | replication + fold", pd.DataFrame(rows)
    )
    folds = cvreport.paired_bootstrap_test(table, "A", "B", n_resamples=200)
    assert folds.design_kind == "kfold"
    assert "estimate (mean AUC A − B)" in str(folds.summary())


@pytest.mark.parametrize(
    ("function", "differences"),
    [
        ("sign_test", [0.02, -0.01, 0.03, 0.015, 0.04, 0.0]),
        ("wilcoxon_kfold", [0.02, -0.01, 0.03, 0.015, 0.04]),
    ],
)
def test_a_count_or_rank_sum_prints_as_the_whole_number_it_is(function, differences):
    result = getattr(cvreport.arrays, function)(differences)
    assert float(result.statistic).is_integer()
    row = next(line for line in str(result.summary()).splitlines() if line.startswith("statistic"))
    assert row.split()[-1] == str(int(result.statistic))


def test_the_report_prints_a_count_statistic_as_a_whole_number():
    table = _five_fold_scores_a_wins()
    report = cvreport.Report(table, tests=["sign_test"])
    statistic = report.results[0].statistic
    assert float(statistic).is_integer()
    row = next(line for line in report.to_markdown().splitlines() if line.startswith("| Sign test"))
    assert row.split("|")[2].strip() == str(int(statistic))
