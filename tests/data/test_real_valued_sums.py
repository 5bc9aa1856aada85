"""Real-valued losses in rows of any order: the per-fold sums against exact recomputations.

On the regrouping route, real-valued losses are summed per (replication, fold,
model) cell in the order of the rows while their folds are scattered; where two
models' sums on a fold are close enough for their exact sums to be equal, they
are summed again in record order from a (model, replication, record) cube.
Checked here against a pandas groupby summed exactly (``math.fsum``, correctly
rounded), against the record-order sums of the cube, and, for models with the
same loss on every record, for exact equality whatever the order of the rows.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cvreport.data.layout as layout_module
from cvreport.data.table import ResultsTable

KEYS = dict(model="model", replication="replication", fold="fold", record="record")
RELATIVE = 1e-12  # the sums' error, relative to the sum of the absolute losses


def _losses(
    m: int, n_folds: int, n_models: int, n_records: int, *, seed: int, style: str, signed: bool
) -> pd.DataFrame:
    """Real-valued losses of m replications × n_folds folds, rows shuffled.

    Each replication draws its records from a pool twice their number, so records
    differ between replications; ``style`` gives the record ids' type.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for replication in range(m):
        records = rng.choice(2 * n_records, size=n_records, replace=False)
        folds = rng.permutation(np.arange(n_records) % n_folds)
        for k in range(n_models):
            loss = rng.gamma(2.0, 0.3 + 0.1 * k, n_records)
            if signed:
                loss -= 0.9
            parts.append(
                pd.DataFrame(
                    {
                        "replication": replication + 1,
                        "fold": folds + 1,
                        "model": f"model_{n_models - 1 - k}",
                        "record": records,
                        "loss": loss,
                    }
                )
            )
    frame = pd.concat(parts, ignore_index=True)
    if style == "text":
        frame["record"] = frame["record"].map(lambda r: f"id-{r}").astype("str")
    elif style == "category":
        frame["record"] = frame["record"].astype(str).astype("category")
    elif style == "spread":  # ids far apart: hashed, not coded by offset
        frame["record"] = frame["record"] * 1_000_003 + 7
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


