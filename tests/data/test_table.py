"""ResultsTable: accessors on hand-worked tables, designs, and every validation path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cvreport.data.examples import load_example
from cvreport.data.table import Design, ResultsTable
from cvreport.errors import CVReportError, DataError, DesignError

# --------------------------------------------------------------------------- a hand-worked 2×2 table
# replication 1: fold 1 = records {0, 1}, fold 2 = {2, 3}
# replication 2: fold 1 = records {0, 2}, fold 2 = {1, 3}
LOSSES = {  # (replication, fold) -> {model: losses on the fold's records, in record order}
    (1, 1): {"a": [1, 0], "b": [1, 1]},
    (1, 2): {"a": [0, 0], "b": [1, 0]},
    (2, 1): {"a": [1, 1], "b": [0, 1]},
    (2, 2): {"a": [0, 1], "b": [0, 0]},
}
FOLD_RECORDS = {(1, 1): [0, 1], (1, 2): [2, 3], (2, 1): [0, 2], (2, 2): [1, 3]}


def hand_frame() -> pd.DataFrame:
    rows = []
    for (rep, fold), by_model in LOSSES.items():
        for model, losses in by_model.items():
            for record, loss in zip(FOLD_RECORDS[rep, fold], losses, strict=True):
                rows.append((rep, fold, model, record, loss))
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])


def shuffled(df: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """Rows in random order, the first row kept first (so model 'a' still appears first)."""
    rest = np.random.default_rng(seed).permutation(np.arange(1, len(df)))
    return df.iloc[np.r_[0, rest].astype(int)[: len(df)]].reset_index(drop=True)


ORDERS = [pytest.param(lambda df: df, id="ordered"), pytest.param(shuffled, id="shuffled")]


@pytest.fixture(params=ORDERS)
def table(request) -> ResultsTable:
    return ResultsTable(request.param(hand_frame()))


def test_labels_and_design(table):
    assert table.models == ("a", "b")
    assert table.replications == (1, 2)
    assert table.folds == (1, 2)
    design = table.design
    assert (design.kind, design.m, design.K, design.n_records) == ("mx2", 2, 2, 4)
    assert design.complete and design.per_record
    assert design.is_mx2 and design.is_repeated_kfold
    assert not design.is_kfold and not design.is_holdout
    assert design.describe() == "2×2 cross-validation (m = 2, K = 2, n = 4 records, folds of 2)"
    assert design.fold_sizes.to_dict("list") == {
        "replication": [1, 1, 2, 2],
        "fold": [1, 2, 1, 2],
        "n": [2, 2, 2, 2],
    }


def test_fold_errors(table):
    errors = table.fold_errors()
    assert list(errors.columns) == ["replication", "fold", "model", "loss", "n"]
    assert errors["loss"].tolist() == [0.5, 1.0, 0.0, 0.5, 1.0, 0.5, 0.5, 0.0]
    assert errors["model"].tolist() == ["a", "b"] * 4
    assert errors["n"].tolist() == [2] * 8


def test_differences_are_a_minus_b(table):
    diffs = table.differences("a", "b")
    assert diffs.index.name == "replication" and diffs.columns.name == "fold"
    assert diffs.to_numpy().tolist() == [[-0.5, -0.5], [0.5, 0.5]]
    assert table.differences("b", "a").to_numpy().tolist() == [[0.5, 0.5], [-0.5, -0.5]]
    assert table.differences().equals(diffs)  # the only two models


def test_contingency_counts(table):
    counts = table.contingency("a", "b")
    assert list(counts.columns) == ["replication", "fold", "n00", "n01", "n10", "n11"]
    assert counts[["n00", "n01", "n10", "n11"]].to_numpy().tolist() == [
        [1, 0, 1, 0],
        [0, 0, 1, 1],
        [1, 1, 0, 0],
        [0, 1, 0, 1],
    ]
    assert (counts.dtypes.iloc[2:] == np.int64).all()
    swapped = table.contingency("b", "a")
    assert swapped["n01"].tolist() == counts["n10"].tolist()


def test_sufficient_statistics_shapes_and_values(table):
    stats = table.stats
    assert stats.shape == (2, 2, 2)
    assert stats.sums[:, :, 0].tolist() == [[1.0, 0.0], [2.0, 1.0]]
    assert stats.counts.tolist() == [[[2, 2], [2, 2]], [[2, 2], [2, 2]]]
    assert stats.both_wrong is not None
    assert stats.both_wrong[0, 0].tolist() == [[1, 1], [1, 2]]
    assert table.stats is stats  # cached
    with pytest.raises(ValueError, match="read-only"):
        stats.sums[0, 0, 0] = 5


def test_record_differences(table):
    frame = table.record_differences("a", "b")
    assert list(frame.columns) == ["replication", "fold", "record", "difference"]
    got = {(r, f, rec): d for r, f, rec, d in frame.itertuples(index=False)}
    assert got == {
        (1, 1, 0): 0.0, (1, 1, 1): -1.0, (1, 2, 2): -1.0, (1, 2, 3): 0.0,
        (2, 1, 0): 1.0, (2, 1, 2): 0.0, (2, 2, 1): 0.0, (2, 2, 3): 1.0,
    }  # fmt: skip


def test_membership(table):
    records, folds = table.membership()
    assert folds.dtype == np.int32 and folds.shape == (4, 2)
    by_record = dict(zip(records.tolist(), folds.tolist(), strict=True))
    assert by_record == {0: [0, 0], 1: [0, 1], 2: [1, 0], 3: [1, 1]}


def test_train_sizes(table):
    sizes = table.train_sizes()
    assert sizes.to_dict("list") == {
        "replication": [1, 1, 2, 2],
        "fold": [1, 2, 1, 2],
        "n_test": [2, 2, 2, 2],
        "n_train": [2, 2, 2, 2],
    }


def test_descriptors(table):
    assert table.is_binary and table.per_record
    assert table.higher_is_better is False
    assert table.metric.direction == "lower" and table.metric.name == "error rate"
    assert table.loss_name == "loss"
    assert table.formula is None
    assert table.test_train_ratio is None
    assert table.predictions() is None
    assert "16-row DataFrame" in table.source and "loss 'loss'" in table.source
    assert repr(table).startswith("<ResultsTable: 2×2 cross-validation")


# --------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("replication_map", "fold_map", "model_map"),
    [
        ({1: 0, 2: 1}, {1: 0, 2: 1}, {"a": "a", "b": "b"}),  # 0-based
        ({1: "r1", 2: "r2"}, {1: "f1", 2: "f2"}, {"a": "m1", "b": "m2"}),  # strings
        ({1: 10, 2: 20}, {1: 7, 2: 9}, {"a": 3, "b": 1}),  # integer models, unsorted
    ],
)
def test_labels_keep_the_users_values(replication_map, fold_map, model_map):
    df = hand_frame()
    df["replication"] = df["replication"].map(replication_map)
    df["fold"] = df["fold"].map(fold_map)
    df["model"] = df["model"].map(model_map)
    table = ResultsTable(shuffled(df))
    assert table.replications == tuple(replication_map.values())
    assert table.folds == tuple(fold_map.values())
    assert set(table.models) == set(model_map.values())
    a, b = model_map["a"], model_map["b"]
    assert table.differences(a, b).to_numpy().tolist() == [[-0.5, -0.5], [0.5, 0.5]]
    assert table.differences(a, b).index.tolist() == list(replication_map.values())


def test_first_replication_is_the_smallest_label():
    df = hand_frame()
    df["replication"] = df["replication"].map({1: 3, 2: 1})
    table = ResultsTable(df)
    assert table.replications == (1, 3)
    assert table.differences("a", "b").to_numpy().tolist() == [[0.5, 0.5], [-0.5, -0.5]]


def test_models_are_in_order_of_first_appearance():
    df = hand_frame()
    df = pd.concat([df[df.model == "b"], df[df.model == "a"]], ignore_index=True)
    assert ResultsTable(df).models == ("b", "a")


def test_categorical_columns():
    df = hand_frame()
    df["model"] = pd.Categorical(df["model"], categories=["b", "a", "unused"])
    df["fold"] = pd.Categorical(df["fold"].map({1: "first", 2: "second"}))
    df["record"] = pd.Categorical(df["record"].map(lambda r: f"id{r}"))
    for frame in (df, shuffled(df)):
        table = ResultsTable(frame)
        assert set(table.models) == {"a", "b"}
        assert table.folds == ("first", "second")
        assert table.differences("a", "b").to_numpy().tolist() == [[-0.5, -0.5], [0.5, 0.5]]
        records, _ = table.membership()
        assert sorted(records.tolist()) == ["id0", "id1", "id2", "id3"]


def test_string_records_and_nullable_losses():
    df = hand_frame()
    df["record"] = df["record"].map(lambda r: f"patient-{r}")
    df["loss"] = df["loss"].astype("Float64")
    table = ResultsTable(df)
    assert table.is_binary
    assert table.contingency("a", "b")["n00"].tolist() == [1, 0, 1, 0]


def test_custom_column_names_and_integer_loss():
    df = hand_frame().rename(
        columns={"replication": "rep", "fold": "k", "model": "algo", "record": "id", "loss": "e"}
    )
    table = ResultsTable(df, loss="e", model="algo", replication="rep", fold="k", record="id")
    assert table.loss_name == "e"
    assert table.differences("a", "b").to_numpy().tolist() == [[-0.5, -0.5], [0.5, 0.5]]


def test_real_losses_are_not_binary():
    df = hand_frame()
    df["loss"] = df["loss"] * 0.5 + 0.25
    table = ResultsTable(df)
    assert not table.is_binary
    assert table.stats.both_wrong is None
    np.testing.assert_allclose(table.stats.sumsq[0, 0], [0.75**2 + 0.25**2, 2 * 0.75**2])
    with pytest.raises(DataError, match="needs 0/1 losses") as error:
        table.contingency("a", "b")
    assert "'loss'" in str(error.value)
    with pytest.raises(DataError, match="McNemar"):
        table.require_binary("McNemar's test")


def test_copy_on_write_protects_the_table_from_later_edits():
    df = hand_frame()
    df["loss"] = df["loss"].astype(float)
    table = ResultsTable(df)
    before = table.record_differences("a", "b")["difference"].tolist()
    df.loc[0, "loss"] = 100.0
    df["loss"] *= 3
    assert table.record_differences("a", "b")["difference"].tolist() == before
    assert table.stats.sums[0, 0, 0] == 1.0


# --------------------------------------------------------------------------- designs


def kfold_frame(m: int, k: int, n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(1, m + 1):
        fold_of = rng.permutation(np.arange(n) % k) + 1
        for model in ("a", "b"):
            for record in range(n):
                rows.append((rep, fold_of[record], model, record, float(rng.random() < 0.3)))
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])


@pytest.mark.parametrize(
    ("m", "k", "kind", "text"),
    [
        (1, 10, "kfold", "10-fold cross-validation (K = 10, n = 50 records, folds of 5)"),
        (1, 2, "kfold", "2-fold cross-validation (K = 2, n = 50 records, folds of 25)"),
        (5, 2, "mx2", "5×2 cross-validation (m = 5, K = 2, n = 50 records, folds of 25)"),
        (3, 5, "repeated_kfold", "3×5 cross-validation (m = 3, K = 5, n = 50 records, folds of 10)"),
    ],
)  # fmt: skip
def test_kfold_designs(m, k, kind, text):
    table = ResultsTable(kfold_frame(m, k, 50))
    assert table.design.kind == kind
    assert table.design.describe() == text
    assert table.differences().shape == (m, k)
    sizes = table.train_sizes()
    assert (sizes["n_train"] == 50 - sizes["n_test"]).all()


def test_unequal_fold_sizes_are_described_as_a_range():
    table = ResultsTable(kfold_frame(1, 3, 10))
    assert (
        table.design.describe() == "3-fold cross-validation (K = 3, n = 10 records, folds of 3–4)"
    )


def test_repeated_holdout_with_different_records_per_split():
    rows = []
    for split, records in ((1, [0, 1, 2]), (2, [2, 3, 4]), (3, [5, 6, 7])):
        for model in ("a", "b"):
            for record in records:
                rows.append((split, model, record, float((record + split) % 2)))
    df = pd.DataFrame(rows, columns=["split", "model", "record", "loss"])
    table = ResultsTable(df, replication="split", fold=None)
    design = table.design
    assert (design.kind, design.m, design.K, design.n_records) == ("repeated_holdout", 3, 1, 8)
    assert design.is_holdout and not design.complete
    assert design.describe() == (
        "repeated hold-out validation (J = 3 splits, n = 8 records, validation sets of 3)"
    )
    assert table.folds == (1,)
    assert table.differences("a", "b").shape == (3, 1)
    records, folds = table.membership()
    assert folds.shape == (8, 3)
    assert folds[records.tolist().index(2)].tolist() == [0, 0, -1]
    assert table.train_sizes()["n_train"].tolist() == [5, 5, 5]


def test_single_holdout_has_no_known_training_size():
    df = pd.DataFrame({"model": ["a", "a", "b", "b"], "record": [0, 1, 0, 1], "loss": [0, 1, 1, 1]})
    table = ResultsTable(df, replication=None, fold=None)
    assert table.design.kind == "holdout"
    with pytest.raises(DesignError, match="test_train_ratio"):
        table.train_sizes()


def test_sparse_record_ids_across_many_replications():
    # every replication scores its own records: the layout must not be m × n_records dense
    rows = []
    for split in range(40):
        for model in ("a", "b"):
            for j in range(5):
                rows.append((split, model, split * 1000 + j, float((j + split) % 3 == 0)))
    df = pd.DataFrame(rows, columns=["split", "model", "record", "loss"])
    for frame in (df, shuffled(df)):
        table = ResultsTable(frame, replication="split", fold=None)
        assert table.design.n_records == 200
        assert table.fold_errors()["loss"].sum() == pytest.approx(
            2 * df[df.model == "a"].loss.sum() / 5
        )


# --------------------------------------------------------------------------- other constructors


def test_from_predictions_keeps_truth_and_predictions():
    df = hand_frame()
    df["truth"] = np.where(df["record"] % 2 == 0, "cat", "dog")
    df["prediction"] = np.where(
        df["loss"] == 1, np.where(df["truth"] == "cat", "dog", "cat"), df["truth"]
    )
    table = ResultsTable.from_predictions(shuffled(df), truth="truth", prediction="prediction")
    assert table.loss_name == "prediction != truth"
    assert table.differences("a", "b").to_numpy().tolist() == [[-0.5, -0.5], [0.5, 0.5]]
    predictions = table.predictions()
    assert list(predictions.columns) == [
        "replication", "fold", "model", "record", "truth", "prediction",
    ]  # fmt: skip
    assert len(predictions) == 16
    assert (predictions.truth != predictions.prediction).sum() == df["loss"].sum() == 8


def test_from_predictions_rejects_missing_and_mismatched_labels():
    df = hand_frame()
    df["truth"] = 1
    df["prediction"] = df["loss"].astype(float)
    df.loc[3, "prediction"] = np.nan
    with pytest.raises(DataError, match="column 'prediction' has 1 missing value"):
        ResultsTable.from_predictions(df, truth="truth", prediction="prediction")
    df["prediction"] = "1"
    with pytest.raises(DataError, match="different kinds of labels"):
        ResultsTable.from_predictions(df, truth="truth", prediction="prediction")


def fold_scores_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "replication": [1, 1, 1, 1, 2, 2, 2, 2],
            "fold": [1, 1, 2, 2] * 2,
            "model": ["a", "b"] * 4,
            "auc": [0.90, 0.85, 0.80, 0.82, 0.88, 0.80, 0.86, 0.86],
        }
    )


def test_from_fold_scores():
    table = ResultsTable.from_fold_scores(fold_scores_frame(), score="auc")
    assert not table.per_record and table.higher_is_better is True
    assert table.design.kind == "mx2" and table.design.n_records is None
    assert table.design.describe() == "2×2 cross-validation (m = 2, K = 2, one score per fold)"
    np.testing.assert_allclose(
        table.differences("a", "b").to_numpy(), [[0.05, -0.02], [0.08, 0.0]], atol=1e-12
    )
    errors = table.fold_errors()
    np.testing.assert_allclose(errors["loss"].head(2), [-0.90, -0.85])
    assert errors["n"].isna().all()
    assert table.stats.counts.tolist() == [[[1, 1]] * 2] * 2
    assert table.stats.membership is None and table.stats.both_wrong is None
    assert table.metric.direction == "higher" and "negated" not in table.source
    assert table.design.fold_sizes["n"].isna().all()


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.membership(),
        lambda t: t.record_differences(),
        lambda t: t.contingency(),
        lambda t: t.require_per_record("the CV confidence interval"),
        lambda t: t.require_binary("McNemar's test"),
    ],
)
def test_per_fold_tables_refuse_per_record_questions(call):
    table = ResultsTable.from_fold_scores(fold_scores_frame(), score="auc")
    with pytest.raises(DesignError, match="needs per-record losses"):
        call(table)


def test_fold_score_training_sizes_come_from_the_ratio():
    table = ResultsTable.from_fold_scores(fold_scores_frame(), score="auc")
    with pytest.raises(DesignError, match="test_train_ratio"):
        table.train_sizes()
    table = ResultsTable.from_fold_scores(fold_scores_frame(), score="auc", test_train_ratio=0.25)
    assert table.test_train_ratio == 0.25
    sizes = table.train_sizes()
    assert (sizes["n_test"] / sizes["n_train"]).tolist() == [0.25] * 4
    with pytest.raises(DataError, match="test_train_ratio must be a positive number"):
        ResultsTable.from_fold_scores(fold_scores_frame(), score="auc", test_train_ratio=-1)


def test_fold_score_validation():
    df = fold_scores_frame()
    with pytest.raises(DataError, match=r"more than one score: replication=1, fold=1, model='a'"):
        ResultsTable.from_fold_scores(pd.concat([df, df.head(1)]), score="auc")
    with pytest.raises(DataError, match="model 'b' in replication 2, fold 2"):
        ResultsTable.from_fold_scores(df.drop(index=7), score="auc")
    bad = df.assign(auc=df["auc"].where(df.index != 2))
    with pytest.raises(DataError, match=r"score 'auc' has 1 value\(s\) that are not finite"):
        ResultsTable.from_fold_scores(bad, score="auc")
    with pytest.raises(DataError, match="missing score column 'score'"):
        ResultsTable.from_fold_scores(df)


# --------------------------------------------------------------------------- choosing models


def three_model_table() -> ResultsTable:
    df = hand_frame()
    third = df[df.model == "a"].assign(model="c", loss=1)
    return ResultsTable(pd.concat([df, third], ignore_index=True))


def test_resolve_pair():
    table = three_model_table()
    assert table.resolve_pair("c", "a") == ("c", "a")
    with pytest.raises(DataError, match=r"holds 3 models \('a', 'b', 'c'\); say which two"):
        table.resolve_pair()
    with pytest.raises(DataError, match=r"unknown model 'z'; the table's models are 'a', 'b', 'c'"):
        table.resolve_pair("z", "a")
    with pytest.raises(DataError, match="compare two different models"):
        table.resolve_pair("a", "a")
    with pytest.raises(DataError, match="name both a= and b="):
        table.resolve_pair("a")
    two = ResultsTable(hand_frame())
    assert two.resolve_pair("b") == ("b", "a")
    assert two.resolve_pair(b="b") == ("a", "b")


def test_resolve_pair_matches_labels_by_text():
    df = hand_frame()
    df["model"] = df["model"].map({"a": 1, "b": 2})
    table = ResultsTable(df)
    assert table.resolve_pair("2", "1") == (2, 1)


def test_both_wrong_for_all_pairs_at_once():
    table = three_model_table()
    both_wrong = table.stats.both_wrong
    assert both_wrong.shape == (2, 2, 3, 3)
    # model c is always wrong: n00 with c is the other model's error count
    assert both_wrong[:, :, 0, 2].tolist() == table.stats.sums[:, :, 0].tolist()
    assert table.contingency("a", "c")["n10"].tolist() == [1, 2, 0, 1]


# --------------------------------------------------------------------------- validation errors


@pytest.mark.parametrize("order", ORDERS)
class TestValidation:
    def check(self, order, df, error, *fragments, **kwargs):
        with pytest.raises(error) as caught:
            ResultsTable(order(df), **kwargs)
        message = str(caught.value)
        for fragment in fragments:
            assert fragment in message, message
        assert isinstance(caught.value, CVReportError) and isinstance(caught.value, ValueError)

    def test_missing_column(self, order):
        df = hand_frame().drop(columns="record")
        self.check(order, df, DataError, "missing record column 'record'", "'loss'")

    def test_unknown_column_names(self, order):
        self.check(
            order, hand_frame(), DataError, "missing model column 'algo'", "columns", model="algo"
        )

    def test_same_column_for_two_roles(self, order):
        self.check(order, hand_frame(), DataError, "more than one role", fold="replication")

    def test_non_numeric_loss(self, order):
        df = hand_frame().assign(loss=lambda d: d["loss"].map({0: "no", 1: "yes"}))
        self.check(order, df, DataError, "loss column 'loss' must hold numbers", "dtype is str")

    def test_nan_losses_are_counted_and_located(self, order):
        df = hand_frame().astype({"loss": float})
        df.loc[[2, 5], "loss"] = np.nan
        df.loc[9, "loss"] = np.inf
        self.check(
            order, df, DataError,
            "3 value(s) that are not finite numbers (2 NaN, 1 infinite)", "record=",
        )  # fmt: skip

    def test_duplicate_rows(self, order):
        df = hand_frame()
        df = pd.concat([df, df.iloc[[5]]], ignore_index=True)
        self.check(
            order, df, DataError,
            "1 (replication, fold, model, record) key(s) appear in more than one row",
            "replication=1, fold=2, model='a', record=3 (2 rows)", "drop_duplicates",
        )  # fmt: skip

    def test_model_absent_from_a_fold(self, order):
        df = hand_frame()
        df = df[~((df.replication == 2) & (df.fold == 1) & (df.model == "b"))]
        self.check(
            order, df, DataError, "model 'b' in replication 2, fold 1", "every model must be scored"
        )

    def test_models_scored_on_different_records(self, order):
        df = hand_frame()
        df = df[~((df.replication == 1) & (df.model == "b") & (df.record == 1))]
        self.check(
            order, df, DataError,
            "scored on different records within a fold",
            "replication 1, fold 1, record 1 has no loss for model(s) 'b'",
        )  # fmt: skip

    def test_record_in_two_folds_of_a_replication(self, order):
        df = hand_frame()
        moved = (df.replication == 1) & (df.record == 2)
        df.loc[moved & (df.model == "b"), "fold"] = 1
        self.check(
            order, df, DataError,
            "scored in more than one fold of the same replication",
            "record 2 in replication 1 is in folds 1, 2",
        )  # fmt: skip

    def test_record_in_two_folds_for_every_model(self, order):
        df = hand_frame()
        extra = df[(df.replication == 1) & (df.fold == 2) & (df.record == 2)].assign(fold=1)
        self.check(
            order, pd.concat([df, extra], ignore_index=True), DataError,
            "record 2 in replication 1 is in folds 1, 2",
        )  # fmt: skip

    def test_fewer_than_two_models(self, order):
        df = hand_frame()
        self.check(order, df[df.model == "a"], DataError, "at least two models", "only 'a'")

    def test_replications_with_different_numbers_of_folds(self, order):
        df = hand_frame()
        third = df[df.replication == 1].assign(replication=3, fold=lambda d: d["record"] % 3 + 1)
        self.check(
            order, pd.concat([df, third], ignore_index=True), DesignError,
            "different numbers of folds", "replication 1 has 2", "replication 3 has 3",
        )  # fmt: skip

    def test_replications_with_different_fold_labels(self, order):
        df = hand_frame()
        df.loc[df.replication == 2, "fold"] += 2
        self.check(order, df, DesignError, "replication 2 uses folds 3, 4", "label the folds")

    def test_missing_key_values(self, order):
        df = hand_frame().astype({"fold": float})
        df.loc[4, "fold"] = np.nan
        self.check(order, df, DataError, "fold column 'fold' has 1 missing value(s)")

    def test_empty_table(self, order):
        self.check(order, hand_frame().iloc[:0], DataError, "no rows")

    def test_empty_table_read_from_a_headers_only_csv(self, order):
        # a CSV with only a header row gives object columns; say "no rows", not "not numbers"
        empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in hand_frame().columns})
        self.check(order, empty, DataError, "the table has no rows")

    def test_duplicate_rows_that_disagree_are_not_to_be_dropped_blindly(self, order):
        df = hand_frame()
        twin = df.iloc[[5]].assign(loss=1 - df.loc[5, "loss"])
        self.check(
            order, pd.concat([df, twin], ignore_index=True), DataError,
            "record=3 (2 rows) with losses 0, 1", "the rows of 1 of those keys disagree on the loss",
            "find out which row is right",
        )  # fmt: skip
        with pytest.raises(DataError) as caught:
            ResultsTable(order(pd.concat([df, twin], ignore_index=True)))
        assert "drop_duplicates" not in str(caught.value)

    def test_duplicates_from_a_missing_replication_column_say_so(self, order):
        # all replications read as one: the fix is to name the column, not to drop rows
        df = hand_frame()
        with pytest.raises(DataError) as caught:
            ResultsTable(order(df), replication=None)
        message = str(caught.value)
        assert "(fold, model, record) key(s) appear in more than one row" in message
        assert "the table names no replication column" in message
        assert "'loss ~ model | replication + fold'" in message
        assert "replication=1" not in message
        # some repeated keys have different losses: dropping rows is not offered
        assert "with losses 0, 1" in message and "drop_duplicates" not in message
        # a replication appended twice with the same losses: dropping the repeats is offered
        first = df[df.replication == 1]
        twice = pd.concat([first, first.assign(replication=2)], ignore_index=True)
        with pytest.raises(
            DataError, match=r"data\.drop_duplicates\(\['fold', 'model', 'record'\]\)"
        ):
            ResultsTable(order(twice), replication=None)

    def test_record_ids_that_number_rows_cannot_pair_the_models(self, order):
        df = hand_frame().assign(record=lambda d: np.arange(len(d)))  # the row, not the data point
        self.check(
            order, df, DataError,
            "no record is scored by more than one model", "must name the data point",
        )  # fmt: skip

    def test_record_in_two_folds_without_a_replication_column(self, order):
        df = hand_frame()
        with pytest.raises(DataError) as caught:
            ResultsTable(order(df), replication=None, fold="fold")
        assert "the table names no replication column" in str(caught.value)

    def test_object_column_of_numbers_is_a_loss(self, order):
        df = hand_frame().astype({"loss": object})
        table = ResultsTable(order(df))
        assert table.is_binary
        assert table.differences("a", "b").to_numpy().tolist() == [[-0.5, -0.5], [0.5, 0.5]]

    def test_object_loss_names_the_values_that_are_not_numbers(self, order):
        df = hand_frame().astype({"loss": object})
        df.loc[3, "loss"] = "n/a"
        self.check(
            order, df, DataError,
            "1 of its 16 values are not (row ", ": 'n/a')", "pandas.to_numeric",
        )  # fmt: skip


def test_predictions_that_never_match_any_truth_label_are_refused():
    # probabilities passed as predictions: every row would silently count as an error
    df = hand_frame().assign(truth=1, prediction=lambda d: 0.25 + 0.5 * d["loss"])
    with pytest.raises(
        DataError, match=r"holds fractional values such as 0\.75, 0\.25.*probabilities"
    ):
        ResultsTable.from_predictions(df, truth="truth", prediction="prediction")
    # a model that really is always wrong on a tiny table is still accepted
    wrong = hand_frame().assign(truth=1, prediction=lambda d: d["loss"].where(d["loss"] == 0, 0))
    wrong.loc[0, "prediction"] = 1  # one hit, so labels are shared
    assert ResultsTable.from_predictions(wrong, truth="truth", prediction="prediction").models


def test_losses_too_large_to_square_are_refused_not_turned_into_nan():
    df = hand_frame().assign(loss=lambda d: (d["loss"] + 0.5) * 1e300)
    with pytest.raises(DataError, match=r"reaches 1\.5e\+300 .* sums of squares overflow"):
        ResultsTable(df)
    scores = pd.DataFrame({"fold": [1, 1, 2, 2], "model": ["a", "b"] * 2, "s": [1e300, 2e300] * 2})
    with pytest.raises(DataError, match="rescale"):
        ResultsTable.from_fold_scores(scores, score="s", replication=None)
    ResultsTable(hand_frame().assign(loss=lambda d: (d["loss"] + 0.5) * 1e100))  # large is fine


def test_a_bool_is_not_a_test_train_ratio():
    scores = pd.DataFrame({"fold": [1, 1, 2, 2], "model": ["a", "b"] * 2, "auc": [0.9, 0.8] * 2})
    with pytest.raises(DataError, match="test_train_ratio must be a positive number"):
        ResultsTable.from_fold_scores(scores, score="auc", replication=None, test_train_ratio=True)


def test_summary_shows_design_models_and_fold_sizes(table):
    from cvreport.rendering.summary import Summary

    summary = table.summary()
    assert isinstance(summary, Summary)
    rows = {row.label: row.value for row in summary.rows}
    assert rows["design"] == table.design.describe()
    assert rows["models"] == "a, b"
    assert (rows["replications (m)"], rows["folds per replication (K)"], rows["records"]) == (
        2, 2, 4,
    )  # fmt: skip
    means, sizes = summary.tables
    assert [r[0] for r in means.rows] == ["a", "b"]
    assert means.rows[0][1] == pytest.approx(table.fold_errors().query("model == 'a'").loss.mean())
    assert sizes.columns == ("replication", "fold 1", "fold 2")
    assert sizes.rows == (("1", 2, 2), ("2", 2, 2))
    text = summary.as_text()
    assert "2×2 cross-validation" in text and "Records per validation fold" in text


def test_summary_of_scores_shows_them_as_given():
    scores = pd.DataFrame({"fold": [1, 1, 2, 2], "model": ["a", "b"] * 2, "auc": [0.9, 0.8] * 2})
    table = ResultsTable.from_fold_scores(scores, score="auc", replication=None)
    (means,) = table.summary().tables  # no fold sizes for per-fold scores
    assert "higher is better" in means.caption
    assert [row[1] for row in means.rows] == [pytest.approx(0.9), pytest.approx(0.8)]


def test_summary_lists_the_first_replications_only():
    rng = np.random.default_rng(0)
    rows = []
    for rep in range(30):
        for fold in (1, 2):
            for model in ("a", "b"):
                records = np.arange(4) + 4 * (fold - 1)
                rows += [(rep, fold, model, r, int(rng.random() < 0.3)) for r in records]
    table = ResultsTable(
        pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])
    )
    summary = table.summary()
    assert len(summary.tables[1].rows) == ResultsTable.SUMMARY_ROWS
    assert any("first 20 of 30 replications" in note for note in summary.notes)


def test_not_a_dataframe():
    with pytest.raises(DataError, match="expected a DataFrame"):
        ResultsTable({"loss": [1]})  # type: ignore[arg-type]


# --------------------------------------------------------------------------- examples


def test_example_random_is_a_5x2_run_of_three_classifiers():
    df = load_example("random")
    assert list(df.columns) == [
        "replication", "fold", "model", "record", "truth", "prediction", "loss",
    ]  # fmt: skip
    table = ResultsTable.from_predictions(df, truth="truth", prediction="prediction")
    assert table.models == ("logistic_regression", "decision_tree", "naive_bayes")
    assert table.design.describe() == (
        "5×2 cross-validation (m = 5, K = 2, n = 569 records, folds of 284–285)"
    )
    assert table.design.complete and table.is_binary
    assert (df["loss"] == (df["truth"] != df["prediction"])).all()
    # each replication splits the 569 breast-cancer records in halves of 284 and 285
    assert table.train_sizes()["n_train"].tolist() == [285, 284] * 5


def test_unknown_and_missing_examples(monkeypatch):
    with pytest.raises(DataError, match="unknown example 'nope'; the examples are random, bcv"):
        load_example("nope")
    import cvreport.data.examples as examples

    monkeypatch.setitem(examples.EXAMPLES, "absent", "never made")
    with pytest.raises(FileNotFoundError, match=r"example_absent\.csv\.gz"):
        load_example("absent")


def test_design_is_hashable_and_comparable():
    table = ResultsTable(hand_frame())
    again = ResultsTable(shuffled(hand_frame()))
    assert table.design == again.design
    assert hash(table.design) == hash(again.design)
    assert isinstance(table.design, Design)
    assert str(table.design) == table.design.describe()


# --------------------------------------------------------------------------- layouts of the input


def expected_differences() -> list[list[float]]:
    return [[-0.5, -0.5], [0.5, 0.5]]


def test_model_major_layout_takes_the_blocked_route():
    # all of model a's rows, then model b's (as pandas.melt of a wide table gives them)
    df = hand_frame().sort_values(["model", "replication", "fold"], kind="stable")
    table = ResultsTable(df)
    assert table._route == "blocked"
    assert table.differences("a", "b").to_numpy().tolist() == expected_differences()


def test_models_listing_records_in_different_orders_are_aligned():
    df = hand_frame()
    df = pd.concat(
        [df[df.model == "a"], df[df.model == "b"].iloc[::-1]], ignore_index=True
    ).sort_values(["replication", "fold", "model"], kind="stable")
    table = ResultsTable(df)
    assert table._route == "regrouped"
    assert table.contingency("a", "b")["n00"].tolist() == [1, 0, 1, 0]
    assert table.differences("a", "b").to_numpy().tolist() == expected_differences()


def test_a_fold_split_over_two_runs_is_regrouped():
    df = hand_frame()
    df = pd.concat([df, df.iloc[:1]], ignore_index=True).drop(index=0)
    table = ResultsTable(df)
    assert table._route == "regrouped"
    assert table.differences("a", "b").to_numpy().tolist() == expected_differences()


def test_wide_record_ids_are_hashed():
    df = hand_frame()
    df["record"] = df["record"] * 10**12 + 5
    for frame, route in ((df, "blocked"), (shuffled(df), "regrouped")):
        table = ResultsTable(frame)
        assert table._route == route
        records, folds = table.membership()
        assert sorted(records.tolist()) == [5, 10**12 + 5, 2 * 10**12 + 5, 3 * 10**12 + 5]
        assert folds[records.tolist().index(10**12 + 5)].tolist() == [0, 1]
        assert table.differences("a", "b").to_numpy().tolist() == expected_differences()


def test_many_folds_of_binary_losses():
    # leave-one-out with 70 folds: fold codes do not fit beside the loss in one byte
    df = kfold_frame(1, 70, 70)
    ordered, mixed = ResultsTable(df), ResultsTable(shuffled(df))
    assert mixed._route == "regrouped" and mixed.design.K == 70
    np.testing.assert_array_equal(ordered.stats.both_wrong, mixed.stats.both_wrong)
    np.testing.assert_array_equal(ordered.stats.sums, mixed.stats.sums)


def test_missing_record_ids():
    df = hand_frame().astype({"record": float})
    df.loc[6, "record"] = np.nan
    with pytest.raises(
        DataError, match=r"record column 'record' has 1 missing value\(s\) \(rows 6\)"
    ):
        ResultsTable(df)


def test_the_repr_names_the_metric_as_a_reader_does_and_where_it_was_read():
    """The repr said "roc_auc 'roc_auc'" and "error rate 'loss'": a code name twice."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "replication": np.repeat([1, 2], 24),
            "fold": np.tile(np.repeat([1, 2], 12), 2),
            "model": np.tile(np.repeat(["a", "b"], 6), 4),
            "record": np.tile(np.r_[0:6], 8),
            "truth": np.tile([0, 1, 0, 1, 1, 0], 8),
            "proba": rng.uniform(size=48),
        }
    )
    frame["record"] = frame["record"] + 6 * (frame["fold"] - 1)
    auc = ResultsTable.from_predictions(frame, truth="truth", score="proba", metric="roc_auc")
    assert repr(auc).endswith("; AUC ('roc_auc'), higher is better>")
    frame["err"] = ((frame["proba"] > 0.5) != frame["truth"]).astype(int)
    assert repr(ResultsTable(frame, loss="err")).endswith("; error rate ('err'), lower is better>")
    frame["accuracy"] = 1 - frame["err"]
    accuracy = ResultsTable(frame, loss="accuracy")
    assert repr(accuracy).endswith("; accuracy, higher is better>")
