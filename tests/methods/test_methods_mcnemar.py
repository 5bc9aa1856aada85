"""McNemar's test: hold-out (four variants), naive K-fold and 5×2 BCV with posteriors.

Numbers come from docs/methods.md, Yang et al. and hand computation written out
below; statsmodels, mlxtend and scipy serve as peers where they agree with the
definitions (and the disagreements at b + c = 0 and b = c are pinned down).
"""

from __future__ import annotations

import importlib
import math
import warnings
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cvreport import arrays
from cvreport.data.table import ResultsTable
from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    IntervalUndefinedError,
    PartitionWarning,
)
from tests._printed import assert_printed

# the package re-exports the function ``mcnemar``, which shadows the module attribute
mc = importlib.import_module("cvreport.methods.mcnemar")
bcv = importlib.import_module("cvreport.methods.mcnemar_bcv")
posterior = importlib.import_module("cvreport.methods.contingency_posterior")


# ---------------------------------------------------------------- docs/methods.md vector
def test_methods_vector_b12_c4():
    corrected = arrays.mcnemar(12, 4)
    assert_printed(corrected.statistic, "3.0625")
    assert_printed(corrected.pvalue, "0.080118")
    uncorrected = arrays.mcnemar(12, 4, method="uncorrected")
    assert_printed(uncorrected.statistic, "4.0")
    assert_printed(uncorrected.pvalue, "0.045500")
    assert_printed(arrays.mcnemar(12, 4, method="exact").pvalue, "0.076813")
    assert_printed(arrays.mcnemar(12, 4, method="midp").pvalue, "0.049042")
    assert corrected.df == 1.0 and corrected.distribution == "chi2"
    exact = arrays.mcnemar(12, 4, method="exact")
    assert exact.distribution == "binomial" and exact.statistic == 4.0 and exact.df is None


def test_chi2_boundary_3841():
    assert stats.chi2.ppf(0.95, 1) == pytest.approx(3.841, abs=5e-4)
    above = arrays.mcnemar(15, 6, method="uncorrected")  # 81/21 = 3.857
    below = arrays.mcnemar(52, 34, method="uncorrected")  # 324/86 = 3.767
    assert above.statistic == pytest.approx(81 / 21) and above.reject(0.05)
    assert below.statistic == pytest.approx(324 / 86) and not below.reject(0.05)
    # the BCV statistic is referred to the same χ²(1): p at 3.841 is 0.05
    k = bcv.mcnemar_5x2bcv_kernel(np.zeros((5, 2, 4)))
    assert k.pvalue == 1.0
    from scipy import special

    assert special.chdtrc(1, 3.841) == pytest.approx(0.05, abs=5e-5)


# ---------------------------------------------------------------- hand-worked examples
def test_hand_holdout_variants():
    b, c = 9, 2
    n = b + c
    corrected = (abs(b - c) - 1) ** 2 / n  # 36/11
    uncorrected = (b - c) ** 2 / n  # 49/11
    exact = 2 * sum(comb(n, k) for k in range(c + 1)) / 2**n  # 2·67/2048
    midp = exact - comb(n, c) / 2**n  # 79/2048
    assert exact == pytest.approx(134 / 2048) and midp == pytest.approx(79 / 2048)
    assert arrays.mcnemar(b, c).statistic == pytest.approx(corrected)
    assert arrays.mcnemar(b, c).pvalue == pytest.approx(stats.chi2.sf(corrected, 1), rel=1e-12)
    res = arrays.mcnemar(b, c, method="uncorrected")
    assert res.pvalue == pytest.approx(stats.chi2.sf(uncorrected, 1), rel=1e-12)
    assert arrays.mcnemar(b, c, method="exact").pvalue == pytest.approx(exact, rel=1e-12)
    assert arrays.mcnemar(b, c, method="midp").pvalue == pytest.approx(midp, rel=1e-12)
    # symmetric in b and c
    assert arrays.mcnemar(c, b, method="midp").pvalue == pytest.approx(midp, rel=1e-12)


