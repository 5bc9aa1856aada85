"""Round seven (b) of reading cvreport as a new user: the text around the tests.

Each test reads what a user reads (a plan, a report, a notebook, an error, the
README) on a scenario where the earlier text said more than the numbers
support: McNemar's test crowned beside algorithm comparisons, the records of a
repeated hold-out table shown as the data set's size, unpaired effect sizes
over data sets, the overlap audit of K-fold replications, an error that did
not say how to read one hold-out set. "Was:" says what the reader met before.
The numbers the text must carry are recomputed here (numpy, scipy), never
copied from the output.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import cvreport
import cvreport.errors
import cvreport.jupyter.notebook
import cvreport.multi.effect_sizes
from tests._fakes import holdout_split_losses

LOSS_FORMULA = "loss ~ model | replication + fold"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def kfold_losses(
    *, records: int = 300, folds: int = 10, replications: int = 10, seed: int = 5
) -> pd.DataFrame:
    """0/1 losses of models A and B on ``replications`` × ``folds`` CV of ``records`` records.

    Columns ``replication, fold, model, record, loss``; B errs about 2 points more often.
    """
    rng = np.random.default_rng(seed)
    hard = rng.random(records)
    frames = []
    for replication in range(1, replications + 1):
        fold = rng.permutation(np.arange(records) % folds) + 1
        for model, shift in (("A", 0.0), ("B", 0.02)):
            loss = (rng.random(records) < np.clip(hard * 0.2 + shift, 0, 1)).astype(int)
            frames.append(
                pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": fold,
                        "model": model,
                        "record": np.arange(records),
                        "loss": loss,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------------------
# N4: the plan crowned McNemar's test on a hold-out set larger than the data set
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_effect_plan():
    frame = kfold_losses()
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, frame, record="record")
    return cvreport.plan(table, "A", "B", effect=0.01), frame.record.nunique()


def test_a_plan_crowning_mcnemar_says_it_answers_another_question(small_effect_plan):
    """Was: "McNemar's test (continuity-corrected) on hold-out set of 2917 records reaches
    the power." as the whole headline, beside corrected t tests limited by the common
    component, for a data set of 569 records."""
    res, records = small_effect_plan
    best = res.best
    assert best.test == "mcnemar"  # no cross-validated design reaches 0.8 for 0.01
    algorithms = [r for r in res.recommendations if r.test != "mcnemar"]
    assert algorithms and all(r.design is None or not r.holds_level for r in algorithms)
    size = best.design.n_validation
    assert size > records
    headline = _one_line(res.summary().interpretation)
    assert not headline.startswith(f"{best.label} on {best.design.label} reaches the power.")
    assert headline.startswith(
        "No cross-validated design reaches the wanted power for comparing the algorithms"
    )
    assert "answers another question" in headline
    assert "trained once, differ on that test set" in headline
    assert "not whether algorithm A beats B" in headline
    assert f"its type I error of {best.type_i_error:.3f} holds under that model only" in headline
    assert f"It needs {size} new records, more than the pilot's data set holds ({records})" in (
        headline
    )
    # the rows say what each kind of test compares, and Dietterich is cited for it
    text = _one_line(res.summary().as_text())
    assert "the CV tests compare the algorithms (training sets vary)" in text
    assert "McNemar's test compares 2 models trained once, on 1 test set" in text
    assert any(r.startswith("Dietterich, T. G. (1998)") for r in res.references())
    note = _one_line(best.note)
    assert "not whether algorithm A beats B when trained again" in note
    assert {r.compares for r in res.recommendations} == {"algorithms", "trained models"}


def test_a_cheaper_mcnemar_beside_a_cv_choice_is_said_to_answer_another_question():
    """Was: "... reaches it with one model trained per algorithm, but on a new hold-out set of
    273 records set aside from training; it is the choice only when no cross-validated
    design reaches the power." — as if the two answered one question."""
    pilot = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    res = cvreport.plan(pilot, "logistic_regression", "decision_tree", effect=0.05)
    assert res.best.compares == "algorithms"
    mcnemar = next(r for r in res.recommendations if r.test == "mcnemar")
    assert mcnemar.design.trainings < res.best.design.trainings
    headline = _one_line(res.summary().interpretation)
    sentence = headline.split(f"{mcnemar.label} reaches it", 1)[1]
    assert mcnemar.design.label in sentence
    assert "answers another question" in sentence
    assert "not whether the algorithms differ" in sentence
    assert mcnemar.design.n_validation < res.n_records  # so no "more records" sentence
    assert "more than the pilot's data set holds" not in headline


