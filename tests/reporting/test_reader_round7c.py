"""Round seven (c) of reading cvreport's output as a new user.

Each test reads what a user meets (a report, a warning, a caveat, a CLI answer)
on a scenario a demanding new user tried: replications that repeat one partition,
more than ten models, a score of the wrong class, an FDR correction, one hold-out
split, F tests asked for a one-sided answer, repeated hold-out from the command
line and from ``cvreport.collect``. "Was:" says what the reader met before.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport.rendering.formatting import format_probability
from cvreport.reporting.analyse import CORRECTIONS
from tests._fakes import holdout_split_losses

LOSS_FORMULA = "loss ~ model | replication + fold"


# --------------------------------------------------------------------------
# N21: replications that repeat one partition
# --------------------------------------------------------------------------
def one_kfold_replication(records: int = 300, folds: int = 10, seed: int = 3) -> pd.DataFrame:
    """One K-fold CV of two models' 0/1 losses, model A a little better."""
    rng = np.random.default_rng(seed)
    fold = rng.permutation(np.arange(records) % folds) + 1
    rows = []
    for model, error in (("A", 0.12), ("B", 0.17)):
        loss = (rng.random(records) < error).astype(int)
        rows.append(
            pd.DataFrame(
                {
                    "replication": 1,
                    "fold": fold,
                    "model": model,
                    "record": np.arange(records),
                    "loss": loss,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def copies(one: pd.DataFrame, m: int, *, relabel: bool = False) -> pd.DataFrame:
    """``m`` replications that re-use ``one``'s partition (the folds renamed if ``relabel``)."""
    out = []
    for r in range(1, m + 1):
        part = one.assign(replication=r)
        if relabel:  # the same split, its folds numbered in another order
            part = part.assign(fold=(part["fold"] + r) % part["fold"].max() + 1)
        out.append(part)
    return pd.concat(out, ignore_index=True)


def report_markdown(table: cvreport.ResultsTable, **options) -> tuple[str, list]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = cvreport.Report(table, **options).to_markdown()
    return text, caught


def in_short(markdown: str) -> str:
    start = markdown.index("## In short")
    return markdown[start : markdown.index("\n## ", start + 5)]


def test_ten_copies_of_one_kfold_partition_are_named_and_warned_about():
    table = cvreport.ResultsTable.from_formula(
        LOSS_FORMULA, copies(one_kfold_replication(), 10, relabel=True)
    )
    with pytest.warns(cvreport.RepeatedPartitionWarning, match="Replications 2–10 repeat"):
        audit = cvreport.audit_overlap(table)
    assert audit.repeated_partitions == tuple((r, 1) for r in range(2, 11))
    assert audit.verdict == "poor"
    assert "Replications 2–10 repeat replication 1's partition" in audit.meaning
    assert "one 10-fold cross-validation" in audit.meaning
    # was: "overlap unusually unevenly ... with probability -0.000"
    assert "unevenly" not in audit.meaning
    assert math.copysign(1.0, audit.pvalue) == 1.0


def test_the_in_short_line_says_the_decision_rests_on_repeated_partitions():
    one = one_kfold_replication()
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, copies(one, 10))
    markdown, caught = report_markdown(table)
    assert any(issubclass(w.category, cvreport.RepeatedPartitionWarning) for w in caught)
    short = in_short(markdown)
    assert "The decision rests on repeated partitions" in short
    assert "replications 2–10 repeat replication 1's partition" in short
    assert "-0.000" not in markdown
    # the decision itself is the repeated-CV test's on all 100 folds; the distinct partition
    # alone gives the corrected t of one 10-fold CV (Nadeau & Bengio 2003), by hand:
    single = cvreport.ResultsTable.from_formula(LOSS_FORMULA, one)
    result = cvreport.corrected_repeated_kfold_ttest(single, "A", "B")
    per_fold = one.pivot_table(index="fold", columns="model", values="loss", aggfunc="mean")
    d = (per_fold["A"] - per_fold["B"]).to_numpy()
    t = d.mean() / math.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1))
    assert result.statistic == pytest.approx(t, rel=1e-9)
    assert result.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 9), rel=1e-9)


