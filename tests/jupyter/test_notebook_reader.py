"""A notebook written from predictions shows the metric as the reader knows it."""

from __future__ import annotations

from pathlib import Path

import nbformat
from sklearn.metrics import roc_auc_score

from cvreport.jupyter import notebook
from tests.cli._inputs import predictions
from tests.jupyter.test_notebooks import execute, outputs


def test_a_notebook_of_aucs_from_predictions_shows_each_folds_auc_not_its_negation(
    tmp_path: Path,
) -> None:
    """Was: the fold table of a notebook over ``roc_auc(y, proba)`` with no direction given
    showed -1.000000, -0.994987, … under "the mean loss of every model on every fold"."""
    frame = predictions()
    data = tmp_path / "predictions.csv"
    frame.to_csv(data, index=False)
    target = notebook.write(
        tmp_path / "auc.ipynb", data=data, formula="roc_auc(y, proba) ~ model | replication + fold"
    )
    cells = {c.id: c.source for c in nbformat.read(target, as_version=4).cells}
    assert "HIGHER_IS_BETTER" not in cells["setup"]  # the direction is the table's to infer
    built = outputs(execute(target, tmp_path), "build-table")["text/plain"]
    by_fold = frame.groupby(["replication", "fold", "model"]).apply(
        lambda g: roc_auc_score(g["y"], g["proba"])
    )
    worst = by_fold.min()  # the weakest fold's AUC, below 1
    assert 0.5 < worst < 1
    assert f"{worst:.6f}" in built and f"-{worst:.6f}" not in built
    assert not any(line.strip().startswith("-") for line in built.splitlines())
    words = [c for c in nbformat.read(target, as_version=4).cells if c.cell_type == "markdown"]
    text = " ".join(c.source for c in words)
    assert "below, the mean loss of every model" not in text