# --------------------------------------------------------------------------------------
# N8: the records of repeated hold-out splits were shown as the data set's size
# --------------------------------------------------------------------------------------


def _row(markdown: str, name: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith(f"| {name} |"))


def test_repeated_hold_out_records_are_said_to_be_those_validated_not_the_data_set():
    """Was: "Design | repeated hold-out validation (J = 10 splits, n = 379 records, ...)" and
    "Records | 379" for a data set of 569, from which n2/n1 was then inferred."""
    frame = holdout_split_losses()
    union = frame.record.nunique()
    assert union < 200  # ten splits of 10 % leave records no split validated
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, frame, record="record")
    text = cvreport.Report(table, tests=["corrected_resampled_ttest"]).to_markdown()
    design = _row(text, "Design")
    assert f"{union} records validated" in design
    assert f"n = {union} records" not in design
    assert "the data set's size is not in the table" in design
    assert f"{union} records validated" in text.splitlines()[2]  # the line under the title
    records = _row(text, "Records")
    assert records.startswith(f"| Records | {union} validated by some split;")
    assert "the data set's size is not in the table" in records
    assert "test\\_train\\_ratio=" in records and "--test-train-ratio" in records
    # the numbers stay as they are: n2/n1 is still inferred from the validated records
    sizes = frame[frame.model == "A"].groupby("replication").size()
    inferred = sizes.sum() / (union - sizes).sum()
    result = cvreport.corrected_resampled_ttest(table, "A", "B")
    assert f"n2/n1 = {inferred:.6g}" in " ".join(result.notes)


def test_a_given_ratio_is_named_beside_the_validated_records():
    frame = holdout_split_losses()
    ratio = 20 / 180
    table = cvreport.ResultsTable.from_formula(
        LOSS_FORMULA, frame, record="record", test_train_ratio=ratio
    )
    records = _row(cvreport.Report(table).to_markdown(), "Records")
    assert f"(n2/n1 = {ratio:.6g}, as given)" in records
    assert "--test-train-ratio" not in records
    # K-fold and hold-out tables keep their plain row: their records are the data set
    kfold = cvreport.ResultsTable.from_formula(LOSS_FORMULA, kfold_losses(), record="record")
    assert _row(cvreport.Report(kfold).to_markdown(), "Records") == "| Records | 300 |"


# --------------------------------------------------------------------------------------
# N11: unpaired effect sizes over data sets called a 10-of-10 win "small"
# --------------------------------------------------------------------------------------


def _paired_d_by_hand(differences: np.ndarray, alpha: float = 0.05) -> tuple[float, ...]:
    """d_z and its interval: the noncentral t's λ at which t is each tail's quantile."""
    n = differences.size
    d_z = differences.mean() / differences.std(ddof=1)
    t = d_z * np.sqrt(n)
    bounds = [
        optimize.brentq(lambda lam, level=level: stats.nct.cdf(t, n - 1, lam) - level, t - 8, t + 8)
        / np.sqrt(n)
        for level in (1 - alpha / 2, alpha / 2)
    ]
    return d_z, *bounds


