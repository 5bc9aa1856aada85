"""Per-fold metrics from per-record predictions keep the records: the audit and the report see them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.datasets import DatasetsTable
from cvreport.data.table import ResultsTable
from cvreport.errors import DesignError
from cvreport.methods import registry
from cvreport.multi.per_dataset import per_dataset_tests
from cvreport.partitions.audit import audit_overlap
from cvreport.partitions.balance import balance_verdict
from cvreport.partitions.splits import BlockRegularizedCV, RandomMx2CV


def _predictions(splitter, n: int = 64, seed: int = 0, dataset: str | None = None) -> pd.DataFrame:
    """Two models' probabilities and labels on the splitter's partitions of n records."""
    rng = np.random.default_rng(seed)
    assignment = splitter.assignment(np.zeros((n, 1)), np.arange(n) % 2)
    frames = []
    for model, signal in (("lr", 0.6), ("tree", 0.3)):
        frame = assignment.assign(model=model)
        frame["y"] = frame["record"].to_numpy() % 2
        frame["proba"] = np.clip(
            signal * frame["y"] + rng.uniform(0, 1 - signal / 2, len(frame)), 0, 1
        )
        frame["pred"] = (frame["proba"] >= 0.5).astype(int)
        frames.append(frame)
    data = pd.concat(frames, ignore_index=True)
    if dataset is not None:
        data["dataset"] = dataset
    return data


def _audits_agree(got, expected) -> None:
    assert (got.design, got.verdict) == (expected.design, expected.verdict)
    assert got.z_max == expected.z_max and got.pvalue == pytest.approx(expected.pvalue, abs=1e-12)
    pd.testing.assert_frame_equal(got.pair_table, expected.pair_table)


@pytest.mark.parametrize(
    "keywords",
    [
        {"score": "proba", "metric": "roc_auc"},
        {"score": "proba", "metric": "average_precision"},
        {"prediction": "pred", "metric": "f1"},
        {"prediction": "pred", "metric": "matthews_corrcoef"},
    ],
)
@pytest.mark.parametrize(
    "splitter",
    [RandomMx2CV(m=4, random_state=3), BlockRegularizedCV(m=3, stratify=True, random_state=1)],
    ids=["random", "block-regularized"],
)
def test_a_per_fold_metric_with_record_ids_is_audited_as_its_zero_one_table(keywords, splitter):
    data = _predictions(splitter)
    metric = ResultsTable.from_predictions(data, truth="y", **keywords)
    errors = ResultsTable.from_formula("{pred != y} ~ model | replication + fold", data)
    assert not metric.per_record and metric.has_records and errors.has_records
    _audits_agree(audit_overlap(metric), audit_overlap(errors))
    assert balance_verdict(metric) == balance_verdict(errors)
    for got, expected in zip(metric.membership_patterns(), errors.membership_patterns()):
        np.testing.assert_array_equal(got, expected)
    records, folds = metric.membership()
    same_records, same_folds = errors.membership()
    np.testing.assert_array_equal(records, same_records)
    np.testing.assert_array_equal(folds, same_folds)
    assert metric.design.n_records == errors.design.n_records == 64
    assert metric.design.sizes == errors.design.sizes and metric.design.complete
    pd.testing.assert_frame_equal(metric.design.fold_sizes, errors.design.fold_sizes)


def test_the_metric_is_still_tested_on_its_folds():
    data = _predictions(RandomMx2CV(m=5, random_state=0))
    table = ResultsTable.from_predictions(data, truth="y", score="proba", metric="roc_auc")
    with pytest.raises(DesignError, match="needs per-record losses"):
        table.record_differences("lr", "tree")
    with pytest.raises(DesignError, match="needs per-record losses"):
        table.require_per_record("McNemar's test")
    report = cvreport.Report(table)
    for name in report.test_names:
        assert not registry.get_spec(name, in_report=True).needs_per_record, name
    # the per-fold AUCs the tests read are sklearn's
    from sklearn.metrics import roc_auc_score

    aucs = table.fold_errors().set_index(["replication", "fold", "model"])["loss"]
    for key, cell in data.groupby(["replication", "fold", "model"]):
        assert -aucs[key] == pytest.approx(roc_auc_score(cell["y"], cell["proba"]), abs=1e-12)


def test_the_report_describes_the_records_and_audits_them():
    data = _predictions(BlockRegularizedCV(m=3, stratify=True, random_state=1), n=80)
    table = ResultsTable.from_predictions(data, truth="y", score="proba", metric="roc_auc")
    errors = ResultsTable.from_formula("{pred != y} ~ model | replication + fold", data)
    report = cvreport.Report(table)
    assert report.audit_note is None and report.partitions == "block-regularized"
    _audits_agree(report.audit, audit_overlap(errors))
    text = report.to_markdown()
    assert "| Records | 80 |" in text
    assert "per-fold scores only" not in text and "per-fold scores were given" not in text
    assert "is not a mean of per-record values, so it is compared fold by fold" in text
    assert "Overlap audit of the partitions" in text
    rows = {row.label: row.value for row in table.summary().rows}
    assert rows["records"] == 80
    assert [t.caption for t in table.summary().tables][1] == "Records per validation fold"


def test_scores_without_records_are_still_refused_by_the_audit():
    data = _predictions(RandomMx2CV(m=2, random_state=0))
    aucs = (
        ResultsTable.from_predictions(data, truth="y", score="proba", metric="roc_auc")
        .fold_errors()
        .assign(auc=lambda f: -f["loss"])
    )
    table = ResultsTable.from_fold_scores(aucs, score="auc")
    assert not table.has_records and table.design.n_records is None
    with pytest.raises(DesignError, match="needs per-record losses"):
        audit_overlap(table)
    report = cvreport.Report(table)
    assert report.audit is None and "only per-fold scores were given" in report.audit_note


def test_each_datasets_partitions_are_recognised_from_predictions():
    splitters = {
        "a": BlockRegularizedCV(m=3, random_state=0),
        "b": RandomMx2CV(m=3, random_state=0),
    }
    data = pd.concat(
        [_predictions(s, seed=i, dataset=name) for i, (name, s) in enumerate(splitters.items())],
        ignore_index=True,
    )
    multi = DatasetsTable.from_predictions(data, truth="y", score="proba", metric="roc_auc")
    assert all(t.has_records and not t.per_record for t in multi.tables.values())
    for name, table in multi.tables.items():
        part = data[data["dataset"] == name]
        errors = ResultsTable.from_formula("{pred != y} ~ model | replication + fold", part)
        _audits_agree(audit_overlap(table), audit_overlap(errors))
    tests = per_dataset_tests(multi)
    assert set(tests.comparisons["dataset"]) == {"a", "b"}
