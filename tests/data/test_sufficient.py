"""Sufficient statistics: property tests against naive pandas recomputations.

Random cross-validation designs (1–3 replications, 1–3 folds, 2–4 models, records
that may differ between replications, 0/1 or real losses, integer, string or
categorical labels) are built in the order a CV loop writes them and in random
order; the statistics must not depend on the order of the rows or on the route
the table took, and must equal a groupby / crosstab recomputation.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cvreport.data.layout as validation
from cvreport.data.sufficient import (
    FoldBlock,
    SufficientStatistics,
    counted_statistics,
    fold_score_statistics,
    sufficient_statistics,
)
from cvreport.data.table import ResultsTable
from cvreport.data.validation import column_is_binary, is_binary
from cvreport.errors import DataError

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass
class Case:
    frame: pd.DataFrame  # in CV-loop order
    binary: bool
    seed: int

    def shuffled(self) -> pd.DataFrame:
        order = np.random.default_rng(self.seed).permutation(len(self.frame))
        return self.frame.iloc[order].reset_index(drop=True)


def _labels(style: str, prefix: str, values: np.ndarray) -> object:
    if style == "int0":
        return values
    if style == "int1":
        return values + 1
    if style == "str":
        return np.array([f"{prefix}{v}" for v in values], dtype=object)
    return pd.Categorical([f"{prefix}{v}" for v in values])


@st.composite
def cv_cases(draw) -> Case:
    m = draw(st.integers(1, 3))
    n_folds = draw(st.integers(1, 3))
    n_models = draw(st.integers(2, 4))
    n = draw(st.integers(n_folds, 9))  # records per replication
    pool = n + draw(st.integers(0, 4))  # record ids a replication draws from
    binary = draw(st.booleans())
    style = draw(st.sampled_from(["int0", "int1", "str", "category"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(m):
        records = rng.permutation(pool)[:n]
        folds = rng.permutation(np.r_[np.arange(n_folds), rng.integers(0, n_folds, n - n_folds)])
        for j in range(n_folds):
            in_fold = np.sort(records[folds == j])
            for k in range(n_models):
                size = in_fold.shape[0]
                loss = (
                    rng.integers(0, 2, size).astype(float)
                    if binary
                    else np.round(rng.normal(size=size), 3)
                )
                parts.append(
                    pd.DataFrame({"r": i, "f": j, "k": k, "rec": in_fold, "loss": loss}, copy=True)
                )
    raw = pd.concat(parts, ignore_index=True)
    frame = pd.DataFrame(
        {
            "replication": _labels(style, "rep", raw["r"].to_numpy()),
            "fold": _labels(style, "fold", raw["f"].to_numpy()),
            "model": _labels(style, "model", raw["k"].to_numpy()),
            "record": _labels(style, "id", raw["rec"].to_numpy() * 7 + 3),
            "loss": raw["loss"],
        }
    )
    return Case(frame, binary, seed)


def naive_statistics(table: ResultsTable, frame: pd.DataFrame):
    """(sums, sumsq, counts) recomputed with a pandas groupby, in the table's label order."""
    frame = frame.assign(square=frame["loss"] ** 2)
    grouped = frame.groupby(["replication", "fold", "model"], observed=True)
    aggregated = grouped.agg(sums=("loss", "sum"), sumsq=("square", "sum"), counts=("loss", "size"))
    shape = (len(table.replications), len(table.folds), len(table.models))
    arrays = {name: np.zeros(shape) for name in ("sums", "sumsq", "counts")}
    for (rep, fold, model), row in aggregated.iterrows():
        at = (table.replications.index(rep), table.folds.index(fold), table.models.index(model))
        for name in arrays:
            arrays[name][at] = row[name]
    return arrays["sums"], arrays["sumsq"], arrays["counts"]


def assert_same_statistics(a: SufficientStatistics, b: SufficientStatistics, exact: bool):
    compare = np.testing.assert_array_equal if exact else np.testing.assert_allclose
    compare(a.sums, b.sums)
    compare(a.sumsq, b.sumsq)
    np.testing.assert_array_equal(a.counts, b.counts)
    assert (a.both_wrong is None) == (b.both_wrong is None)
    if a.both_wrong is not None:
        np.testing.assert_array_equal(a.both_wrong, b.both_wrong)


@SETTINGS
@given(cv_cases())
def test_statistics_equal_a_naive_groupby(case):
    for frame in (case.frame, case.shuffled()):
        table = ResultsTable(frame)
        sums, sumsq, counts = naive_statistics(table, frame)
        np.testing.assert_allclose(table.stats.sums, sums, atol=1e-9)
        np.testing.assert_allclose(table.stats.sumsq, sumsq, atol=1e-9)
        np.testing.assert_array_equal(table.stats.counts, counts)
        assert table.is_binary == case.binary