def test_five_copies_of_one_5x2_replication_are_named():
    example = cvreport.load_example()
    first = example[example["replication"] == 1]
    table = cvreport.ResultsTable.from_formula(
        LOSS_FORMULA, pd.concat([first.assign(replication=r) for r in range(1, 6)])
    )
    markdown, caught = report_markdown(table)
    assert any(issubclass(w.category, cvreport.RepeatedPartitionWarning) for w in caught)
    assert "replications 2–5 repeat replication 1's partition" in in_short(markdown)


def test_distinct_random_partitions_are_not_called_repeats():
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    with warnings.catch_warnings():
        warnings.simplefilter("error", cvreport.RepeatedPartitionWarning)
        audit = cvreport.audit_overlap(table)
    assert audit.repeated_partitions == ()
    assert audit.verdict == "typical"


def test_a_poor_audit_verdict_is_echoed_in_the_in_short_line():
    # replication 2 is replication 1 with 6 records moved: nearly identical, not a repeat
    example = cvreport.load_example()
    first = example[example["replication"] == 1]
    second = first.assign(replication=2)
    moved = second["record"].isin(sorted(second["record"].unique())[:6])
    second.loc[moved, "fold"] = 3 - second.loc[moved, "fold"]
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, pd.concat([first, second]))
    markdown, caught = report_markdown(table)
    audit = cvreport.audit_overlap(table)
    assert audit.verdict == "poor" and audit.repeated_partitions == ()
    assert "overlap audit's verdict on the partitions is poor" in in_short(markdown)
    assert not any(issubclass(w.category, cvreport.RepeatedPartitionWarning) for w in caught)


def test_negative_zero_probability_prints_as_zero():
    assert format_probability(-0.0) == "0.0000"
    assert format_probability(-1e-17) == "0.0000"
    assert not re.search(r"-0\.0+\b", format_probability(-0.0, digits=3))


# --------------------------------------------------------------------------
# N18: more than ten models, one adjusted p per pair
# --------------------------------------------------------------------------
def many_model_scores(models: int = 12, seed: int = 5) -> pd.DataFrame:
    """Per-fold accuracies of ``models`` models on 10×10 CV (true means 0.800 + 0.004 i)."""
    rng = np.random.default_rng(seed)
    rows = []
    for replication in range(1, 11):
        shift = rng.normal(0, 0.01, 10)
        for fold in range(1, 11):
            for i in range(models):
                accuracy = min(1.0, 0.80 + 0.004 * i + shift[fold - 1] + rng.normal(0, 0.012))
                rows.append(
                    {"rep": replication, "fold": fold, "model": f"m{i:02d}", "accuracy": accuracy}
                )
    return pd.DataFrame(rows)


def test_many_models_decide_each_pair_with_the_all_pairs_adjustment():
    table = cvreport.ResultsTable.from_fold_scores(
        many_model_scores(), score="accuracy", replication="rep"
    )
    report = cvreport.Report(table)
    markdown = report.to_markdown()
    frame = report.overview
    assert len(frame) == 66
    # Holm over all 66 pairs, recomputed with statsmodels from the overview's raw p-values
    from statsmodels.stats.multitest import multipletests

    holm = multipletests(frame["pvalue"].to_numpy(), method="holm")[1]
    np.testing.assert_allclose(frame["adjusted"].to_numpy(), holm)
    adjusted = {frozenset((a, b)): p for a, b, p in zip(frame["a"], frame["b"], holm)}
    short = in_short(markdown)
    detailed = [c for c in report.analysis.comparisons]
    assert len(detailed) == 9
    for comparison in detailed:
        outcome = comparison.recommended[0]
        expected = adjusted[frozenset((comparison.a, comparison.b))]
        # was: Holm over the 9 detailed pairs chosen by the data (m11 vs m06: 0.008 vs 0.063)
        assert outcome.adjusted == pytest.approx(expected, rel=1e-12)
        assert outcome.reject == (expected <= 0.05)
        verdict = "Significant" if expected <= 0.05 else "No significant"
        line = next(
            row for row in short.splitlines() if f"**{comparison.a} vs {comparison.b}**" in row
        )
        assert f"{verdict} difference" in line
    assert "after adjusting for 66 comparisons" in markdown
    assert "after adjusting for 9 comparisons" not in markdown
    # was: "(their adjusted p-values are over those pairs only)", "9 pairs of models are compared"
    assert "decided with the adjusted p-values over all 66 pairs" in markdown
    assert "- 66 pairs of models are compared" in markdown
    assert "over those pairs only" not in markdown