def test_hand_midp_ties():
    # b = c = 3: 1 − ½·C(6, 3)/2^6 = 1 − 10/64
    assert arrays.mcnemar(3, 3, method="midp").pvalue == pytest.approx(1 - 10 / 64)
    assert arrays.mcnemar(3, 3, method="exact").pvalue == 1.0
    # odd total, b and c adjacent: 2·P(X ≤ 2) = 1 for X ~ Bin(5, ½), mid-p = 1 − P(X = 2)
    assert arrays.mcnemar(3, 2, method="midp").pvalue == pytest.approx(1 - comb(5, 2) / 32)


def test_hand_corrected_is_clamped_at_zero():
    # |b − c| = 1: (max(1 − 1, 0))² = 0; |b − c| = 0: also 0, not 1/(b + c)
    assert arrays.mcnemar(5, 4).statistic == 0.0
    assert arrays.mcnemar(3, 3).statistic == 0.0
    assert arrays.mcnemar(3, 3).pvalue == 1.0


def test_estimate_with_n():
    res = arrays.mcnemar(12, 4, n=200)
    assert res.estimate == pytest.approx((12 - 4) / 200)
    assert res.nobs == 200
    with pytest.raises(DataError):
        arrays.mcnemar(12, 4, n=10)
    with pytest.raises(IntervalUndefinedError):
        res.conf_int()


def test_hand_kfold():
    b = [6, 3, 5]
    c = [1, 3, 0]
    per_fold = [(5 - 1) ** 2 / 7, 0.0, (5 - 1) ** 2 / 5]  # 16/7, 0 (b = c), 16/5
    total = sum(per_fold)
    res = arrays.mcnemar_kfold(b, c)
    assert res.statistic == pytest.approx(total, rel=1e-12)
    assert res.df == 3
    assert res.pvalue == pytest.approx(stats.chi2.sf(total, 3), rel=1e-12)
    assert res.fold_statistics == pytest.approx(tuple(per_fold))
    assert any("not recommended" in note for note in res.notes)
    assert res.warnings == ()


def bcv_hand_tables():
    n01 = [8, 6, 7, 9, 5, 8, 7, 6, 9, 5]  # mean 7
    n10 = [3, 4, 2, 5, 3, 4, 2, 3, 4, 0]  # mean 3
    rows = [[10, a, b, 100 - 10 - a - b] for a, b in zip(n01, n10)]  # folds of 100 records
    return np.array(rows, dtype=float).reshape(5, 2, 4)


def test_hand_bcv():
    t = 20 / 11  # 10 / (1 + ½ + 8·½)
    statistic = 20 * (abs(7 - 3) - 11 / 20) ** 2 / (11 * (7 + 3))  # eq. 15: 2.164091
    res = arrays.mcnemar_5x2bcv(bcv_hand_tables())
    assert res.statistic == pytest.approx(statistic, rel=1e-12)
    assert res.statistic == pytest.approx(t * (4 - 1 / t) ** 2 / 10, rel=1e-12)  # eq. 14
    assert res.pvalue == pytest.approx(stats.chi2.sf(statistic, 1), rel=1e-12)
    assert res.mean_table == pytest.approx((10, 7, 3, 80))
    assert res.effective_table == pytest.approx(tuple(t * x for x in (10, 7, 3, 80)))
    assert res.factor == pytest.approx(t)
    # n_e = 5n / (1 + ρ1 + 8ρ2) with n = 200 records
    assert res.n_effective == pytest.approx(5 * 200 / 5.5)
    assert res.nobs == 200
    assert res.estimate == pytest.approx((7 - 3) / 100)
    with pytest.raises(IntervalUndefinedError):
        res.conf_int()