@SETTINGS
@given(cv_cases())
def test_shuffling_rows_never_changes_the_statistics(case):
    ordered = ResultsTable(case.frame)
    shuffled = ResultsTable(case.shuffled())
    assert shuffled.models == ordered.models or set(shuffled.models) == set(ordered.models)
    # align model order (it follows first appearance) before comparing
    order = [shuffled.models.index(model) for model in ordered.models]
    reordered = SufficientStatistics(
        sums=shuffled.stats.sums[:, :, order],
        sumsq=shuffled.stats.sumsq[:, :, order],
        counts=shuffled.stats.counts[:, :, order],
        both_wrong=(
            None
            if shuffled.stats.both_wrong is None
            else shuffled.stats.both_wrong[:, :, order][:, :, :, order]
        ),
    )
    assert_same_statistics(ordered.stats, reordered, exact=case.binary)
    assert shuffled.design == ordered.design


@SETTINGS
@given(cv_cases(), st.booleans())
def test_both_routes_give_the_same_layout(case, sparse):
    kwargs = dict(model="model", replication="replication", fold="fold", record="record")
    frame = case.frame
    loss = frame["loss"].to_numpy()
    blocked = validation.build_record_layout(frame, loss, loss_what="loss", **kwargs)
    slack = 0 if sparse else validation._DENSE_SLACK
    with mock.patch.object(validation, "_DENSE_SLACK", slack):
        regrouped = validation.build_record_layout(
            frame, loss, loss_what="loss", allow_blocked=False, **kwargs
        )
    assert regrouped.route == "regrouped"
    for attribute in ("replications", "folds", "models", "records"):
        assert getattr(blocked, attribute).equals(getattr(regrouped, attribute))
    np.testing.assert_array_equal(blocked.membership, regrouped.membership)
    shape = (len(blocked.replications), len(blocked.folds), len(blocked.models))
    stats = [
        sufficient_statistics(layout.blocks, shape, binary=layout.is_binary)
        for layout in (blocked, regrouped)
    ]
    assert_same_statistics(*stats, exact=case.binary)
    assert (regrouped.counted is not None) == case.binary
    if case.binary:  # the counted patterns give what the blocks give
        assert_same_statistics(stats[0], counted_statistics(*regrouped.counted, shape), exact=True)


