"""Clusters of records: which cluster each record is in, and whether CV folds split them.

Records that come in clusters (passages of a document, turns of a user) are
not independent. In a cross-validation design a cluster must lie in one fold
of each replication: a cluster in two folds has some records in the training
set of a fold whose validation set holds the others, which leaks information
from training to validation and makes every fold estimate optimistic. The
audit names such clusters with a :class:`ClusterLeakageWarning`.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to
language model evaluations. arXiv:2411.00640.
Roberts, D. R. et al. (2017). Cross-validation strategies for data with
temporal, spatial, hierarchical, or phylogenetic structure. Ecography 40(8):913–929.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from cvreport.errors import (
    DataError,
    DesignError,
    PartitionWarning,
    describe_keys,
    user_stacklevel,
)


class ResultsTable(Protocol):
    """What the cluster role reads of a :class:`~cvreport.data.table.ResultsTable`."""

    @property
    def per_record(self) -> bool: ...

    @property
    def design(self) -> Any: ...

    @property
    def replications(self) -> tuple[Any, ...]: ...

    def membership(self) -> tuple[pd.Index, np.ndarray]: ...


__all__ = [
    "ClusterAudit",
    "ClusterLeakageWarning",
    "attach_clusters",
    "audit_clusters",
    "record_clusters",
]


class ClusterLeakageWarning(PartitionWarning):
    """A cluster of records lies in two or more folds of one replication."""


@dataclass(frozen=True)
class ClusterAudit:
    """Which clusters straddle folds.

    Attributes
    ----------
    straddling : pandas.DataFrame
        One row per (replication, cluster) whose records lie in several folds:
        columns ``replication, cluster, n_folds, n_records``.
    n_clusters : int
        Clusters in the table.

    Examples
    --------
    >>> audit = audit_clusters(np.array([[0], [1], [1]]), np.array(["p", "p", "q"]))
    >>> audit.ok, audit.straddling["cluster"].tolist()
    (False, ['p'])
    """

    straddling: pd.DataFrame
    n_clusters: int

    @property
    def ok(self) -> bool:
        """Whether every cluster lies in one fold of each replication."""
        return self.straddling.empty

    def message(self) -> str:
        """A sentence naming the straddling clusters, or saying there are none."""
        if self.ok:
            return f"each of the {self.n_clusters} clusters lies in one fold of every replication"
        clusters = pd.unique(self.straddling["cluster"]).tolist()
        reps = pd.unique(self.straddling["replication"]).tolist()
        return (
            f"{len(clusters)} of {self.n_clusters} clusters lie in two or more folds of one "
            f"replication ({describe_keys(clusters)}; replications {describe_keys(reps)}): their "
            "records are in the training set of a fold that validates the others, which leaks "
            "information and biases every fold estimate. Split by cluster (e.g. sklearn's "
            "GroupKFold) and rerun"
        )


def _checked_audit_input(folds: Any, clusters: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(n_records, m)`` integer fold positions and ``n_records`` cluster labels, or a DataError.

    One replication may come as a 1-D array of fold positions.
    """
    positions = np.asarray(folds)
    if positions.ndim == 1:
        positions = positions[:, None]
    if positions.ndim != 2:
        raise DataError(
            f"folds must be an (n_records, m) array of fold positions (one column per "
            f"replication, −1 where a record is absent), got shape {positions.shape}"
        )
    numeric = positions.dtype.kind in "iub" or (
        positions.dtype.kind == "f" and bool(np.all(np.isfinite(positions)))
    )
    if not numeric or not np.all(positions == np.round(positions)):
        raise DataError(
            "folds must hold whole fold positions (0, 1, …; −1 where a record is absent), "
            "with no missing values; encode fold labels first, e.g. with pandas.factorize"
        )
    labels = np.asarray(clusters, dtype=object).ravel()
    if labels.shape[0] != positions.shape[0]:
        raise DataError(
            f"folds and clusters describe different numbers of records ({positions.shape[0]} "
            f"and {labels.shape[0]}); give one cluster label per record"
        )
    if pd.isna(pd.Series(labels, dtype=object)).any():
        raise DataError("the cluster labels hold missing values; give every record a cluster")
    return positions.astype(np.int64), labels