def test_the_many_data_sets_report_gives_the_paired_effect_size_beside_the_unpaired():
    """Was: "| logistic_regression | decision_tree | -0.40 [-1.29, 0.48] small | ..." beside
    a Wilcoxon R+ = 0 over 10 data sets: the unpaired g, with nothing saying it ignores that
    both models ran on the same data sets."""
    frame = cvreport.load_example("multi")
    table = cvreport.DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", frame
    )
    report = cvreport.DatasetsReport(table, baseline="logistic_regression")
    # each data set's error rate: the mean over its folds, recomputed from the records
    means = (
        frame.groupby(["dataset", "replication", "fold", "model"])["loss"]
        .mean()
        .groupby(["dataset", "model"])
        .mean()
        .unstack()
    )
    differences = (means["logistic_regression"] - means["decision_tree"]).to_numpy()
    assert (differences < 0).all() and differences.size == 10  # better on every data set
    d_z, low, high = _paired_d_by_hand(differences)
    assert d_z == pytest.approx(-1.96, abs=0.005)  # the reviewer's figure
    assert high < 0  # the paired interval excludes 0 where g's did not
    g = report.analysis.effect_sizes.set_index("b").loc["decision_tree"]
    assert g.g_low < 0 < g.g_high and g.g_magnitude == "small"
    assert (g.d_z, g.dz_low, g.dz_high) == pytest.approx((d_z, low, high), abs=1e-9)
    assert cvreport.multi.effect_sizes.paired_d(
        means["logistic_regression"], means["decision_tree"]
    ) == pytest.approx((d_z, low, high), abs=1e-9)
    markdown = report.to_markdown()
    row = next(
        line
        for line in markdown.splitlines()
        if line.startswith("| logistic\\_regression | decision\\_tree | -0.40 [")
    )
    assert f"| {d_z:.2f} [{low:.2f}, {high:.2f}] large |" in row
    assert "paired d_z [interval] magnitude" in markdown
    said = _one_line(markdown.split("### Effect sizes across data sets", 1)[1].split("|")[0])
    assert "ignore that both models ran on the same data sets" in said
    assert "The paired d\\_z keeps the pairing" in said
    html = report.to_html()
    assert f"{d_z:.2f} [{low:.2f}, {high:.2f}] large" in html
    assert "Lakens, D. (2013)" in markdown


def test_the_paired_effect_size_of_twin_models_is_said_in_words():
    scores = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.1, 0.2, 0.3], "C": [0.2, 0.3, 0.4]})
    frame = cvreport.multi.effect_sizes.pairwise_effect_sizes(scores, [("A", "B"), ("A", "C")])
    assert np.isnan(frame.d_z.iloc[0]) and frame.d_z.iloc[1] == -np.inf
    assert np.isnan(frame[["dz_low", "dz_high"]].to_numpy()).all()
    # the report's cell says why there is no number, never "nan [nan, nan]"
    from cvreport.reporting.multi_view import _paired_text

    cells = [
        _paired_text(row.d_z, row.dz_low, row.dz_high, row.dz_magnitude)
        for row in frame.itertuples()
    ]
    assert cells == [
        "undefined (no difference on any data set)",
        "undefined (the same difference on every data set)",
    ]
    with pytest.raises(cvreport.errors.CVReportError, match="one score of each model per"):
        cvreport.multi.effect_sizes.paired_d([0.1, 0.2, 0.3], [0.1, 0.2])


# --------------------------------------------------------------------------------------
# N13, N5: the overlap audit of K-fold replications, and the notebook's text about it
# --------------------------------------------------------------------------------------


def _folds(frame: pd.DataFrame) -> pd.DataFrame:
    """Each record's fold in each replication (records × replications)."""
    one = frame[frame.model == "A"]
    return one.pivot(index="record", columns="replication", values="fold")