def test_many_models_title_counts_every_model_compared():
    table = cvreport.ResultsTable.from_fold_scores(
        many_model_scores(), score="accuracy", replication="rep"
    )
    markdown = cvreport.Report(table).to_markdown()
    # was: "# Comparison of 10 models" and "10 of the table's 12 models compared"
    assert markdown.startswith("# Comparison of 12 models")
    assert "of the table's 12 models compared" not in markdown


# --------------------------------------------------------------------------
# N20: the multiplicity caveat follows the correction
# --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "correction",
    [c for c in CORRECTIONS if c != "none"],
)
def test_the_correction_caveat_says_what_the_correction_controls(correction):
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    markdown = cvreport.Report(table, correction=correction).to_markdown()
    caveat = next(line for line in markdown.splitlines() if "pairs of models are compared" in line)
    if correction.startswith("fdr"):
        # was: "so that the chance of any false alarm stays near α" for Benjamini–Hochberg
        assert "false discovery rate" in caveat
        assert "the chance of at least one false alarm can exceed α" in caveat
        assert "any false alarm among the pairs stays" not in caveat
    else:
        assert "the chance of any false alarm among the pairs stays at most α" in caveat
        assert "false discovery" not in caveat


# --------------------------------------------------------------------------
# N17: one hold-out split compares two trained models, not two algorithms
# --------------------------------------------------------------------------
def holdout_probabilities(records: int = 300, seed: int = 7) -> pd.DataFrame:
    """One test set: the truth and two models' probabilities of class 1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, records)
    rows = []
    for model, noise in (("logreg", 0.8), ("knn", 1.4)):
        logit = (2 * y - 1) * 2.0 + rng.normal(0, noise * 2, records)
        rows.append(
            pd.DataFrame(
                {"clf": model, "idx": np.arange(records), "y": y, "p1": 1 / (1 + np.exp(-logit))}
            )
        )
    return pd.concat(rows, ignore_index=True)


def caveats_of(markdown: str) -> str:
    start = markdown.index("## Caveats")
    return markdown[start : markdown.index("\n## ", start + 5)]


def test_a_holdout_report_speaks_of_two_trained_models():
    table = cvreport.ResultsTable.from_predictions(
        holdout_probabilities(),
        truth="y",
        score="p1",
        metric="roc_auc",
        model="clf",
        record="idx",
        replication=None,
        fold=None,
    )
    caveats = caveats_of(cvreport.Report(table).to_markdown())
    # was: "A significant difference says the two learning algorithms differ ..."
    assert "the two learning algorithms differ" not in caveats
    assert "the two trained models differ on records drawn like this test set" in caveats
    assert "(Dietterich 1998)" in caveats

    # a cross-validation report keeps the sentence about learning algorithms
    cv = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    cv_caveats = caveats_of(cvreport.Report(cv).to_markdown())
    assert "the two learning algorithms differ" in cv_caveats
    assert "trained models" not in cv_caveats


# --------------------------------------------------------------------------
# N15: the range that cannot be ruled out, or nothing
# --------------------------------------------------------------------------
def test_a_non_significant_f_test_says_no_empty_ruled_out_sentence():
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    markdown = cvreport.Report(table).to_markdown()
    assert "data do not show a difference" in markdown
    # was: "A difference of that size cannot be ruled out with these data." (no interval)
    assert "A difference of that size cannot be ruled out" not in markdown
    assert "cannot be ruled out" not in markdown


def test_a_non_significant_test_with_an_interval_names_the_range():
    one = one_kfold_replication(seed=2)
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, one)
    result = cvreport.corrected_repeated_kfold_ttest(table, "A", "B")
    assert result.pvalue > 0.05
    # the corrected t interval by hand (Nadeau & Bengio 2003): mean ± t(0.975, 9) · SE
    per_fold = one.pivot_table(index="fold", columns="model", values="loss", aggfunc="mean")
    d = (per_fold["A"] - per_fold["B"]).to_numpy()
    half = stats.t.ppf(0.975, 9) * math.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1))
    low, high = d.mean() - half, d.mean() + half
    assert low < 0 < high
    markdown = cvreport.Report(table).to_markdown()
    sentence = next(
        line
        for line in markdown.splitlines()
        if line.startswith("- Corrected") and "the data do not show a difference" in line
    )
    assert f"{low:.4f}, {high:.4f}\\]" in sentence  # Markdown escapes the brackets
    assert "any difference inside it cannot be ruled out with these data" in sentence
    assert "A difference of that size" not in sentence


# --------------------------------------------------------------------------
# N16: a two-sided test says why it refuses alternative= and what to use instead
# --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "function", [cvreport.combined_ftest_5x2cv, cvreport.calibrated_ftest_5x2cv]
)
def test_the_f_tests_say_they_are_two_sided_and_name_a_one_sided_test(function):
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    with pytest.raises(cvreport.ArgumentError) as caught:
        function(table, "logistic_regression", "decision_tree", alternative="less")
    message = str(caught.value)
    # was: "... has no option 'alternative'. Its options are: table, a, b, data"
    assert "two-sided by construction" in message
    assert "squared differences" in message
    assert "corrected_repeated_kfold_ttest" in message
    # the named test does take a one-sided alternative on this 5×2 table; by hand, its
    # one-sided p is half the two-sided one when the difference lies on the asked side
    one = cvreport.corrected_repeated_kfold_ttest(
        table, "logistic_regression", "decision_tree", alternative="less"
    )
    two = cvreport.corrected_repeated_kfold_ttest(table, "logistic_regression", "decision_tree")
    assert two.statistic < 0
    assert one.pvalue == pytest.approx(stats.t.cdf(two.statistic, two.df), rel=1e-9)
    assert one.pvalue == pytest.approx(two.pvalue / 2, rel=1e-9)


def test_mcnemar_says_why_it_is_two_sided():
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    with pytest.raises(cvreport.ArgumentError, match="two-sided by construction"):
        cvreport.mcnemar_5x2bcv(table, "logistic_regression", "decision_tree", alternative="less")


# --------------------------------------------------------------------------
# N22: a score of the wrong class
# --------------------------------------------------------------------------
def holdout_table(frame: pd.DataFrame, score: str, metric: str = "roc_auc", **options):
    return cvreport.ResultsTable.from_predictions(
        frame,
        truth="y",
        score=score,
        metric=metric,
        model="clf",
        record="idx",
        replication=None,
        fold=None,
        **options,
    )


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_a_score_of_the_other_class_is_warned_about(metric):
    from sklearn.metrics import roc_auc_score

    frame = holdout_probabilities().assign(p0=lambda d: 1 - d["p1"])  # predict_proba[:, 0]
    with pytest.warns(cvreport.ReversedScoreWarning) as caught:
        table = holdout_table(frame, "p0", metric)
    message = str(caught[0].message)
    for model, rows in frame.groupby("clf"):
        auc = roc_auc_score(rows["y"], rows["p0"])  # what the wrong column gives
        assert auc < 0.3
        assert f"{model} {auc:.4f}" in message
    assert "column 'p0' looks like the probability of class 0" in message
    assert "positive class 1" in message and "pos_label=0" in message
    markdown = cvreport.Report(table).to_markdown()
    # was: no word; "knn has the higher AUC" presented as a finding
    assert "looks like the probability of class 0" in caveats_of(markdown)
    assert "ranks the records backwards" in in_short(markdown)


def test_the_right_score_or_the_right_positive_class_passes_quietly():
    frame = holdout_probabilities().assign(p0=lambda d: 1 - d["p1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", cvreport.ReversedScoreWarning)
        right = holdout_table(frame, "p1")
        holdout_table(frame, "p0", pos_label=0)
    assert "backwards" not in cvreport.Report(right).to_markdown()


# --------------------------------------------------------------------------
# N8 (addenda): repeated hold-out training sizes from the command line and from collect
# --------------------------------------------------------------------------
def corrected_resampled_t_by_hand(frame: pd.DataFrame, ratio: float) -> tuple[float, float]:
    """Nadeau & Bengio's (2003) corrected resampled t on the per-split mean differences."""
    means = frame.pivot_table(index="replication", columns="model", values="loss", aggfunc="mean")
    d = (means["A"] - means["B"]).to_numpy()
    t = d.mean() / math.sqrt((1 / len(d) + ratio) * d.var(ddof=1))
    return t, 2 * stats.t.sf(abs(t), len(d) - 1)


