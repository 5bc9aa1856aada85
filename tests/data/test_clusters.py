"""A cluster of records in two folds of one replication is named by a typed warning."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.data.clusters import ClusterLeakageWarning, audit_clusters
from cvreport.errors import DataError, PartitionWarning


def _cv(group_split: bool) -> pd.DataFrame:
    records = np.arange(40)
    doc = records // 4
    frames = []
    for replication in (1, 2):
        if group_split:
            fold = (doc + replication) % 2
        else:
            fold = (records + replication) % 2
        for model in ("a", "b"):
            frames.append(
                pd.DataFrame(
                    {
                        "replication": replication,
                        "fold": fold,
                        "model": model,
                        "record": records,
                        "doc": doc,
                        "loss": (records * (1 if model == "a" else 3)) % 2,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def test_straddling_clusters_are_named_in_a_typed_warning():
    with pytest.warns(ClusterLeakageWarning, match=r"10 of 10 clusters .*\(0, 1, 2, 3, 4"):
        cvreport.ResultsTable(_cv(group_split=False), cluster="doc")
    assert issubclass(ClusterLeakageWarning, PartitionWarning)


def test_clusters_kept_in_one_fold_raise_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = cvreport.ResultsTable(_cv(group_split=True), cluster="doc")
    assert table.design.kind == "mx2"


def test_audit_lists_replication_cluster_and_fold_count():
    folds = np.array([[0, 0], [1, 0], [0, 1], [0, 1]])
    audit = audit_clusters(folds, np.array(["x", "x", "y", "y"]), replications=("r1", "r2"))
    assert audit.straddling.to_dict("records") == [
        {"replication": "r1", "cluster": "x", "n_folds": 2, "n_records": 2}
    ]
    assert "1 of 2 clusters" in audit.message()


def test_a_record_in_two_clusters_is_an_error():
    df = _cv(group_split=True)
    df.loc[0, "doc"] = 99
    with pytest.raises(DataError, match="more than one cluster"):
        cvreport.ResultsTable(df, cluster="doc")