def test_the_kfold_audit_says_its_x_is_the_most_deviant_of_k_squared_training_set_pairs():
    """Was: "Training-set overlap of the 10 pairs of replications with the largest Z" with
    columns "X | E X | Z = |X − E X|" and no word that X is one of K² = 100 overlaps, nor why
    E X is 460.71 in one row and 461.61 in the next."""
    records, folds = 103, 10  # folds of 10 and 11 records
    frame = kfold_losses(records=records, folds=folds, replications=3)
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, frame, record="record")
    audit = cvreport.audit_overlap(table)
    # recompute every row from the fold assignment: the worst of the K² training-set pairs
    assignment = _folds(frame)
    for row in audit.pairs.itertuples():
        fi, fj = assignment[row.replication_a], assignment[row.replication_b]
        worst = None
        for a in range(1, folds + 1):
            for b in range(1, folds + 1):
                x = int(((fi != a) & (fj != b)).sum())
                expected = (records - (fi == a).sum()) * (records - (fj == b).sum()) / records
                if worst is None or abs(x - expected) > worst[2] + 1e-9:
                    worst = (x, expected, abs(x - expected))
        assert (row.overlap, row.expected, row.z) == pytest.approx(worst)
    legend = _one_line(audit.pair_legend)
    assert f"K² = {folds * folds} pairs of training sets" in legend
    assert f"Z = |X − E X| is the largest of the {folds * folds} deviations" in legend
    assert "E X = (n − a)(n − b)/n" in legend
    assert "folds of 10–11 records" in legend  # why E X differs between rows
    assert audit.pairs.expected.nunique() > 1
    assert "20,000 random partitions" in legend
    assert legend in _one_line(str(audit.summary()))
    report = cvreport.Report(table)
    markdown = _one_line(report.to_markdown())
    assert legend.replace("|", "\\|") in markdown
    assert legend in _one_line(report.to_html().replace("&#39;", "'"))


def test_an_mx2_audit_keeps_its_one_overlap_per_pair_without_the_kfold_legend():
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, cvreport.load_example())
    audit = cvreport.audit_overlap(table)
    assert audit.K == 2 and audit.pair_legend == ""
    assert "K² =" not in cvreport.Report(table).to_markdown()


def test_the_notebooks_audit_text_follows_the_design(tmp_path):
    """Was: "Random partitions make them share more or fewer records than the n/4 that
    balanced and block-regularized designs keep" above the audit of 10-fold replications,
    whose training sets share about n(9/10)² records, not n/4."""
    import nbformat

    frame = kfold_losses(records=300, folds=10, replications=3)
    data = tmp_path / "kfold.csv"
    frame.to_csv(data, index=False)
    out = cvreport.jupyter.notebook.write(tmp_path / "kfold.ipynb", data=data, formula=LOSS_FORMULA)
    cells = {c.id: c.source for c in nbformat.read(out, as_version=4).cells}
    text = _one_line(cells["audit-intro"])
    assert "n/4" not in text
    assert f"n((K − 1)/K)² = {300 * 0.81:.2f} of the n = 300 records" in text
    assert "K² = 100 pairs" in text
    # m×2 data keep the n/4 of halves, with this data's n
    example = cvreport.jupyter.notebook.write(tmp_path / "mx2.ipynb", data="example")
    cells = {c.id: c.source for c in nbformat.read(example, as_version=4).cells}
    n = cvreport.load_example().record.nunique()
    assert f"share n/4 = {n / 4:g} records on average" in _one_line(cells["audit-intro"])