def test_hand_bcv_posteriors():
    t = 20 / 11
    res = arrays.mcnemar_5x2bcv(bcv_hand_tables())
    expected = {
        "e": (t * 10 + 1, t * 90 + 1, 0.1),  # mode = plain estimator (n01 + n10)/n
        "r": (t * 7 + 1, t * 3 + 1, 0.7),
        "q_a": (t * 7 + 1, t * 80 + 1, 7 / 87),
        "q_b": (t * 10 + 1, t * 3 + 1, 10 / 13),
    }
    assert [p.name for p in res.posteriors] == ["e", "r", "q_a", "q_b"]
    for name, (a, b, mode) in expected.items():
        post = res.posterior(name)
        assert (post.alpha, post.beta) == pytest.approx((a, b))
        assert post.mode == pytest.approx(mode)
        assert post.interval == pytest.approx(
            (stats.beta.ppf(0.025, a, b), stats.beta.ppf(0.975, a, b)), rel=1e-9
        )
        assert post.prob_above_half == pytest.approx(stats.beta.sf(0.5, a, b), rel=1e-9)
        assert post.credible_interval(0.9) == pytest.approx(
            (stats.beta.ppf(0.05, a, b), stats.beta.ppf(0.95, a, b)), rel=1e-9
        )
    assert res.prob_a_more_unique_errors == res.posterior("r").prob_above_half
    with pytest.raises(CVReportError):
        res.posterior("z")


def test_hand_bcv_other_rhos_and_m():
    t = 10 / (1 + 0.0 + 8 * 0.25)  # 10/3
    res = arrays.mcnemar_5x2bcv(bcv_hand_tables(), rho1=0.0, rho2=0.25)
    assert res.statistic == pytest.approx(t * (4 - 1 / t) ** 2 / 10, rel=1e-12)
    assert any("liberal" in note for note in res.notes)
    # m×2 extension with m = 3: t = 6 / (1 + ½ + 4·½)
    tables = bcv_hand_tables()[:3]
    mean = tables.mean(axis=(0, 1))
    t3 = 6 / 3.5
    expected = t3 * (abs(mean[1] - mean[2]) - 1 / t3) ** 2 / (mean[1] + mean[2])
    res3 = arrays.mcnemar_5x2bcv(tables)
    assert res3.statistic == pytest.approx(expected, rel=1e-12)
    assert any("extension" in note for note in res3.notes)
    # a flat (2m, 4) array is read replication by replication
    flat = arrays.mcnemar_5x2bcv(bcv_hand_tables().reshape(10, 4))
    assert flat.statistic == arrays.mcnemar_5x2bcv(bcv_hand_tables()).statistic


def test_contingency_posteriors_modes_equal_plain_estimators():
    e, r, q_a, q_b = arrays.contingency_posteriors(10, 12, 4, 74)
    assert e.mode == pytest.approx(16 / 100)
    assert r.mode == pytest.approx(12 / 16)
    assert q_a.mode == pytest.approx(12 / 86)
    assert q_b.mode == pytest.approx(10 / 14)
    assert r.prob_above_half == pytest.approx(stats.beta.sf(0.5, 13, 5), rel=1e-12)
    # an empty table under the uniform prior has no unique mode: the mean (½) is reported
    e0, r0, _, _ = arrays.contingency_posteriors(0, 0, 0, 0)
    assert r0.mode == e0.mode == 0.5 and r0.interval == pytest.approx((0.025, 0.975))
    with pytest.raises(CVReportError):
        arrays.contingency_posteriors(1, 2, 3, 4, prior=0)


# ---------------------------------------------------------------- degenerate data
@pytest.mark.parametrize("method", mc.MCNEMAR_METHODS)
def test_no_discordant_records(method):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        res = arrays.mcnemar(0, 0, method=method)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    assert "no discordant records" in res.warnings[0]
    assert [w.category for w in caught] == [DegenerateStatisticWarning]


