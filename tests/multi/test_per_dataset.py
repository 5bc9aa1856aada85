"""Per data set: the design's recommended test, the correction, and wins/ties/losses."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import cvreport
from cvreport.data.datasets import DatasetsTable
from cvreport.errors import DesignError
from cvreport.multi import compare_datasets, per_dataset_tests


@pytest.fixture(scope="module")
def multi():
    return DatasetsTable.from_formula(
        "loss ~ model | replication + fold | dataset", cvreport.load_example("multi")
    )


@pytest.fixture(scope="module")
def against_lr(multi):
    return per_dataset_tests(multi, baseline="logistic_regression", correction="holm")


def test_each_dataset_gets_its_designs_test(multi, against_lr):
    rows = against_lr.comparisons
    for name, table in multi.tables.items():
        used = set(rows.loc[rows["dataset"] == name, "test"])
        expected = (
            {"corrected_repeated_kfold_ttest"}
            if table.design.kind == "kfold"
            else {"combined_ftest_5x2cv"}
        )
        assert used == expected, name


def test_pvalues_and_holm_match_the_tests_run_directly(multi, against_lr):
    rows = against_lr.comparisons
    table = multi.tables["diabetes_high"]
    others = [m for m in multi.models if m != "logistic_regression"]
    raw = [cvreport.combined_ftest_5x2cv(table, m, "logistic_regression").pvalue for m in others]
    mine = rows[rows["dataset"] == "diabetes_high"].set_index("a").loc[others]
    assert mine["pvalue"].to_numpy() == pytest.approx(raw, abs=1e-12)
    assert mine["adjusted"].to_numpy() == pytest.approx(
        multipletests(raw, method="holm")[1], abs=1e-12
    )


def test_win_tie_loss_counts_follow_the_decisions_and_direction(multi, against_lr):
    counts = against_lr.win_tie_loss()
    rows = against_lr.comparisons
    means = multi.means()
    for model, (win, tie, loss) in counts.iterrows():
        mine = rows[rows["a"] == model]
        rejected = mine[mine["reject"]]
        lower = [
            means.loc[d, model] < means.loc[d, "logistic_regression"] for d in rejected["dataset"]
        ]
        assert win == sum(lower) and loss == len(rejected) - sum(lower)
        assert win + tie + loss == len(multi.datasets)
    # uncorrected decisions reject at least as often as Holm's
    plain = per_dataset_tests(multi, baseline="logistic_regression", correction="none")
    assert plain.comparisons["reject"].sum() >= rows["reject"].sum()


@pytest.fixture(scope="module")
def three_models():
    frame = cvreport.load_example("multi")
    frame = frame[frame["model"].isin(["logistic_regression", "decision_tree", "knn"])]
    return DatasetsTable.from_formula("loss ~ model | replication + fold | dataset", frame)


def test_every_pair_gives_a_matrix(three_models):
    tests = per_dataset_tests(three_models)
    matrix = tests.win_tie_loss_matrix()
    assert matrix.shape == (3, 3)
    w, t, loss = map(int, matrix.loc["decision_tree", "logistic_regression"].split("/"))
    assert w + t + loss == 10
    assert matrix.loc["logistic_regression", "decision_tree"] == f"{loss}/{t}/{w}"


def test_one_score_per_dataset_has_no_per_dataset_tests():
    df = pd.DataFrame({"d": list("aabbcc"), "m": ["x", "y"] * 3, "auc": [1, 2, 3, 4, 6, 5]})
    table = DatasetsTable.from_formula("auc ~ m | d", df)
    with pytest.raises(DesignError, match="one score per data set"):
        per_dataset_tests(table)
    analysis = compare_datasets(table, n_samples=1000)
    assert analysis.per_dataset is None
    assert any("Only 3 data sets" in note for note in analysis.notes)


def test_compare_datasets_on_the_example(multi, three_models):
    result = compare_datasets(multi, baseline="logistic_regression", n_samples=2000)
    assert result.wilcoxon_correction == "holm"  # against a baseline
    assert len(result.bayesian) == 4 and result.bonferroni_dunn is not None
    assert result.best().sum(axis=1).min() >= 1
    assert result.friedman.average_ranks.idxmin() == "logistic_regression"
    every_pair = compare_datasets(three_models, n_samples=2000)
    assert every_pair.wilcoxon_correction == "bergmann-hommel"
    assert len(every_pair.wilcoxon) == 3
    # the Wilcoxon cliques: no rejected pair inside a group
    rejected = {frozenset((r.a, r.b)) for r in every_pair.wilcoxon.itertuples() if r.reject}
    for group in every_pair.wilcoxon_cliques:
        assert not any(frozenset(p) in rejected for p in itertools.combinations(group, 2))
    assert result.wilcoxon_cliques == ()  # against a baseline there are none