# --------------------------------------------------------------------------------------
# N2: README's test table; N6: the error for one hold-out set of predictions
# --------------------------------------------------------------------------------------

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_design_rows() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    table = text.split("| design | tests |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:] if line.startswith("|")]
    return {design.strip(): tests for design, tests in rows}


def _listed(cell: str) -> list[tuple[str, dict[str, str]]]:
    """The tests of a README cell: each name in backticks, with the options it is given."""
    listed = []
    for code in re.findall(r"`([^`]+)`", cell):
        name, _, arguments = code.partition("(")
        options = dict(re.findall(r'(\w+)="([^"]+)"', arguments))
        listed.append((name, options))
    return listed


def test_every_test_the_readme_lists_for_a_design_runs_on_it():
    """Was: "K-fold and repeated K-fold | paired_ttest_kfold, wilcoxon_kfold, sign_test, ...,
    mcnemar_kfold, cv_confidence_interval, ..." — five of which refuse repeated K-fold."""
    d = holdout_split_losses()
    tables = {
        "K-fold (one run)": [kfold_losses(replications=1, folds=5)],
        "K-fold and repeated K-fold": [
            kfold_losses(replications=1, folds=5),
            kfold_losses(replications=3, folds=5),
        ],
        "one hold-out set": [d[d.replication == 1]],
        "repeated hold-out": [d],
    }
    rows = _readme_design_rows()
    assert set(tables) <= set(rows)
    for design, frames in tables.items():
        listed = _listed(rows[design])
        assert listed, design
        for frame in frames:
            formula = (
                "loss ~ model"
                if frame.replication.nunique() == 1 and (frame.fold.nunique() == 1)
                else LOSS_FORMULA
            )
            table = cvreport.ResultsTable.from_formula(formula, frame, record="record")
            for name, options in listed:
                result = getattr(cvreport, name)(table, "A", "B", **options)
                assert 0 <= result.pvalue <= 1, (design, name)
    # the row that says it refuses repeated K-fold is right about each of its tests
    repeated = cvreport.ResultsTable.from_formula(
        LOSS_FORMULA, kfold_losses(replications=3, folds=5), record="record"
    )
    assert "refuse repeated K-fold" in rows["K-fold and repeated K-fold"]
    for name, options in _listed(rows["K-fold (one run)"]):
        with pytest.raises(cvreport.errors.DesignError):
            getattr(cvreport, name)(repeated, "A", "B", **options)


def test_predictions_of_one_hold_out_set_are_told_to_pass_replication_none_fold_none():
    """Was: "missing replication column 'replication', fold column 'fold'; ... Name the columns
    with ... replication=, fold= and record=." for one test set, where from_formula("y ~ clf")
    needs no such columns."""
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60)
    frame = pd.concat(
        [
            pd.DataFrame({"clf": model, "idx": np.arange(60), "y": truth, "p1": rng.random(60)})
            for model in ("logreg", "knn")
        ]
    )
    with pytest.raises(cvreport.errors.DataError) as raised:
        cvreport.ResultsTable.from_predictions(
            frame, truth="y", score="p1", metric="roc_auc", model="clf", record="idx"
        )
    assert "for one hold-out set pass replication=None, fold=None" in str(raised.value)
    table = cvreport.ResultsTable.from_predictions(
        frame,
        truth="y",
        score="p1",
        metric="roc_auc",
        model="clf",
        record="idx",
        replication=None,
        fold=None,
    )
    assert table.design.kind == "holdout"