def _exact(table: ResultsTable, frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per (replication, fold, model): exact sums (``math.fsum``) of the losses, of their
    squares (each rounded as numpy rounds ``x * x``) and of their absolute values."""
    shape = (len(table.replications), len(table.folds), len(table.models))
    out = {name: np.zeros(shape) for name in ("sums", "sumsq", "absolute", "counts")}
    grouped = frame.groupby(["replication", "fold", "model"], observed=True)["loss"]
    for (rep, fold, model), values in grouped:
        x = values.to_numpy()
        at = (table.replications.index(rep), table.folds.index(fold), table.models.index(model))
        out["sums"][at] = math.fsum(x)
        out["sumsq"][at] = math.fsum(x * x)
        out["absolute"][at] = math.fsum(np.abs(x))
        out["counts"][at] = x.shape[0]
    return out


def _assert_close_to_exact(table: ResultsTable, frame: pd.DataFrame) -> None:
    exact = _exact(table, frame)
    stats = table.stats
    np.testing.assert_array_equal(stats.counts, exact["counts"])
    assert (np.abs(stats.sums - exact["sums"]) <= RELATIVE * exact["absolute"]).all()
    np.testing.assert_allclose(stats.sumsq, exact["sumsq"], rtol=RELATIVE)
    n = exact["counts"][:, :, 0]
    for a in range(len(table.models)):
        for b in range(len(table.models)):
            expected = (exact["sums"][:, :, a] - exact["sums"][:, :, b]) / n
            scale = (exact["absolute"][:, :, a] + exact["absolute"][:, :, b]) / n
            assert (np.abs(stats.differences(a, b) - expected) <= RELATIVE * scale).all()


def _never_from_the_cube(*args):
    raise AssertionError("summed from the cube: the sums of the rows were expected")


SHAPES = [
    pytest.param(5, 2, 2, 3000, "integer", False, id="5x2-integer"),
    pytest.param(1, 10, 3, 2000, "text", True, id="10-fold-text-signed"),
    pytest.param(3, 3, 5, 1500, "category", False, id="3x3-category-5-models"),
    pytest.param(2, 1, 4, 800, "spread", True, id="hold-out-spread-ids-signed"),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(("m", "n_folds", "n_models", "n_records", "style", "signed"), SHAPES)
def test_sums_of_shuffled_rows_equal_an_exact_groupby(
    m, n_folds, n_models, n_records, style, signed, sparse
):
    frame = _losses(
        m, n_folds, n_models, n_records, seed=m + 7 * n_folds, style=style, signed=signed
    )
    slack = 0 if sparse else layout_module._DENSE_SLACK
    with (
        mock.patch.object(layout_module, "_DENSE_SLACK", slack),
        mock.patch.object(layout_module, "_cube_sums", _never_from_the_cube),
    ):
        table = ResultsTable(frame)
    assert table._route == "regrouped" and not table.is_binary
    _assert_close_to_exact(table, frame)


@pytest.mark.parametrize(("m", "n_folds", "n_models", "n_records", "style", "signed"), SHAPES)
def test_sums_of_the_rows_equal_the_record_order_sums_of_the_cube(
    m, n_folds, n_models, n_records, style, signed
):
    frame = _losses(
        m, n_folds, n_models, n_records, seed=3 * m + n_folds, style=style, signed=signed
    )
    with mock.patch.object(layout_module, "_cube_sums", _never_from_the_cube):
        rows = ResultsTable(frame).stats
    with mock.patch.object(layout_module, "_may_be_equal", lambda *args: True):
        cube = ResultsTable(frame)  # every fold summed again in record order
    absolute = _exact(cube, frame)["absolute"]
    assert (np.abs(rows.sums - cube.stats.sums) <= 2 * RELATIVE * absolute).all()
    np.testing.assert_allclose(rows.sumsq, cube.stats.sumsq, rtol=2 * RELATIVE)
    np.testing.assert_array_equal(rows.counts, cube.stats.counts)
    assert rows.patterns is not None and cube.stats.patterns is not None
    np.testing.assert_array_equal(rows.patterns.patterns, cube.stats.patterns.patterns)
    np.testing.assert_array_equal(rows.patterns.counts, cube.stats.patterns.counts)


def _spread_losses(rng: np.random.Generator, size: int) -> np.ndarray:
    """Losses over many orders of magnitude, so that the order of a sum changes its rounding."""
    return np.exp(rng.normal(0.0, 6.0, size)) * rng.choice([-1.0, 1.0], size)


def test_models_with_equal_losses_get_equal_sums_whatever_the_order_of_the_rows():
    frame = _losses(3, 2, 3, 4000, seed=11, style="integer", signed=False)
    rng = np.random.default_rng(5)
    frame["loss"] = _spread_losses(rng, len(frame))
    # model_1 copies model_0 record by record; model_2 copies model_0 on fold 1 only
    keys = ["replication", "record"]
    first = frame[frame["model"] == "model_0"].set_index(keys)["loss"]
    for model, where in (("model_1", True), ("model_2", frame["fold"] == 1)):
        copy = ((frame["model"] == model) & where).to_numpy()
        at = pd.MultiIndex.from_frame(frame.loc[copy, keys])
        frame.loc[copy, "loss"] = first.reindex(at).to_numpy()
    # the sums in the order of the rows differ between copies: equality needs the cube
    row_codes = tuple(
        pd.factorize(frame[column], sort=True)[0].astype(np.int32)
        for column in ("replication", "fold", "model", "record")
    )
    grid = (3, 2, 3, int(row_codes[3].max()) + 1)
    scattered = layout_module._scatter(
        frame["loss"].to_numpy(), row_codes, grid, False, sum_cells=True
    )
    assert scattered is not None and scattered.sums is not None
    assert (scattered.sums[:, :, 0] != scattered.sums[:, :, 1]).any()

    table = ResultsTable(frame)
    a, b, c = (table.models.index(name) for name in ("model_0", "model_1", "model_2"))
    assert (table.stats.differences(a, b) == 0).all()
    assert (table.stats.sumsq[:, :, a] == table.stats.sumsq[:, :, b]).all()
    fold_1 = table.folds.index(1)
    assert (table.stats.differences(a, c)[:, fold_1] == 0).all()
    assert (table.stats.differences(a, c)[:, 1 - fold_1] != 0).all()
    _assert_close_to_exact(table, frame)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_records=st.integers(2, 300),
    n_models=st.integers(2, 4),
    chunk=st.sampled_from([8, 64, 1 << 16]),
    scale=st.sampled_from([1.0, 1e-170, 1e100]),  # 1e-170: the squares fall below float range
    seed=st.integers(0, 2**32 - 1),
)
def test_copied_models_are_never_missed_by_the_rounding_bound(
    n_records, n_models, chunk, scale, seed
):
    rng = np.random.default_rng(seed)
    records = np.arange(n_records)
    folds = records % 2
    first = scale * _spread_losses(rng, n_records)
    parts = []
    for k in range(n_models):
        # model 1 copies model 0
        loss = first if k < 2 else scale * _spread_losses(rng, n_records)
        parts.append(
            pd.DataFrame({"fold": folds, "model": f"m{k}", "record": records, "loss": loss})
        )
    frame = pd.concat(parts, ignore_index=True)
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    with mock.patch.object(layout_module, "_CHUNK", chunk):  # a sum of many chunks, or one
        table = ResultsTable(frame, replication=None)
    a, b = table.models.index("m0"), table.models.index("m1")
    assert (table.stats.differences(a, b) == 0).all()
    assert (table.stats.sumsq[:, :, a] == table.stats.sumsq[:, :, b]).all()


def test_many_cells_are_summed_from_the_cube():
    frame = _losses(2, 5, 3, 400, seed=2, style="integer", signed=True)
    calls = []
    summed_from_cube = layout_module._cube_sums

    def counting(*args):
        calls.append(1)
        return summed_from_cube(*args)

    # 2 × 5 × 3 = 30 cells; with chunks of 64 rows only 8 are summed while scattering
    with (
        mock.patch.object(layout_module, "_CHUNK", 64),
        mock.patch.object(layout_module, "_cube_sums", counting),
    ):
        table = ResultsTable(frame)
    assert calls == [1]
    _assert_close_to_exact(table, frame)


@pytest.mark.parametrize("sparse", [False, True])
def test_blocks_laid_out_on_request_hold_every_rows_loss(sparse):
    frame = _losses(3, 2, 3, 500, seed=4, style="integer", signed=True)
    loss = frame["loss"].to_numpy()
    slack = 0 if sparse else layout_module._DENSE_SLACK
    with mock.patch.object(layout_module, "_DENSE_SLACK", slack):
        layout = layout_module.build_record_layout(
            frame, loss, loss_what="loss", allow_blocked=False, **KEYS
        )
    assert layout.summed is not None and "_laid_out" not in vars(layout)
    # laid out now, after the patch: the slots must be numbered as when the rows were read
    expected = frame.set_index(["replication", "fold", "model", "record"])["loss"]
    seen = 0
    for block in layout.blocks:
        rep, fold = layout.replications[block.replication], layout.folds[block.fold]
        records = layout.records.take(block.records)
        for k, model in enumerate(layout.models):
            index = pd.MultiIndex.from_arrays(
                [
                    np.full(block.size, rep),
                    np.full(block.size, fold),
                    np.full(block.size, model, dtype=object),
                    records,
                ]
            )
            np.testing.assert_array_equal(block.losses[k], expected.reindex(index).to_numpy())
            seen += block.size
    assert seen == len(frame)
    for block in layout.blocks:
        i, j = block.replication, block.fold
        np.testing.assert_allclose(
            block.losses.sum(axis=1), layout.summed.sums[i, j], rtol=RELATIVE
        )
