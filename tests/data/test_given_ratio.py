"""A test/train ratio the user gives is used on every route, never silently dropped."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport


def _repeated_holdout(seed: int = 3, j: int = 6, n: int = 40) -> pd.DataFrame:
    """J hold-out splits of 120 records, validating on n of them each time."""
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(j):
        records = rng.choice(120, size=n, replace=False)
        for model, p in (("A", 0.2), ("B", 0.3)):
            losses = (rng.random(n) < p).astype(float)
            rows += [(rep, 0, model, int(r), loss) for r, loss in zip(records, losses)]
    return pd.DataFrame(rows, columns=["replication", "fold", "model", "record", "loss"])


def test_a_given_ratio_replaces_the_one_inferred_from_per_record_losses() -> None:
    df = _repeated_holdout()
    inferred = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", df)
    given = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", df, test_train_ratio=0.3
    )
    assert given.test_train_ratio == 0.3
    assert given.test_train_ratio_note == "given"
    res = cvreport.corrected_resampled_ttest(given, "A", "B")
    # Nadeau & Bengio (2003): t = mean / sqrt((1/J + n2/n1) s²), df = J − 1
    per_split = df.groupby(["replication", "model"])["loss"].mean().unstack()
    d = (per_split["A"] - per_split["B"]).to_numpy()
    t = d.mean() / np.sqrt((1 / d.size + 0.3) * d.var(ddof=1))
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), d.size - 1), rel=1e-12)
    assert res.statistic != pytest.approx(
        cvreport.corrected_resampled_ttest(inferred, "A", "B").statistic, rel=1e-6
    )
    assert "as given" in " ".join(res.notes)


def test_a_given_ratio_is_checked() -> None:
    with pytest.raises(cvreport.DataError, match="test_train_ratio must be a positive number"):
        cvreport.ResultsTable.from_formula(
            "loss ~ model | replication + fold", _repeated_holdout(), test_train_ratio=-1
        )