def test_the_command_line_takes_the_test_train_ratio_of_a_repeated_holdout_table(tmp_path, capsys):
    from cvreport.cli import main

    frame = holdout_split_losses(records=300, validated=30, rates=(0.10, 0.16), seed=9)
    data = tmp_path / "holdout.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "r.md"
    ratio = 30 / 270  # every model was trained on the other 270 of the 300 records
    status = main(
        ["report", str(data), "-f", LOSS_FORMULA, "-o", str(out), "--test-train-ratio", str(ratio)]
    )
    stderr = capsys.readouterr().err
    # was: "--test-train-ratio applies to per-fold scores (--per-fold); per-record tables
    # know their fold sizes"
    assert status == 0, stderr
    t, p = corrected_resampled_t_by_hand(frame, ratio)
    text = out.read_text(encoding="utf-8")
    assert f"| {t:.4f} | 9 | {p:.3f} |" in text
    assert f"n2/n1 = {ratio:.6g}, as given" in text


def test_collect_records_the_training_sizes_of_shufflesplit():
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import ShuffleSplit
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    table = cvreport.collect(models, X, y, cv=ShuffleSplit(10, test_size=0.1, random_state=0))
    # was: "n = 382 records" and n2/n1 = 570 / 3250 = 0.175, inferred from the validated records
    assert "n = 569 records" in table.design.describe()
    sizes = table.train_sizes()
    assert (sizes["n_train"] == 512).all() and (sizes["n_test"] == 57).all()
    result = cvreport.corrected_resampled_ttest(table, "nb", "tree")
    errors = table.fold_errors()
    frame = errors.replace({"model": {"nb": "A", "tree": "B"}})
    t, p = corrected_resampled_t_by_hand(frame, 570 / 5120)
    assert result.statistic == pytest.approx(t, rel=1e-9)
    assert result.pvalue == pytest.approx(p, rel=1e-9)
    assert "from the training sets collect fitted" in " ".join(result.notes)