def test_kfold_empty_folds():
    with pytest.warns(DegenerateStatisticWarning, match="no discordant"):
        res = arrays.mcnemar_kfold([0, 0, 0], [0, 0, 0])
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    with pytest.warns(DegenerateStatisticWarning, match="folds 2"):
        res = arrays.mcnemar_kfold([6, 0, 5], [1, 0, 0])
    assert res.statistic == pytest.approx(16 / 7 + 16 / 5)


def test_kfold_single_fold_equals_holdout():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = arrays.mcnemar_kfold([12], [4])
    assert res.statistic == arrays.mcnemar(12, 4).statistic
    assert res.pvalue == pytest.approx(arrays.mcnemar(12, 4).pvalue, rel=1e-14)


def test_bcv_no_discordant():
    tables = np.zeros((5, 2, 4))
    tables[..., 0] = 10
    tables[..., 3] = 90
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        res = arrays.mcnemar_5x2bcv(tables)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    assert "n̄01 + n̄10 = 0" in res.warnings[0]
    assert [w.category for w in caught] == [DegenerateStatisticWarning]
    assert res.posterior("r").mode == 0.5  # Be(1, 1): no unique mode


def test_bad_counts():
    with pytest.raises(DataError, match="non-negative"):
        arrays.mcnemar(-1, 3)
    with pytest.raises(CVReportError, match="method"):
        arrays.mcnemar(1, 3, method="fisher")
    with pytest.raises(DataError):
        arrays.mcnemar_kfold([1, 2], [1])
    with pytest.raises(DataError, match="shape"):
        arrays.mcnemar_5x2bcv(np.zeros((5, 3, 4)))


# ---------------------------------------------------------------- peers
def test_statsmodels_agrees_where_defined():
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    for b in range(0, 25):
        for c in range(0, 25):
            if b == c:
                continue  # see test_peers_disagree_at_ties_and_empty
            table = [[7, b], [c, 11]]
            ours = arrays.mcnemar(b, c)
            theirs = sm_mcnemar(table, exact=False, correction=True)
            assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
            assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-10)
            theirs = sm_mcnemar(table, exact=False, correction=False)
            ours = arrays.mcnemar(b, c, method="uncorrected")
            assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-10)
            theirs = sm_mcnemar(table, exact=True)
            ours = arrays.mcnemar(b, c, method="exact")
            assert ours.statistic == theirs.statistic
            assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-10)


def test_peers_disagree_at_ties_and_empty():
    """statsmodels and mlxtend do not clamp the correction and divide by b + c = 0."""
    from mlxtend.evaluate import mcnemar as mlx_mcnemar
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the peers' own division-by-zero warnings
        sm_empty = sm_mcnemar([[7, 0], [0, 11]], exact=False, correction=True)
        mlx_empty = mlx_mcnemar(np.array([[7, 0], [0, 11]]), corrected=True)
        ours = arrays.mcnemar(0, 0)
    assert sm_empty.pvalue == 0.0 and mlx_empty[1] == 0.0  # "significant" with no evidence
    assert ours.pvalue == 1.0
    # b = c = 3: they report 1/6 (from (0 − 1)²/6); the clamped statistic is 0
    sm_tie = sm_mcnemar([[7, 3], [3, 11]], exact=False, correction=True)
    assert sm_tie.statistic == pytest.approx(1 / 6)
    assert arrays.mcnemar(3, 3).statistic == 0.0


def test_mlxtend_agrees_off_ties():
    from mlxtend.evaluate import mcnemar as mlx_mcnemar

    for b, c in [(12, 4), (1, 9), (30, 17), (5, 0)]:
        chi2, p = mlx_mcnemar(np.array([[3, b], [c, 8]]), corrected=True)
        ours = arrays.mcnemar(b, c)
        assert ours.statistic == pytest.approx(chi2) and ours.pvalue == pytest.approx(p)
        _, p_exact = mlx_mcnemar(np.array([[3, b], [c, 8]]), exact=True)
        assert arrays.mcnemar(b, c, method="exact").pvalue == pytest.approx(p_exact, rel=1e-10)


