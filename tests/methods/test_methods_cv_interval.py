"""Cross-validation confidence interval and test of Bayle et al. (2020) (docs/methods.md)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from cvreport.data.table import ResultsTable
from cvreport.errors import DegenerateStatisticWarning, DesignError
from cvreport.methods.cv_interval import (
    CVIntervalResult,
    cv_confidence_interval,
    cv_confidence_interval_array,
    cv_confidence_interval_kernel,
    cv_variance,
)
from tests._printed import as_printed, phi

H = [1, 0, 0, -1, 0, 1, 1, 0, 0, 0, -1, 1]
FOLDS = [1] * 4 + [2] * 4 + [3] * 4


def test_cv_interval_vector():
    out = cv_confidence_interval_array(H, FOLDS)
    assert as_printed(out.estimate, "0.166667")
    assert as_printed(out.std_dev, "0.687184")
    assert as_printed(out.statistic, "0.840168")
    assert as_printed(out.pvalue, "0.799593")  # one-sided, H1: A better, p = Φ(z)
    assert out.alternative == "less"
    inside = cv_confidence_interval_array(H, FOLDS, variance="in")
    assert as_printed(inside.std_dev, "0.745356")
    assert out.n_records == 12 and out.n_folds == 3


def test_hand_worked_two_folds():
    # h = [1, -1 | 1, 1]: R̂ = 0.5
    # out: (1/4)(0.25 + 2.25 + 0.25 + 0.25) = 0.75, z = √4 · 0.5 / √0.75
    # in: fold means 0 and 1; SS = 1 + 1 + 0 + 0 = 2; σ̂² = 2 / (4 − 2) = 1, z = 1
    h, folds = [1, -1, 1, 1], ["a", "a", "b", "b"]
    out = cv_confidence_interval_array(h, folds, alternative="two-sided")
    z = 2 * 0.5 / math.sqrt(0.75)
    assert out.statistic == pytest.approx(z, rel=1e-12)
    assert out.pvalue == pytest.approx(2 * (1 - phi(z)), rel=1e-10)
    half = 1.959963984540054 * math.sqrt(0.75) / 2
    assert out.conf_int() == pytest.approx((0.5 - half, 0.5 + half), rel=1e-10)
    inside = cv_confidence_interval_array(h, folds, variance="in", alternative="greater")
    assert inside.statistic == pytest.approx(1.0)
    assert inside.pvalue == pytest.approx(1 - phi(1.0), rel=1e-10)


def test_interval_is_two_sided_whatever_the_alternative():
    less = cv_confidence_interval_array(H, FOLDS)
    two = cv_confidence_interval_array(H, FOLDS, alternative="two-sided")
    assert less.conf_int() == two.conf_int()
    _, high = less.conf_int(0.1)
    # the one-sided 5% test rejects iff the upper end of the 90% interval is below 0
    assert (high < 0) == less.reject(0.05)
    assert high == pytest.approx(1 / 6 + 1.6448536269514722 * 0.6871842709362768 / math.sqrt(12))


def test_cv_variance_unequal_folds_pooled():
    h = np.array([0.5, 1.0, 0.0, 2.0, -1.0])
    folds = [0, 0, 1, 1, 1]
    estimate, var = cv_variance(h, folds, "in")
    ss = (
        (0.5 - 0.75) ** 2
        + (1.0 - 0.75) ** 2
        + (0 - 1 / 3) ** 2
        + (2 - 1 / 3) ** 2
        + (-1 - 1 / 3) ** 2
    )
    assert float(var) == pytest.approx(ss / (5 - 2))
    assert float(estimate) == pytest.approx(0.5)


def test_kernel_batches():
    rng = np.random.default_rng(4)
    h = rng.integers(-1, 2, size=(5, 30)).astype(float)
    codes = np.repeat(np.arange(3), 10)
    for variance in ("out", "in"):
        k = cv_confidence_interval_kernel(h, codes, variance, "two-sided")
        for i in range(5):
            one = cv_confidence_interval_array(
                h[i], codes, variance=variance, alternative="two-sided"
            )
            assert k.statistic[i] == pytest.approx(one.statistic, rel=1e-12)
            assert k.pvalue[i] == pytest.approx(one.pvalue, rel=1e-12)


def test_degenerate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = cv_confidence_interval_kernel(
            np.array([[0.0] * 6, [1.0] * 6, [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]),
            [0, 0, 0, 1, 1, 1],
            "in",
        )
    assert k.statistic.tolist() == [0.0, math.inf, math.inf]
    assert k.pvalue.tolist() == [1.0, 1.0, 1.0]  # "less": +inf is evidence the other way
    with pytest.warns(DegenerateStatisticWarning, match="never differ"):
        res = cv_confidence_interval_array([0, 0, 0, 0], [1, 1, 2, 2])
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    with pytest.warns(DegenerateStatisticWarning, match="non-zero"):
        res = cv_confidence_interval_array([-1, -1, -1, -1], [1, 1, 2, 2])
    assert (res.statistic, res.pvalue) == (-math.inf, 0.0)
    assert res.conf_int() == (-1.0, -1.0)


def test_design_errors_in_arrays():
    with pytest.raises(DesignError, match="variance='out'"):
        cv_confidence_interval_array([1, 0, -1], [1, 2, 3], variance="in")
    assert cv_confidence_interval_array([1, 0, -1], [1, 2, 3]).n_folds == 3
    with pytest.raises(DesignError, match="K >= 2"):
        cv_confidence_interval_array([1, 0, -1], [1, 1, 1])
    with pytest.raises(DesignError, match="repeated='average'"):
        cv_confidence_interval_array(H + H, FOLDS + FOLDS, replications=[1] * 12 + [2] * 12)
    with pytest.raises(ValueError, match="variance"):
        cv_confidence_interval_array(H, FOLDS, variance="within")


def test_repeated_average_extension():
    h2 = [0, 1, 0, -1, 1, 1, 0, 0, 0, 0, -1, 1]
    res = cv_confidence_interval_array(
        H + h2, FOLDS + FOLDS, replications=[1] * 12 + [2] * 12, repeated="average"
    )
    one = cv_confidence_interval_array(H, FOLDS)
    two = cv_confidence_interval_array(h2, FOLDS)
    assert res.estimate == pytest.approx((one.estimate + two.estimate) / 2)
    assert res.std_dev == pytest.approx(math.sqrt((one.std_dev**2 + two.std_dev**2) / 2))
    assert res.statistic == pytest.approx(math.sqrt(12) * res.estimate / res.std_dev)
    assert res.n_replications == 2 and res.nobs == 12
    assert any(n.startswith("an extension: repeated K-fold CV") for n in res.notes)


# -- tables -------------------------------------------------------------------------------
def record_frame(h_by_rep: list[list[int]], folds_by_rep: list[list[int]]) -> pd.DataFrame:
    """Per-record 0/1 losses whose differences A − B are the given h."""
    rows = []
    for rep, (hs, folds) in enumerate(zip(h_by_rep, folds_by_rep), start=1):
        for record, (d, fold) in enumerate(zip(hs, folds)):
            rows.append(("A", rep, fold, f"r{record}", float(max(d, 0))))
            rows.append(("B", rep, fold, f"r{record}", float(max(-d, 0))))
    return pd.DataFrame(rows, columns=["model", "replication", "fold", "record", "loss"])


def test_table_kfold_vector():
    table = ResultsTable(record_frame([H], [FOLDS]))
    res = cv_confidence_interval(table, "A", "B")
    assert isinstance(res, CVIntervalResult)
    assert as_printed(res.statistic, "0.840168")
    assert as_printed(res.pvalue, "0.799593")
    assert res.models == ("A", "B")
    inside = cv_confidence_interval(table, "A", "B", variance="in")
    assert as_printed(inside.std_dev, "0.745356")
    swapped = cv_confidence_interval(table, "B", "A", alternative="greater")
    assert swapped.pvalue == pytest.approx(res.pvalue)
    assert "0.8402" in res.summary().as_text()


def test_table_repeated_needs_opt_in():
    h2 = [0, 1, 0, -1, 1, 1, 0, 0, 0, 0, -1, 1]
    folds2 = [2, 3, 1, 1, 3, 2, 2, 1, 3, 1, 2, 3]
    table = ResultsTable(record_frame([H, h2], [FOLDS, folds2]))
    with pytest.raises(DesignError, match="repeated='average'"):
        cv_confidence_interval(table, "A", "B")
    res = cv_confidence_interval(table, "A", "B", repeated="average")
    expected = cv_confidence_interval_array(
        H + h2, FOLDS + folds2, replications=[1] * 12 + [2] * 12, repeated="average"
    )
    assert res.statistic == pytest.approx(expected.statistic)
    assert any(n.startswith("an extension: repeated K-fold CV") for n in res.notes)


def test_table_per_fold_scores_are_rejected():
    frame = pd.DataFrame(
        {
            "model": ["A", "B"] * 3,
            "replication": 1,
            "fold": [1, 1, 2, 2, 3, 3],
            "score": [0.8, 0.7, 0.75, 0.74, 0.9, 0.85],
        }
    )
    table = ResultsTable.from_fold_scores(frame, score="score")
    with pytest.raises(DesignError, match="per-record"):
        cv_confidence_interval(table)


def test_table_holdout_is_rejected():
    table = ResultsTable(record_frame([[1, 0, -1, 1]], [[1, 1, 1, 1]]))
    with pytest.raises(DesignError, match="K-fold"):
        cv_confidence_interval(table)