def test_the_command_line_takes_the_ratio_the_report_asks_for_on_repeated_hold_out(
    tmp_path, capsys
):
    """Was: "cvreport: error: --test-train-ratio applies to per-fold scores (--per-fold);
    per-record tables know their fold sizes" for the repeated hold-out table whose report
    asks for the ratio because its training sizes were inferred."""
    from cvreport.cli import main

    frame = holdout_split_losses()
    data = tmp_path / "splits.csv"
    frame.to_csv(data, index=False)
    out = tmp_path / "splits.md"
    ratio = 20 / 180
    arguments = ["report", str(data), "-f", LOSS_FORMULA, "--record", "record", "-o", str(out)]
    assert main([*arguments, "--test-train-ratio", f"{ratio:.6g}"]) == 0
    capsys.readouterr()
    given = cvreport.ResultsTable.from_formula(
        LOSS_FORMULA, frame, record="record", test_train_ratio=float(f"{ratio:.6g}")
    )
    expected = cvreport.corrected_resampled_ttest(given, "A", "B")
    text = out.read_text(encoding="utf-8")
    assert f"| {expected.statistic:.4f} | {expected.df:g} |" in text
    assert "as given)" in _row(text, "Records")
    # a K-fold per-record table takes it as the API does: the same number on both routes
    kfold = tmp_path / "kfold.csv"
    kfold_frame = kfold_losses(replications=2, folds=5)
    kfold_frame.to_csv(kfold, index=False)
    status = main(
        ["report", str(kfold), "-f", LOSS_FORMULA, "--record", "record", "-o",
         str(tmp_path / "k.md"), "--test-train-ratio", "0.25"]
    )  # fmt: skip
    assert status == 0
    api = cvreport.corrected_repeated_kfold_ttest(
        cvreport.ResultsTable.from_formula(
            LOSS_FORMULA, kfold_frame, record="record", test_train_ratio=0.25
        ),
        "A",
        "B",
    )
    assert f"| {api.statistic:.4f} |" in (tmp_path / "k.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------
# N21 (the audit's part): copies of one partition were called "unusually uneven"
# --------------------------------------------------------------------------------------


def test_replications_that_repeat_one_partition_are_named_as_copies():
    """Was: ten copies of one 10-fold partition: "The training sets of different replications
    overlap unusually unevenly (Z_max = 51.2900; random partitioning gives a Z_max at least
    this large with probability -0.000)"."""
    one = kfold_losses(records=200, folds=10, replications=1)
    copies = pd.concat([one.assign(replication=r) for r in (1, 2, 3)])
    # replication 3 relabels the folds: still the same partition
    copies.loc[copies.replication == 3, "fold"] = 11 - copies.loc[copies.replication == 3, "fold"]
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, copies, record="record")
    with pytest.warns(cvreport.RepeatedPartitionWarning):
        audit = cvreport.audit_overlap(table)
    # every pair shares its whole training sets: X = n − fold size, far from n(9/10)²
    assert (audit.pairs.overlap == 200 - 20).all()
    assert audit.pvalue == 0.0 and str(audit.pvalue) == "0.0"  # not -0.0
    meaning = _one_line(audit.meaning)
    assert "Replications 2–3 repeat replication 1's partition" in meaning
    assert "holds 1 distinct partition of the records, not 3" in meaning
    assert "-0.000" not in str(audit.summary()) and "unusually unevenly" not in meaning
    # halves of an m×2 design swapped are the same partition too; the others stay random
    example = cvreport.load_example()
    first = example[example.replication == 1]
    swapped = first.assign(replication=2, fold=3 - first.fold)
    rest = example[example.replication >= 3]
    with pytest.warns(cvreport.RepeatedPartitionWarning):
        audit = cvreport.audit_overlap(
            cvreport.ResultsTable.from_formula(LOSS_FORMULA, pd.concat([first, swapped, rest]))
        )
    meaning = _one_line(audit.meaning)
    assert "Replication 2 repeats replication 1's partition" in meaning
    assert "holds 4 distinct partitions of the records, not 5" in meaning
    # distinct random partitions keep the audit's usual sentence
    assert (
        "repeat"
        not in cvreport.audit_overlap(
            cvreport.ResultsTable.from_formula(LOSS_FORMULA, example)
        ).meaning
    )


def test_the_docs_name_the_distribution_the_clustered_test_uses():
    """Was: docs/methods.md's table said t(G − 1) where the section and the code use N(0, 1):
    with 29 clusters p = 0.317 (normal) against 0.326 (t(28))."""
    rng = np.random.default_rng(4)
    rows = []
    for cluster in range(29):
        shared = rng.normal(0, 0.1)
        for record in range(cluster * 6, cluster * 6 + 6):
            rows += [
                (model, record, cluster, int(rng.random() < rate + shared))
                for model, rate in (("A", 0.15), ("B", 0.2))
            ]
    frame = pd.DataFrame(rows, columns=["model", "record", "cluster", "error"])
    table = cvreport.ResultsTable.from_formula("error ~ model", frame, cluster="cluster")
    result = cvreport.clustered_paired_test(table, "A", "B")
    z = result.statistic
    assert result.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    assert result.pvalue != pytest.approx(2 * stats.t.sf(abs(z), 28), rel=1e-6)
    docs = (README.parent / "docs" / "methods.md").read_text(encoding="utf-8")
    row = next(line for line in docs.splitlines() if line.startswith("| `clustered_paired_test`"))
    assert "| N(0, 1) |" in row and "t(G − 1)" not in row