# --------------------------------------------------------------------------
# C2, C3, C4: the Bayesian table's width, LaTeX captions, Z_max in running text
# --------------------------------------------------------------------------
def example_report(**options) -> cvreport.Report:
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cvreport.Report(table, **options)


def test_z_max_is_set_as_in_the_tables_in_running_text():
    report = example_report(tests="all")
    html = report.to_html()
    latex = report.to_latex()
    z_max = cvreport.audit_overlap(report.table).z_max
    # was: "(Z_max = 9.7504; ..." beside Z<sub>max</sub> in the table (HTML), and
    # "Z\_max" beside $Z_{\max}$ (LaTeX)
    assert f"(Z<sub>max</sub> = {z_max:.4f};" in html
    assert "Z_max" not in html
    assert f"($Z_{{\\max}}$ = {z_max:.4f};" in latex
    assert "Z\\_max" not in latex


def test_latex_captions_above_tables_stand_clear_of_the_top_rule():
    latex = example_report(tests="all").to_latex()
    tables = re.findall(r"\\begin\{table\}.*?\\end\{table\}", latex, flags=re.S)
    captioned = [t for t in tables if re.search(r"\\caption\{.*?\\toprule", t, flags=re.S)]
    assert len(captioned) >= 3
    for table in captioned:
        # was: \caption{...} directly on \toprule (booktabs' \abovetopsep is 0 by default)
        assert re.search(r"\\setlength\{\\abovetopsep\}\{[^}]+\}.*?\\toprule", table, re.S)


def test_the_bayesian_posterior_table_has_short_headers():
    html = example_report(tests="all").to_html()
    table = re.search(r'<table class="cvr-table cvr-bayes".*?</table>', html, flags=re.S)[0]
    header = re.search(r"<thead>.*?</thead>", table, flags=re.S)[0]
    # was: "Region of practical equivalence ± (error rate)" pushed the table past 1152 px
    assert "Region of practical equivalence" not in header
    assert '<abbr title="region of practical equivalence">ROPE</abbr> ±' in header
    assert "table.cvr-bayes thead th { white-space: normal" in html
