"""Roles resolved once, read by either backend; the constructors only adapt them."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport import ResultsTable
from cvreport.data.backends import EngineBackend, MemoryBackend, backend_for
from cvreport.data.roles import Roles
from cvreport.errors import DataError

DATA = Path(cvreport.__file__).parent / "data"


def _losses() -> pd.DataFrame:
    rng = np.random.default_rng(21)
    rows = [
        (r, f, m, i)
        for r in (1, 2)
        for f in (1, 2)
        for m in ("a", "b", "c")
        for i in range(f - 1, 40, 2)
    ]
    frame = pd.DataFrame(rows, columns=["rep", "fold", "clf", "id"])
    frame["loss"] = rng.integers(0, 2, frame.shape[0]).astype(float)
    return frame


def test_a_formula_and_the_keywords_resolve_to_the_same_roles():
    by_formula = Roles.from_formula("loss ~ clf | rep + fold", record="id")
    by_keywords = Roles.of_losses(
        loss="loss", model="clf", replication="rep", fold="fold", record="id"
    )
    for role in ("outcome", "response", "model", "replication", "fold", "record"):
        assert getattr(by_formula, role) == getattr(by_keywords, role)
    assert Roles.from_formula("auc ~ clf | fold", per_fold=True).record is None
    metric = Roles.from_formula("roc_auc(y, p) ~ clf | fold + cluster(user)", record="id")
    assert (metric.outcome, metric.truth, metric.score, metric.cluster) == (
        "metric",
        "y",
        "p",
        "user",
    )


def test_each_backend_gives_the_same_contents_for_the_same_roles():
    pytest.importorskip("polars")
    import polars as pl

    frame = _losses()
    roles = Roles.from_formula("loss ~ clf | rep + fold", record="id")
    memory, engine = backend_for(frame), backend_for(pl.from_pandas(frame).lazy())
    assert isinstance(memory, MemoryBackend) and isinstance(engine, EngineBackend)
    here, there = memory.contents(roles), engine.contents(roles)
    np.testing.assert_allclose(here.stats.sums, there.stats.sums, rtol=0, atol=1e-12)
    np.testing.assert_allclose(here.stats.sumsq, there.stats.sumsq, rtol=0, atol=1e-12)
    assert here.design == there.design
    # by hand: model a's errors in replication 1, fold 1
    first = frame.query("rep == 1 and fold == 1 and clf == 'a'")["loss"].sum()
    assert here.stats.sums[0, 0, 0] == first
    table = ResultsTable.from_formula("loss ~ clf | rep + fold", frame, record="id")
    np.testing.assert_allclose(table.stats.sums, here.stats.sums, rtol=0, atol=1e-12)


def test_an_unknown_engine_is_refused_for_a_backend_too():
    pytest.importorskip("polars")
    import polars as pl

    engine = backend_for(pl.from_pandas(_losses()).lazy())
    assert backend_for(engine, "duckdb") is engine
    with pytest.raises(DataError, match="unknown engine 'spreadsheet'"):
        backend_for(engine, "spreadsheet")


@pytest.mark.parametrize("module", ["table.py", "datasets.py"])
def test_the_constructors_do_not_branch_on_where_the_rows_are(module):
    tree = ast.parse((DATA / module).read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not imported & {"cvreport.data.engines", "cvreport.data.pushdown"}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not names & {"EngineSource", "resolve_source", "explain", "describe"}
