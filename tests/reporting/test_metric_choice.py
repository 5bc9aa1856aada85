"""The report recommends the test that fits the table's metric, and says why."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.methods.recommendation import recommendation, recommendation_for


def _frame(folds: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 120
    y = rng.integers(0, 2, n)
    frames = []
    for model, strength in (("A", 0.5), ("B", 0.3)):
        p = (strength * y + rng.random(n)) / 1.5
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "record": np.arange(n),
                    "fold": np.arange(n) % folds,
                    "doc": np.arange(n) // 6,
                    "y": y,
                    "p": p,
                    "yhat": (p > 0.4).astype(int),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _table(folds: int, **kwargs) -> cvreport.ResultsTable:
    fold = None if folds == 1 else "fold"
    return cvreport.ResultsTable.from_predictions(
        _frame(folds), truth="y", replication=None, fold=fold, **kwargs
    )


@pytest.mark.parametrize(
    ("folds", "kwargs", "names", "words"),
    [
        (1, {"score": "p", "metric": "roc_auc"}, ("delong_test",), "DeLong"),
        (1, {"prediction": "yhat", "metric": "f1"}, ("paired_bootstrap_test",), "bootstrap"),
        # accuracy's 0/1 hits are 0/1 errors inside: McNemar's test, as for any 0/1 loss
        (1, {"prediction": "yhat", "metric": "accuracy"}, ("mcnemar",), "mean of per-record"),
        (
            1,
            {"prediction": "yhat", "metric": "accuracy", "cluster": "doc"},
            ("clustered_paired_test",),
            "Miller 2024",
        ),
        (
            1,
            {"score": "p", "metric": "roc_auc", "cluster": "doc"},
            ("paired_bootstrap_test",),
            "whole clusters",
        ),
        (
            4,
            {"prediction": "yhat", "metric": "matthews_corrcoef"},
            ("corrected_repeated_kfold_ttest",),
            "computed once per fold",
        ),
        (
            4,
            {"score": "p", "metric": "log_loss"},
            ("corrected_repeated_kfold_ttest",),
            "usual tests apply",
        ),
    ],
)
def test_recommendation_fits_the_metric(folds, kwargs, names, words):
    choice = recommendation_for(_table(folds, **kwargs))
    assert choice.names == names
    assert words in choice.reason


def test_a_plain_loss_table_keeps_todays_recommendation():
    table = cvreport.ResultsTable(
        pd.DataFrame({"model": ["a", "b"] * 2, "record": [0, 0, 1, 1], "loss": [0, 1, 1, 0]}),
        replication=None,
        fold=None,
    )
    plain = recommendation(table.design.kind, binary=True, per_record=True)
    assert recommendation_for(table) == plain


def test_the_report_runs_the_recommended_metric_test():
    table = _table(1, score="p", metric="roc_auc")
    report = cvreport.report(table)
    outcome = report.comparisons[0].outcomes[0]
    assert outcome.name == "delong_test" and outcome.recommended
    assert outcome.result.pvalue == cvreport.delong_test(table).pvalue
    assert "DeLong" in report.to_markdown()


def test_cli_metric_flags_build_the_metric_table(tmp_path):
    from cvreport.cli import main

    path = tmp_path / "preds.csv"
    _frame(4).to_csv(path, index=False)
    out = tmp_path / "report.md"
    code = main(
        [
            "report",
            str(path),
            "-f",
            "y ~ model | fold",
            "--metric",
            "f1",
            "--prediction",
            "yhat",
            "-o",
            str(out),
            "--format",
            "md",
        ]
    )
    assert code == 0
    text = out.read_text()
    assert "f1" in text and "computed once per fold" in text
