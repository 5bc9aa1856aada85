"""One small results table per design kind, and a quiet way to run any registered test on it.

The contract test (tests/methods/test_contract.py) and the metric-direction tests
run every test of the registry on these tables.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd

import cvreport
from cvreport.methods.registry import SPECS
from cvreport.methods.spec import DESIGN_KINDS

SHAPES = {  # (m, K) of each design kind
    "holdout": (1, 1),
    "repeated_holdout": (5, 1),
    "kfold": (1, 6),
    "repeated_kfold": (3, 4),
    "mx2": (5, 2),
}
N_RECORDS = 120


def losses_frame(kind: str, seed: int = 3) -> pd.DataFrame:
    """0/1 losses of models A (error 0.2) and B (error 0.35) on every record of a design."""
    m, k = SHAPES[kind]
    rng = np.random.default_rng(seed)
    rows = []
    for replication in range(m):
        if k == 1:  # a hold-out split validates on a random third of the records
            scored = rng.permutation(N_RECORDS)[: N_RECORDS // 3]
            folds = np.zeros(scored.size, dtype=int)
        else:
            scored = np.arange(N_RECORDS)
            folds = rng.permutation(N_RECORDS) % k
        for record, fold in zip(scored, folds):
            for model, error in (("A", 0.2), ("B", 0.35)):
                rows.append((replication, fold, model, record, int(rng.random() < error)))
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])


TABLES = {
    kind: cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold",
        losses_frame(kind),
        **({"test_train_ratio": 0.5} if kind == "repeated_holdout" else {}),
    )
    for kind in DESIGN_KINDS
}
PAIRED = [spec for spec in SPECS if spec.models == 2 and spec.designs]
BY_DESIGN = [spec for spec in SPECS if spec.designs]
ONE_MODEL = [spec for spec in SPECS if spec.models == 1]


def run(spec, table, *args, **kwargs):
    """Call a test quietly (partition and degenerate warnings are checked elsewhere)."""
    if spec.models == 1:
        kwargs.setdefault("p0", 0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spec.function(table, *args, **kwargs)


def two_sided(spec) -> dict[str, str]:
    parameters = inspect.signature(spec.function).parameters
    return {"alternative": "two-sided"} if "alternative" in parameters else {}
