"""Dietterich's difference-of-proportions test (docs/methods.md)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from cvreport.data.table import ResultsTable
from cvreport.errors import (
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    IntervalUndefinedError,
)
from cvreport.methods.proportion import (
    ProportionTestResult,
    proportion_test,
    proportion_test_array,
    proportion_test_kernel,
)
from tests._printed import as_printed, phi


def test_proportion_vector():
    res = proportion_test_array(0.15, 0.10, 100)
    assert as_printed(res.statistic, "1.069045")
    assert as_printed(res.pvalue, "0.285049")
    assert res.pooled_error == pytest.approx(0.125)
    assert res.estimate == pytest.approx(0.05)
    assert res.distribution == "normal"
    assert any(n.startswith("not recommended as the deciding test — ") for n in res.notes)


def test_hand_worked():
    # pA = 0.2, pB = 0.1, n = 50: p = 0.15, 2p(1 − p)/n = 2 · 0.15 · 0.85 / 50 = 0.0051
    z = 0.1 / math.sqrt(0.0051)
    res = proportion_test_array(0.2, 0.1, 50)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * (1 - phi(z)), rel=1e-10)
    less = proportion_test_array(0.2, 0.1, 50, alternative="less")
    assert less.pvalue == pytest.approx(phi(z), rel=1e-10)
    greater = proportion_test_array(0.2, 0.1, 50, alternative="greater")
    assert greater.pvalue == pytest.approx(1 - phi(z), rel=1e-9)


def test_kernel_batches_and_degenerate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = proportion_test_kernel([0.15, 0.0, 1.0, 0.3], [0.10, 0.0, 1.0, 0.3], [100, 10, 10, 10])
    assert as_printed(float(k.statistic[0]), "1.069045")
    assert k.statistic[1:].tolist() == [0.0, 0.0, 0.0]
    assert k.pvalue[1:].tolist() == [1.0, 1.0, 1.0]
    assert k.degenerate.tolist() == [0, 1, 1, 0]
    with pytest.warns(DegenerateStatisticWarning, match="never differ"):
        res = proportion_test_array(0.0, 0.0, 40)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)


def test_no_interval_and_bad_inputs():
    res = proportion_test_array(0.15, 0.10, 100)
    assert not res.has_conf_int
    with pytest.raises(IntervalUndefinedError):
        res.conf_int()
    assert math.isnan(res.to_frame().loc[0, "ci_low"])
    with pytest.raises(DataError, match="error_a"):
        proportion_test_array(1.5, 0.1, 10)
    with pytest.raises(ValueError, match="positive whole number"):
        proportion_test_array(0.1, 0.1, 0)
    assert isinstance(res, ProportionTestResult)
    assert "pooled error rate" in res.summary().as_text()


def holdout_frame(errors_a: list[int], errors_b: list[int]) -> pd.DataFrame:
    rows = [("A", 1, 1, i, float(e)) for i, e in enumerate(errors_a)]
    rows += [("B", 1, 1, i, float(e)) for i, e in enumerate(errors_b)]
    return pd.DataFrame(rows, columns=["model", "replication", "fold", "record", "loss"])


def test_table_holdout_vector():
    rng = np.random.default_rng(0)
    a = [1] * 15 + [0] * 85
    b = [1] * 10 + [0] * 90
    order = rng.permutation(100)
    table = ResultsTable(holdout_frame([a[i] for i in order], [b[i] for i in order]))
    res = proportion_test(table, "A", "B")
    assert as_printed(res.statistic, "1.069045")
    assert as_printed(res.pvalue, "0.285049")
    assert res.nobs == 100
    assert res.models == ("A", "B")
    assert (res.error_a, res.error_b) == pytest.approx((0.15, 0.10))


def test_table_errors():
    table = ResultsTable(holdout_frame([0, 1, 1, 0], [1, 1, 0, 0]))
    assert proportion_test(table).statistic == 0.0
    soft = holdout_frame([0, 1, 1, 0], [1, 1, 0, 0]).assign(loss=[0.2, 1, 1, 0, 1, 1, 0, 0.5])
    with pytest.raises(DataError):
        proportion_test(ResultsTable(soft))
    kfold = holdout_frame([0, 1, 1, 0], [1, 1, 0, 0]).assign(fold=[1, 1, 2, 2] * 2)
    with pytest.raises(DesignError, match="one hold-out split"):
        proportion_test(ResultsTable(kfold))
    scores = pd.DataFrame({"model": ["A", "B"], "replication": 1, "fold": 1, "score": [0.8, 0.7]})
    with pytest.raises(DesignError, match="per-record"):
        proportion_test(ResultsTable.from_fold_scores(scores, score="score"))