def _shuffled_errors(n_models: int, n_folds: int, seed: int) -> pd.DataFrame:
    """0/1 losses of 3 replications × n_folds folds, 40 of 200 record ids each, rows shuffled."""
    rng = np.random.default_rng(seed)
    parts = []
    for replication in range(3):
        records = rng.choice(200, size=40, replace=False)
        folds = rng.permutation(np.arange(40) % n_folds)
        for k in range(n_models):
            parts.append(
                pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": folds,
                        "model": f"m{(k * 7) % n_models}",  # first rows need not be model 0
                        "record": records,
                        "loss": (rng.random(40) < 0.1 + 0.05 * (k % 5)).astype(float),
                    }
                )
            )
    frame = pd.concat(parts, ignore_index=True)
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(("n_models", "n_folds"), [(2, 1), (2, 10), (5, 3), (12, 2), (13, 2)])
def test_counted_patterns_give_the_statistics_of_the_blocks(n_models, n_folds, sparse):
    frame = _shuffled_errors(n_models, n_folds, seed=n_models * 31 + n_folds)
    kwargs = dict(model="model", replication="replication", fold="fold", record="record")
    with mock.patch.object(validation, "_DENSE_SLACK", 0 if sparse else validation._DENSE_SLACK):
        layout = validation.build_record_layout(
            frame, frame["loss"].to_numpy(), loss_what="loss", allow_blocked=False, **kwargs
        )
    shape = (3, n_folds, n_models)
    # up to 12 models the statistics are counted; the blocks are laid out only on request
    assert (layout.counted is not None) == (n_models <= 12)
    if layout.counted is not None:
        assert "_laid_out" not in vars(layout)  # nothing laid out yet
    from_blocks = sufficient_statistics(
        layout.blocks, shape, binary=True, membership=layout.membership
    )
    if layout.counted is None:
        return
    counted = counted_statistics(*layout.counted, shape)
    assert_same_statistics(from_blocks, counted, exact=True)
    assert from_blocks.patterns is not None and counted.patterns is not None
    np.testing.assert_array_equal(from_blocks.patterns.patterns, counted.patterns.patterns)
    np.testing.assert_array_equal(from_blocks.patterns.counts, counted.patterns.counts)
    assert len(layout.records) == counted.patterns.n_records == frame["record"].nunique()
    # and both equal a direct count of the rows
    expected = frame.groupby(["replication", "fold", "model"])["loss"].agg(["sum", "size"])
    for (i, j, model), (errors, size) in expected.iterrows():
        k = layout.models.get_loc(model)
        assert counted.sums[i, j, k] == errors and counted.counts[i, j, k] == size


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(("n_models", "n_folds"), [(2, 1), (3, 10), (5, 3)])
def test_summed_real_losses_give_the_statistics_of_the_blocks(n_models, n_folds, sparse):
    frame = _shuffled_errors(n_models, n_folds, seed=n_models * 17 + n_folds)
    rng = np.random.default_rng(n_models)
    frame["loss"] = np.round(rng.exponential(0.4, len(frame)), 6)
    # model "m1" copies "m0" record by record: their sums must be equal, not just close
    keys = ["replication", "record"]
    copied = frame[frame["model"] == "m0"].set_index(keys)["loss"]
    is_m1 = (frame["model"] == "m1").to_numpy()
    at = pd.MultiIndex.from_frame(frame.loc[is_m1, keys])
    frame.loc[is_m1, "loss"] = copied.reindex(at).to_numpy()
    kwargs = dict(model="model", replication="replication", fold="fold", record="record")
    with mock.patch.object(validation, "_DENSE_SLACK", 0 if sparse else validation._DENSE_SLACK):
        layout = validation.build_record_layout(
            frame, frame["loss"].to_numpy(), loss_what="loss", allow_blocked=False, **kwargs
        )
    assert layout.counted is None and layout.summed is not None
    assert "_laid_out" not in vars(layout)  # nothing laid out yet
    shape = (3, n_folds, n_models)
    summed = layout.summed
    from_blocks = sufficient_statistics(
        layout.blocks, shape, binary=False, membership=layout.membership
    )
    assert_same_statistics(from_blocks, summed, exact=False)
    np.testing.assert_array_equal(from_blocks.patterns.patterns, summed.patterns.patterns)
    np.testing.assert_array_equal(from_blocks.patterns.counts, summed.patterns.counts)
    a, b = layout.models.get_loc("m0"), layout.models.get_loc("m1")
    assert (summed.differences(a, b) == 0).all()
    # and both equal a direct groupby of the rows (the blocks' models in the table's order)
    expected = frame.groupby(["replication", "fold", "model"])["loss"].agg(["sum", "size"])
    for (i, j, model), (total, size) in expected.iterrows():
        k = layout.models.get_loc(model)
        assert summed.sums[i, j, k] == pytest.approx(total, rel=1e-12)
        assert summed.counts[i, j, k] == size
        block = next(b for b in layout.blocks if (b.replication, b.fold) == (i, j))
        assert block.losses[k].sum() == pytest.approx(total, rel=1e-12)


@settings(SETTINGS, max_examples=20)
@given(cv_cases().filter(lambda case: case.binary))
def test_pair_counts_equal_a_direct_crosstab(case):
    frame = case.shuffled()
    table = ResultsTable(frame)
    for a, b in itertools.combinations(table.models, 2):
        counts = table.contingency(a, b).set_index(["replication", "fold"])
        for (rep, fold), fold_rows in frame.groupby(["replication", "fold"], observed=True):
            wide = fold_rows.pivot(index="record", columns="model", values="loss")
            cross = pd.crosstab(wide[a], wide[b]).reindex(
                index=[0.0, 1.0], columns=[0.0, 1.0], fill_value=0
            )
            expected = [cross.loc[1, 1], cross.loc[1, 0], cross.loc[0, 1], cross.loc[0, 0]]
            assert counts.loc[(rep, fold)].tolist() == expected
        swapped = table.contingency(b, a)
        assert swapped["n01"].tolist() == counts["n10"].tolist()


@SETTINGS
@given(cv_cases())
def test_membership_and_record_differences_equal_naive_lookups(case):
    frame = case.shuffled()
    table = ResultsTable(frame)
    records, folds = table.membership()
    first_model = frame[frame["model"] == table.models[0]]
    expected = {
        (rec, rep): table.folds.index(fold)
        for rep, fold, rec in first_model[["replication", "fold", "record"]].itertuples(index=False)
    }
    for r, record in enumerate(records.tolist()):
        for i, rep in enumerate(table.replications):
            assert folds[r, i] == expected.get((record, rep), -1)
    a, b = table.models[:2]
    wide = frame.pivot_table(
        index=["replication", "fold", "record"], columns="model", values="loss", observed=True
    )
    naive = (wide[a] - wide[b]).rename("difference").reset_index()
    got = table.record_differences(a, b)
    merged = naive.merge(got, on=["replication", "fold", "record"], suffixes=("", "_table"))
    assert len(merged) == len(naive) == len(got)
    np.testing.assert_allclose(merged["difference"], merged["difference_table"], atol=1e-12)