@settings(max_examples=200, deadline=None)
@given(b=st.integers(0, 400), c=st.integers(0, 400))
def test_exact_and_midp_against_scipy(b, c):
    n = b + c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateStatisticWarning)
        exact = arrays.mcnemar(b, c, method="exact").pvalue
        midp = arrays.mcnemar(b, c, method="midp").pvalue
    if n == 0:
        assert exact == midp == 1.0
        return
    assert exact == pytest.approx(stats.binomtest(min(b, c), n, 0.5).pvalue, rel=1e-9, abs=1e-300)
    k = min(b, c)
    if b == c:
        expected = 1 - 0.5 * stats.binom.pmf(b, 2 * b, 0.5)
    else:
        expected = min(1.0, 2 * stats.binom.cdf(k, n, 0.5)) - stats.binom.pmf(k, n, 0.5)
    assert midp == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert 0.0 <= midp <= exact <= 1.0


# ---------------------------------------------------------------- kernels
def test_kernels_vectorise():
    rng = np.random.default_rng(0)
    b = rng.integers(0, 30, size=(100_000,))
    c = rng.integers(0, 30, size=(100_000,))
    b[:10] = c[:10] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for method in mc.MCNEMAR_METHODS:
            k = mc.mcnemar_kernel(b, c, method)
            assert k.pvalue.shape == (100_000,)
            assert np.all((k.pvalue >= 0) & (k.pvalue <= 1))
            assert np.all(k.pvalue[:10] == 1.0) and np.all(k.degenerate[:10] == mc.NO_DISCORDANT)
            for i in (10, 11, 500, 99_999):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DegenerateStatisticWarning)
                    assert k.pvalue[i] == arrays.mcnemar(int(b[i]), int(c[i]), method).pvalue
        kk = mc.mcnemar_kfold_kernel(b.reshape(10_000, 10), c.reshape(10_000, 10))
        assert kk.statistic.shape == (10_000,) and kk.df == 10
        tables = rng.integers(0, 40, size=(20_000, 5, 2, 4))
        kb = bcv.mcnemar_5x2bcv_kernel(tables)
        assert kb.statistic.shape == (20_000,) and kb.effective_table.shape == (20_000, 4)
        assert kb.statistic[7] == pytest.approx(arrays.mcnemar_5x2bcv(tables[7]).statistic)
        post = posterior.contingency_posteriors_kernel(kb.effective_table)
        assert post["r"].prob_above_half.shape == (20_000,)


# ---------------------------------------------------------------- table level

BCV_TRAINING_BLOCKS = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}]


