"""Per-fold 2×2 tables: the one function against direct counts, and every route through it.

The table's routes (fold blocks in memory, loss patterns counted from rows in any
order, loss patterns counted by an engine) and the simulator all count errors
their own way and turn them into tables with
:func:`cvreport.data.pair_counts.pair_tables`; each is checked here against
counts of the per-record losses written out with numpy.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest

import cvreport.data.pair_counts as pair_counts
from cvreport.data.pair_counts import (
    co_errors_from_patterns,
    pair_tables,
    pattern_errors,
    pattern_rows,
)
from cvreport.data.table import ResultsTable
from cvreport.simulate.aggregate import fold_statistics


def _direct_tables(la: np.ndarray, lb: np.ndarray) -> list[int]:
    """n00, n01, n10, n11 of two 0/1 loss vectors, counted record by record."""
    return [
        int(np.sum((la == 1) & (lb == 1))),
        int(np.sum((la == 1) & (lb == 0))),
        int(np.sum((la == 0) & (lb == 1))),
        int(np.sum((la == 0) & (lb == 0))),
    ]


def _random_frame(seed: int, m: int = 2, k: int = 3, n_models: int = 4, n: int = 90):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(m):
        folds = rng.permutation(np.arange(n) % k)
        for model in range(n_models):
            wrong = (rng.random(n) < 0.2 + 0.1 * model).astype(float)
            rows.append(
                pd.DataFrame(
                    {
                        "replication": i,
                        "fold": folds,
                        "model": f"m{model}",
                        "record": np.arange(n),
                        "loss": wrong,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def test_pair_tables_by_hand():
    # 10 records: 3 both wrong, A wrong 4 times, B wrong 3 times
    assert pair_tables(3, 4, 3, 10).tolist() == [3, 1, 0, 6]
    tables = pair_tables(np.array([[0, 2]]), np.array([[1, 2]]), np.array([[2, 5]]), 7)
    assert tables.shape == (1, 2, 4) and tables.dtype == np.int64
    assert tables.tolist() == [[[0, 1, 2, 4], [2, 0, 3, 2]]]


def test_pair_tables_equal_direct_counts_of_random_losses():
    rng = np.random.default_rng(3)
    la = (rng.random((5, 40)) < 0.3).astype(np.int64)
    lb = (rng.random((5, 40)) < 0.5).astype(np.int64)
    tables = pair_tables((la & lb).sum(axis=1), la.sum(axis=1), lb.sum(axis=1), 40)
    assert tables.tolist() == [_direct_tables(la[r], lb[r]) for r in range(5)]
    assert (tables.sum(axis=-1) == 40).all()


def test_pattern_rows_and_co_errors_equal_direct_counts():
    rng = np.random.default_rng(8)
    n_models, n_folds = 3, 2
    losses = (rng.random((n_models, 50)) < 0.4).astype(np.int64)
    fold = rng.integers(0, n_folds, 50)
    bits = sum(losses[k] << k for k in range(n_models))
    tally = np.bincount(fold * (1 << n_models) + bits, minlength=n_folds << n_models)
    rows = pattern_rows(0, tally, n_models)
    assert rows[:, 3].sum() == 50 and (rows[:, 3] > 0).all()
    _, wrong = pattern_errors(rows, n_models)
    assert (wrong == (rows[:, 2:3] >> np.arange(n_models)) & 1).all()
    co = co_errors_from_patterns(rows, (1, n_folds, n_models))
    for j in range(n_folds):
        x = losses[:, fold == j]
        np.testing.assert_array_equal(co[0, j], x @ x.T)
        tables = pair_tables(co[0, j, 0, 2], co[0, j, 0, 0], co[0, j, 2, 2], x.shape[1])
        assert tables.tolist() == _direct_tables(x[0], x[2])


@pytest.mark.parametrize("route", ["cv-loop", "shuffled", "polars engine"])
def test_every_table_route_makes_its_tables_with_the_one_function(route):
    frame = _random_frame(4)
    data = frame
    if route != "cv-loop":
        frame = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
        data = frame
    if route == "polars engine":
        pl = pytest.importorskip("polars")
        data = pl.from_pandas(frame)
    with mock.patch("cvreport.data.sufficient.pair_tables", wraps=pair_counts.pair_tables) as spy:
        table = ResultsTable(data)
        counts = table.contingency("m0", "m3")
    assert spy.call_count >= 1
    if route == "polars engine":
        assert table._route.startswith("engine")
    expected = []
    for (_, _), cell in frame.groupby(["replication", "fold"]):
        wide = cell.pivot(index="record", columns="model", values="loss")
        expected.append(_direct_tables(wide["m0"].to_numpy(), wide["m3"].to_numpy()))
    assert counts[["n00", "n01", "n10", "n11"]].to_numpy().tolist() == expected


def test_the_simulator_makes_its_tables_with_the_one_function():
    rng = np.random.default_rng(5)
    template = np.array([[0, 1, 2, 0, 1, 2, 0, 1, -1, 2]])
    a = (rng.random((4, 10)) < 0.5).astype(np.int8)
    b = (rng.random((4, 10)) < 0.5).astype(np.int8)
    with mock.patch(
        "cvreport.simulate.aggregate.pair_tables", wraps=pair_counts.pair_tables
    ) as spy:
        stats = fold_statistics(a, b, template, 3, binary=True)
    assert spy.call_count == 1
    for r in range(4):
        for j in range(3):
            here = template[0] == j
            assert stats.tables[r, 0, j].tolist() == _direct_tables(a[r, here], b[r, here])