@SETTINGS
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(2, 4),
    st.integers(0, 2**32 - 1),
)
def test_fold_score_statistics_equal_the_scores(m, n_folds, n_models, seed):
    rng = np.random.default_rng(seed)
    cells = list(itertools.product(range(m), range(n_folds), range(n_models)))
    frame = pd.DataFrame(cells, columns=["replication", "fold", "model"])
    frame["value"] = rng.random(len(frame))
    shuffled = frame.iloc[rng.permutation(len(frame))]
    table = ResultsTable.from_fold_scores(shuffled, score="value", direction="lower")
    grid = np.zeros((m, n_folds, n_models))
    order = list(table.models)
    for rep, fold, model, score in frame.itertuples(index=False):
        grid[rep, fold, order.index(model)] = score
    np.testing.assert_array_equal(table.stats.sums, grid)
    np.testing.assert_array_equal(table.stats.sumsq, grid**2)
    assert (table.stats.counts == 1).all()


def test_one_matrix_product_gives_every_pair():
    # three models on five records: both-wrong counts by hand
    x = np.array([[1, 1, 0, 0, 1], [1, 0, 1, 0, 0], [0, 0, 0, 0, 0]], dtype=float)
    block = FoldBlock(0, 0, np.arange(5, dtype=np.int32), x)
    stats = sufficient_statistics([block], (1, 1, 3), binary=True)
    assert stats.both_wrong[0, 0].tolist() == [[3, 1, 0], [1, 2, 0], [0, 0, 0]]
    assert stats.pair_counts(0, 1)[0, 0].tolist() == [1, 2, 1, 1]
    assert stats.pair_counts(1, 0)[0, 0].tolist() == [1, 1, 2, 1]
    assert stats.sums[0, 0].tolist() == [3, 2, 0]


def test_real_losses_have_sums_squares_and_no_pair_counts():
    x = np.array([[0.5, 2.0, -1.0], [1.0, 1.0, 1.0]])
    stats = sufficient_statistics(
        [FoldBlock(0, 0, np.arange(3, dtype=np.int32), x)], (1, 1, 2), binary=False
    )
    assert stats.sums[0, 0].tolist() == [1.5, 3.0]
    assert stats.sumsq[0, 0].tolist() == [5.25, 3.0]
    assert stats.both_wrong is None
    assert stats.differences(0, 1)[0, 0] == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="0/1 losses"):
        stats.pair_counts(0, 1)


def test_fold_score_statistics_function():
    stats = fold_score_statistics(np.array([[[0.25, -1.0]]]))
    assert stats.sums.tolist() == [[[0.25, -1.0]]]
    assert stats.sumsq.tolist() == [[[0.0625, 1.0]]]
    assert stats.counts.tolist() == [[[1, 1]]]


@pytest.mark.parametrize("binary", [True, False])
def test_replication_and_fold_labels_with_gaps_give_the_same_statistics(binary):
    """Integer labels are coded by offset over their range; labels of the range that no
    row uses (replications 10, 30, 70; folds 1 and 5) are dropped before the design check."""
    frame = _shuffled_errors(3, 2, seed=5)
    if not binary:
        frame["loss"] = frame["loss"] * 0.25 + np.linspace(0, 1, len(frame))
    gapped = frame.assign(
        replication=frame["replication"].map({0: 10, 1: 30, 2: 70}),
        fold=frame["fold"].map({0: 1, 1: 5}),
    )
    plain, table = ResultsTable(frame), ResultsTable(gapped)
    assert (table.replications, table.folds) == ((10, 30, 70), (1, 5))
    assert table.models == plain.models
    assert_same_statistics(plain.stats, table.stats, exact=True)
    np.testing.assert_array_equal(plain.membership()[1], table.membership()[1])
    broken = pd.concat([gapped, gapped.iloc[[7]]], ignore_index=True)
    with pytest.raises(DataError, match=r"1 \(replication, fold, model, record\) key\(s\) appear"):
        ResultsTable(broken)


@pytest.mark.parametrize(
    ("values", "binary"),
    [
        (np.array([0, 1, 1], dtype=np.int8), True),
        (np.array([True, False]), True),
        (np.array([0, 2], dtype=np.uint8), False),
        (np.array([-1, 0], dtype=np.int64), False),
        (np.array([0.0, 1.0]), True),
        (np.array([0.0, 0.5]), False),
    ],
)
def test_a_column_is_binary_in_its_own_dtype_as_in_float64(values, binary):
    series = pd.Series(values)
    as_float = series.to_numpy(dtype=np.float64)
    assert column_is_binary(series, as_float) == is_binary(as_float) == binary
    frame = _shuffled_errors(2, 2, seed=1)
    frame["loss"] = pd.Series(values).take(np.arange(len(frame)) % len(values)).to_numpy()
    assert ResultsTable(frame).is_binary == binary