def long_frame(folds: np.ndarray, losses: dict[str, np.ndarray]) -> pd.DataFrame:
    n, m = folds.shape
    frames = []
    for model, loss in losses.items():
        for i in range(m):
            frames.append(
                pd.DataFrame(
                    {
                        "replication": i + 1,
                        "fold": folds[:, i] + 1,
                        "model": model,
                        "record": np.arange(n),
                        "loss": loss[:, i],
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def bcv_folds(n: int, rng: np.random.Generator) -> np.ndarray:
    block = np.empty(n, dtype=int)
    block[rng.permutation(n)] = np.arange(n) % 8 + 1
    return np.stack([np.where(np.isin(block, list(s)), 0, 1) for s in BCV_TRAINING_BLOCKS], 1)


def independent_tables(frame: pd.DataFrame, a: str, b: str) -> np.ndarray:
    wide = frame.pivot_table(
        index=["replication", "fold", "record"], columns="model", values="loss"
    )
    out = []
    for (_, _), g in wide.groupby(level=["replication", "fold"], sort=True):
        la, lb = g[a].to_numpy(), g[b].to_numpy()
        out.append(
            [
                np.sum((la == 1) & (lb == 1)),
                np.sum((la == 1) & (lb == 0)),
                np.sum((la == 0) & (lb == 1)),
                np.sum((la == 0) & (lb == 0)),
            ]
        )
    return np.array(out, dtype=float)


def test_table_holdout_mcnemar():
    rng = np.random.default_rng(1)
    n = 150
    losses = {"A": rng.integers(0, 2, (n, 1)), "B": rng.integers(0, 2, (n, 1))}
    frame = long_frame(np.zeros((n, 1), dtype=int), losses)
    table = ResultsTable(frame)
    counts = independent_tables(frame, "A", "B")[0]
    for method in mc.MCNEMAR_METHODS:
        res = mc.mcnemar(table, method=method)
        ref = arrays.mcnemar(counts[1], counts[2], method=method)
        assert (res.statistic, res.pvalue) == (ref.statistic, ref.pvalue)
        assert res.models == ("A", "B") and res.nobs == n
        assert res.estimate == pytest.approx(losses["A"].mean() - losses["B"].mean())
    swapped = mc.mcnemar(table, "B", "A")
    assert (swapped.b, swapped.c) == (counts[2], counts[1])


def test_table_kfold_and_design_errors():
    rng = np.random.default_rng(2)
    n = 100
    folds = (rng.permutation(n) % 5)[:, None]
    losses = {"A": rng.integers(0, 2, (n, 1)), "B": rng.integers(0, 2, (n, 1))}
    frame = long_frame(folds, losses)
    table = ResultsTable(frame)
    tables = independent_tables(frame, "A", "B")
    res = mc.mcnemar_kfold(table, "A", "B")
    ref = arrays.mcnemar_kfold(tables[:, 1], tables[:, 2])
    assert res.statistic == pytest.approx(ref.statistic) and res.df == 5
    assert res.fold_labels == ("1", "2", "3", "4", "5")
    with pytest.raises(DesignError, match="hold-out"):
        mc.mcnemar(table, "A", "B")
    with pytest.raises(DesignError, match="m×2"):
        bcv.mcnemar_5x2bcv(table, "A", "B")


def test_table_requires_binary_losses():
    rng = np.random.default_rng(3)
    frame = long_frame(
        np.zeros((20, 1), dtype=int), {"A": rng.random((20, 1)), "B": rng.random((20, 1))}
    )
    with pytest.raises(DataError):
        mc.mcnemar(ResultsTable(frame))


def test_table_bcv_balanced_and_random():
    rng = np.random.default_rng(4)
    n = 160
    losses = {"A": rng.integers(0, 2, (n, 5)), "B": rng.integers(0, 2, (n, 5))}
    frame = long_frame(bcv_folds(n, rng), losses)
    table = ResultsTable(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartitionWarning)
        res = bcv.mcnemar_5x2bcv(table)
    ref = arrays.mcnemar_5x2bcv(independent_tables(frame, "A", "B").reshape(5, 2, 4))
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.mean_table == pytest.approx(ref.mean_table)
    assert res.n_effective == pytest.approx(5 * n / 5.5)
    assert res.balanced is True and res.nobs == n
    random_folds = np.stack([rng.permutation(np.arange(n) % 2) for _ in range(5)], 1)
    table = ResultsTable(long_frame(random_folds, losses))
    with pytest.warns(PartitionWarning):
        res = bcv.mcnemar_5x2bcv(table)
    assert res.balanced is False


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 6), n=st.integers(4, 30))
def test_table_bcv_equals_arrays(seed, m, n):
    rng = np.random.default_rng(seed)
    folds = np.stack([rng.permutation(np.arange(n) % 2) for _ in range(m)], 1)
    losses = {"A": rng.integers(0, 2, (n, m)), "B": rng.integers(0, 2, (n, m))}
    frame = long_frame(folds, losses)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bcv.mcnemar_5x2bcv(ResultsTable(frame), "A", "B")
        ref = arrays.mcnemar_5x2bcv(independent_tables(frame, "A", "B").reshape(m, 2, 4))
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-15)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-15)
    assert math.isfinite(res.statistic)