def audit_clusters(
    folds: np.ndarray,
    clusters: np.ndarray,
    replications: tuple[Any, ...] | None = None,
) -> ClusterAudit:
    """Find clusters whose records lie in two or more folds of one replication.

    Parameters
    ----------
    folds : numpy.ndarray
        ``(n_records, m)``: each record's fold position in each replication, −1 where absent.
    clusters : numpy.ndarray
        ``(n_records,)`` cluster label of each record.
    replications : tuple, optional
        Replication labels (default 0 … m − 1).

    Returns
    -------
    ClusterAudit
    """
    folds, clusters = _checked_audit_input(folds, clusters)
    codes, labels = pd.factorize(pd.Series(clusters), sort=False)
    m = folds.shape[1]
    replications = tuple(range(m)) if replications is None else replications
    rows = []
    for i in range(m):
        present = folds[:, i] >= 0
        pairs = np.unique(np.stack([codes[present], folds[present, i]]), axis=1)
        n_folds = np.bincount(pairs[0], minlength=len(labels))
        bad = np.flatnonzero(n_folds > 1)
        if bad.size:
            sizes = np.bincount(codes[present], minlength=len(labels))
            rows.append(
                pd.DataFrame(
                    {
                        "replication": replications[i],
                        "cluster": labels.take(bad),
                        "n_folds": n_folds[bad],
                        "n_records": sizes[bad],
                    }
                )
            )
    columns = ["replication", "cluster", "n_folds", "n_records"]
    frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=columns)
    return ClusterAudit(straddling=frame, n_clusters=len(labels))


def attach_clusters(
    table: ResultsTable,
    data: pd.DataFrame,
    record: str,
    cluster: str,
    membership: tuple[pd.Index, np.ndarray] | None = None,
) -> None:
    """Keep each record's cluster on ``table`` and warn if a cluster straddles folds.

    ``membership`` (record labels, ``(n, m)`` fold positions) is read from the
    table when it holds per-record losses; the warning points at the user's call.

    Raises
    ------
    DataError
        A missing cluster, or a record given two clusters.
    """
    if cluster not in data:
        raise DataError(f"the cluster column {cluster!r} is not in the data")
    pairs = pd.DataFrame({"record": data[record].to_numpy(), "cluster": data[cluster].to_numpy()})
    if pairs["cluster"].isna().any():
        raise DataError(f"the cluster column {cluster!r} has missing values; give every record one")
    pairs = pairs.drop_duplicates()
    repeated = pairs["record"].duplicated(keep=False)
    if repeated.any():
        raise DataError(
            f"records {describe_keys(pd.unique(pairs.loc[repeated, 'record']).tolist())} are "
            f"given more than one cluster in column {cluster!r}; a record belongs to one cluster"
        )
    mapping = pairs.set_index("record")["cluster"]
    table._record_clusters = mapping  # type: ignore[attr-defined]
    table._cluster_audit = None  # type: ignore[attr-defined]
    if membership is None and table.per_record:
        membership = table.membership()
    if membership is not None and table.design.K >= 2:
        records, folds = membership
        audit = audit_clusters(folds, mapping.reindex(records).to_numpy(), table.replications)
        table._cluster_audit = audit  # type: ignore[attr-defined]  # the report says it too
        if not audit.ok:
            warnings.warn(audit.message(), ClusterLeakageWarning, stacklevel=user_stacklevel())


def record_clusters(table: ResultsTable, what: str) -> pd.Series:
    """The cluster of each record (indexed by record label), or a :class:`DesignError`."""
    mapping = getattr(table, "_record_clusters", None)
    if mapping is None:
        raise DesignError(
            f"{what} needs the cluster of each record: name the cluster column with cluster= "
            "(from_predictions, from_formula) or 'cluster(column)' in the formula"
        )
    return mapping