def test_a_pair_whose_effect_sizes_point_opposite_ways_says_so_under_favours():
    """Was: "| logreg | knn | 0.45 [...] small | -0.33 [...] medium | knn |": g says knn, Cliff's
    δ says logreg, and "favours" named one side without a word."""
    means = {"A": [0.60, 0.10, 0.20, 0.30], "B": [0.30, 0.15, 0.25, 0.35]}  # error rates
    rows = [
        (f"d{i}", 1, fold, model, values[i] + shift)
        for model, values in means.items()
        for i in range(4)
        for fold, shift in ((1, 0.01), (2, -0.01), (3, 0.0))
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "replication", "fold", "model", "error"])
    table = cvreport.DatasetsTable.from_formula(
        "error ~ model | replication + fold | dataset", frame, per_fold=True, direction="lower"
    )
    a, b = np.array(means["A"]), np.array(means["B"])
    assert (a - b).mean() > 0  # the means favour B (lower error) ...
    wins = sum(np.sign(x - y) for x in a for y in b)
    assert wins < 0  # ... while over pairs of data sets A is more often lower: δ < 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markdown = cvreport.DatasetsReport(table).to_markdown()
    section = markdown.split("### Effect sizes across data sets", 1)[1]
    header, row = [line for line in section.splitlines() if line.startswith("| A | B |")][:2]
    assert header.endswith("| favours |")
    assert row.endswith("| B by the means (g, d\\_z); A by Cliff's δ |")
    assert f"{wins / 16:.2f} [" in row


def test_a_repeated_hold_out_pilot_says_its_records_are_those_validated():
    frame = holdout_split_losses()
    union = frame.record.nunique()
    table = cvreport.ResultsTable.from_formula(LOSS_FORMULA, frame, record="record")
    res = cvreport.plan(table, "A", "B", effect=0.05)
    notes = _one_line(str(res.summary()))
    assert "n counts the records some split validated" in notes
    sizes = frame[frame.model == "A"].groupby("replication").size()
    inferred = sizes.sum() / (union - sizes).sum()
    assert res.components.test_train_ratio == pytest.approx(inferred)
    assert f"n2/n1 = {inferred:.4g} was inferred from the {union} records they validated" in (notes)
    mcnemar = next(r for r in res.recommendations if r.test == "mcnemar")
    assert mcnemar.design.n_validation > union
    assert f"more records than the pilot's splits validated ({union})" in mcnemar.note
    assert f"more than the pilot's splits validated ({union})" in _one_line(
        res.summary().interpretation
    )
    given = cvreport.ResultsTable.from_formula(
        LOSS_FORMULA, frame, record="record", test_train_ratio=20 / 180
    )
    assert "was inferred from" not in cvreport.plan(given, "A", "B", effect=0.05).limits


def test_the_readme_names_every_test_that_is_one_sided_by_default():
    """Was: "A test with a one-sided form takes alternative="greater" ... or "less"", read
    as two-sided by default, while the CV interval and the one-model tests are one-sided."""
    import inspect

    from cvreport.methods.registry import SPECS

    one_sided = sorted(
        spec.name
        for spec in SPECS
        if hasattr(cvreport, spec.name)
        and inspect.signature(getattr(cvreport, spec.name)).parameters.get("alternative")
        is not None
        and inspect.signature(getattr(cvreport, spec.name)).parameters["alternative"].default
        != "two-sided"
    )
    assert one_sided  # the CV interval and the one-model tests
    text = _one_line(README.read_text(encoding="utf-8"))
    said = text.split("Every test is two-sided unless told otherwise, except", 1)[1][:400]
    for name in one_sided:
        assert f"`{name}`" in said, name


def test_one_comparison_per_data_set_is_not_said_to_be_adjusted():
    """Was: "p-values of a data set adjusted with Holm's step-down procedure over its 1
    comparison with logreg": one p-value has nothing to be adjusted against."""
    frame = cvreport.load_example("multi")
    two = frame[frame.model.isin(["logistic_regression", "decision_tree"])]
    table = cvreport.DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", two)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markdown = cvreport.DatasetsReport(table, baseline="logistic_regression").to_markdown()
    legend = next(line for line in markdown.splitlines() if "significantly better / worse" in line)
    assert "adjusted with" not in legend and "1 comparison" not in legend
    assert "by the test its design calls for" in legend


def test_the_worked_notebook_calls_non_inferiority_one_one_sided_test():
    """Was: "Two one-sided tests with the corrected variance: ..." above a non-inferiority call
    whose own note says "tested against a margin by one one-sided test"."""
    import nbformat

    path = README.parent / "notebooks" / "05_beyond_the_test.ipynb"
    cells = {c.id: c.source for c in nbformat.read(path, as_version=4).cells}
    intro = _one_line(cells["margin-intro"])
    assert "Two one-sided tests with" not in intro
    assert "Non-inferiority is one one-sided test" in intro
    assert 'alternative="non-inferior"' in cells["non-inferior"]


def test_the_many_data_sets_references_are_the_papers_its_text_cites():
    """Was: a report of two models listed Holm (1979) and Benavoli, Corani & Mangili (2016),
    which its text never cited, and said its one p-value was adjusted with Holm's procedure."""
    frame = cvreport.load_example("multi")
    formula = "loss ~ model | replication + fold | dataset"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = cvreport.DatasetsReport(
            cvreport.DatasetsTable.from_formula(
                formula, frame[frame.model.isin(["logistic_regression", "decision_tree"])]
            )
        ).to_markdown()
        five = cvreport.DatasetsReport(
            cvreport.DatasetsTable.from_formula(formula, frame)
        ).to_markdown()
    for text in (two, five):
        body, references = text.split("## References", 1)
        cites_holm = "Holm" in body
        assert ("Holm, S. (1979)" in references) == cites_holm
        cites_groups = "Benavoli, Corani and Mangili 2016" in body
        assert ("Benavoli, A., Corani, G., Mangili, F. (2016)" in references) == cites_groups
    assert "one pair, so its p-value has nothing to be adjusted against" in two
    assert "Holm" in five.split("## References")[0]


def test_the_notebook_takes_the_ratio_of_repeated_hold_out_splits(tmp_path):
    import nbformat

    frame = holdout_split_losses()
    data = tmp_path / "splits.csv"
    frame.to_csv(data, index=False)
    ratio = 20 / 180
    out = cvreport.jupyter.notebook.write(
        tmp_path / "splits.ipynb", data=data, formula=LOSS_FORMULA, test_train_ratio=ratio
    )
    notebook = nbformat.read(out, as_version=4)
    cells = {c.id: c.source for c in notebook.cells}
    assert f"TEST_TRAIN_RATIO = {ratio!r}" in cells["setup"]
    assert "test_train_ratio=TEST_TRAIN_RATIO" in cells["build-table"]
    # the cell builds the table the API builds with that ratio
    namespace: dict = {}
    exec(cells["setup"], namespace)
    exec("df = __import__('pandas').read_csv(" + repr(str(data)) + ")", namespace)
    exec(cells["build-table"].split("\nprint(")[0], namespace)
    assert namespace["table"].test_train_ratio == pytest.approx(ratio)
    # K-fold per-record losses still refuse it, before any file is written
    kfold = tmp_path / "kfold.csv"
    kfold_losses(replications=2, folds=5).to_csv(kfold, index=False)
    with pytest.raises(cvreport.errors.CVReportError, match="K-fold tables know their fold"):
        cvreport.jupyter.notebook.write(
            tmp_path / "k.ipynb", data=kfold, formula=LOSS_FORMULA, test_train_ratio=0.25
        )
    assert not (tmp_path / "k.ipynb").exists()
