"""Numbers at the edges, round five: every value recomputed from its formula, not from cvreport.

Each test states the formula it checks (docs/methods.md and the papers it cites)
and computes the expected value with scipy, statsmodels or numpy alone. The
property tests hold for every input hypothesis draws: swapping A and B mirrors
every estimate and interval and keeps every two-sided p-value, a one-sided
alternative trades places with the other, p lies in [0, 1] and the interval
holds its estimate; the regression tests pin degenerate cases that once gave a
p-value without words that fit it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import cvreport
import cvreport.arrays as arrays
from cvreport.errors import DegenerateStatisticWarning

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Fold differences with at least two distinct values (a regular, non-degenerate statistic).
_values = st.floats(min_value=-0.5, max_value=0.5, allow_nan=False, width=32).map(
    lambda x: round(x, 3)
)
differences = st.lists(_values, min_size=2, max_size=12).filter(lambda v: len(set(v)) > 1)


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateStatisticWarning)
        return call(*args, **kwargs)


# ---------------------------------------------------------------- fold-level t tests

#: name -> (call on an array of differences, its t denominator² over s², its df from J)
_T_TESTS = {
    "paired_ttest_kfold": (lambda d, **kw: arrays.paired_ttest_kfold(d, **kw), lambda j: 1 / j),
    "paired_ttest_resampled": (
        lambda d, **kw: arrays.paired_ttest_resampled(d, **kw),
        lambda j: 1 / j,
    ),
    "corrected_resampled_ttest": (
        lambda d, **kw: arrays.corrected_resampled_ttest(d, 0.25, **kw),
        lambda j: 1 / j + 0.25,
    ),
    "corrected_repeated_kfold_ttest": (
        lambda d, **kw: arrays.corrected_repeated_kfold_ttest(d, 1 / 9, **kw),
        lambda j: 1 / j + 1 / 9,
    ),
}


@pytest.mark.parametrize("name", sorted(_T_TESTS))
@SETTINGS
@given(d=differences, alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_t_tests_are_their_formula_and_mirror_when_a_and_b_swap(name, d, alpha) -> None:
    """t = mean / sqrt(factor · s²) ~ t(J − 1) (Nadeau & Bengio 2003 with factor 1/J + n2/n1;
    factor 1/J for the plain t); the 1 − α interval is mean ± t_{1−α/2} · SE, one-sided
    (−∞, mean + t_{1−α} SE] for "less". Swapping A and B negates every difference: the
    statistic, the estimate and the interval mirror, the two-sided p stays and "less" of
    one order is "greater" of the other.
    """
    call, factor = _T_TESTS[name]
    x = np.asarray(d, dtype=float)
    j = x.size
    se = math.sqrt(factor(j) * x.var(ddof=1))
    if se < 1e-9:  # rounding can leave a spread numpy calls zero; the zero-variance test covers it
        return
    t = x.mean() / se
    res = _quiet(call, x)
    swapped = _quiet(call, -x)
    assert res.statistic == pytest.approx(t, rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), j - 1), rel=1e-9, abs=1e-300)
    assert 0.0 <= res.pvalue <= 1.0
    q = stats.t.ppf(1 - alpha / 2, j - 1)
    low, high = res.conf_int(alpha)
    assert (low, high) == pytest.approx((x.mean() - q * se, x.mean() + q * se), rel=1e-9, abs=1e-12)
    assert low <= res.estimate <= high
    assert swapped.statistic == pytest.approx(-res.statistic)
    assert swapped.estimate == pytest.approx(-res.estimate)
    assert swapped.pvalue == pytest.approx(res.pvalue)
    assert swapped.conf_int(alpha) == pytest.approx((-high, -low))
    less = _quiet(call, x, alternative="less")
    greater_swapped = _quiet(call, -x, alternative="greater")
    assert less.pvalue == pytest.approx(stats.t.cdf(t, j - 1), rel=1e-9, abs=1e-300)
    assert greater_swapped.pvalue == pytest.approx(less.pvalue, rel=1e-9, abs=1e-300)
    q1 = stats.t.ppf(1 - alpha, j - 1)
    assert less.conf_int(alpha) == pytest.approx((-math.inf, x.mean() + q1 * se), rel=1e-9)
    assert greater_swapped.conf_int(alpha) == pytest.approx(
        (-x.mean() - q1 * se, math.inf), rel=1e-9
    )
    # the decision at alpha is the interval's: reject exactly when 0 lies outside it
    assert res.reject(alpha) == (not low < 0 < high) or math.isclose(res.pvalue, alpha)


@pytest.mark.parametrize("name", sorted(_T_TESTS))
@SETTINGS
@given(d=differences, shift=st.floats(min_value=-1, max_value=1, allow_nan=False))
def test_shifting_both_models_losses_changes_nothing(name, d, shift) -> None:
    """The tests see only loss(A) − loss(B): adding one constant to both models' losses
    on every fold leaves every number unchanged (checked on the table of fold scores)."""
    x = np.asarray(d, dtype=float)
    if _T_TESTS[name][1](x.size) * x.var(ddof=1) < 1e-18:
        return
    loss_b = np.linspace(0.1, 0.3, x.size)
    table_of = {
        "paired_ttest_kfold": ("fold", None),
        "corrected_repeated_kfold_ttest": ("fold", None),
        "paired_ttest_resampled": ("replication", 0.25),
        "corrected_resampled_ttest": ("replication", 0.25),
    }
    block, ratio = table_of[name]

    def table(offset: float) -> cvreport.ResultsTable:
        frame = pd.DataFrame(
            {
                block: np.tile(np.arange(x.size), 2),
                "model": np.repeat(["A", "B"], x.size),
                "loss": np.concatenate([loss_b + x, loss_b]) + offset,
            }
        )
        return cvreport.ResultsTable.from_fold_scores(
            frame,
            score="loss",
            replication="replication" if block == "replication" else None,
            fold="fold" if block == "fold" else None,
            direction="lower",
            test_train_ratio=ratio if ratio is not None else (1 / 9),
        )

    call = getattr(cvreport, name)
    first, second = _quiet(call, table(0.0), "A", "B"), _quiet(call, table(shift), "A", "B")
    assert second.statistic == pytest.approx(first.statistic, rel=1e-6, abs=1e-9)
    assert second.pvalue == pytest.approx(first.pvalue, rel=1e-6, abs=1e-12)
    assert second.estimate == pytest.approx(first.estimate, abs=1e-9)


# ---------------------------------------------------------------- m×2 tests

mx2 = st.lists(st.tuples(_values, _values), min_size=5, max_size=5).filter(
    lambda rows: sum((a - b) ** 2 for a, b in rows) > 1e-6
)


@SETTINGS
@given(rows=mx2)
def test_mx2_tests_are_their_formulas_and_mirror(rows) -> None:
    """Dietterich: t = p_1^(1) / sqrt(Σ s_i²/m) ~ t(m); Alpaydın: f = Σ p² / (2 Σ s_i²) ~
    F(2m, m); Yıldız: t = sqrt(2m) · mean(p) / sqrt(Σ s_i²/m) ~ t(m); blocked (divisor 2m):
    t = mean / sqrt(Σ (p − mean)²/(2m)) ~ t(2m − 1) (docs/methods.md §1). Negating every
    difference mirrors the signed statistics and keeps every p-value (F is even in p)."""
    p = np.asarray(rows, dtype=float)
    m = p.shape[0]
    s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    if s2.sum() < 1e-12 or ((p - p.mean()) ** 2).sum() < 1e-12:
        return
    t_d = p[0, 0] / math.sqrt(s2.sum() / m)
    f = (p**2).sum() / (2 * s2.sum())
    t_y = math.sqrt(2 * m) * p.mean() / math.sqrt(s2.sum() / m)
    t_b = p.mean() / math.sqrt(((p - p.mean()) ** 2).sum() / (2 * m))
    expected = {
        "paired_ttest_5x2cv": (t_d, 2 * stats.t.sf(abs(t_d), m)),
        "combined_ftest_5x2cv": (f, stats.f.sf(f, 2 * m, m)),
        "combined_ttest_5x2cv": (t_y, 2 * stats.t.sf(abs(t_y), m)),
        "blocked_ttest_3x2cv": (t_b, 2 * stats.t.sf(abs(t_b), 2 * m - 1)),
    }
    for name, (statistic, pvalue) in expected.items():
        res = _quiet(getattr(arrays, name), p)
        swapped = _quiet(getattr(arrays, name), -p)
        assert res.statistic == pytest.approx(statistic, rel=1e-9), name
        assert res.pvalue == pytest.approx(pvalue, rel=1e-9, abs=1e-300), name
        assert swapped.pvalue == pytest.approx(res.pvalue, rel=1e-12), name
        sign = 1 if name == "combined_ftest_5x2cv" else -1
        assert swapped.statistic == pytest.approx(sign * res.statistic), name
        assert swapped.estimate == pytest.approx(-res.estimate), name


# ---------------------------------------------------------------- rank and count tests


@SETTINGS
@given(d=st.lists(st.sampled_from([-0.02, -0.01, 0.0, 0.01, 0.02, 0.03]), min_size=2, max_size=12))
def test_sign_and_wilcoxon_with_ties_and_zeros_are_scipys(d) -> None:
    """The sign test drops zero differences and is the binomial test of the positive count
    among the rest, two-sided by doubling the smaller tail (scipy.stats.binomtest's
    two-sided is the same for p = ½, a symmetric law); Wilcoxon's signed rank drops the
    zeros and ranks ties by their average (scipy.stats.wilcoxon, zero_method="wilcox",
    exact over the sign flips). Both see "less" of A − B as "greater" of B − A."""
    x = np.asarray(d, dtype=float)
    positive, nonzero = int((x > 0).sum()), int((x != 0).sum())
    for alternative in ("two-sided", "less", "greater"):
        sign = _quiet(arrays.sign_test, x, alternative=alternative)
        mirrored = {"less": "greater", "greater": "less"}.get(alternative, alternative)
        assert _quiet(arrays.sign_test, -x, alternative=mirrored).pvalue == pytest.approx(
            sign.pvalue
        )
        assert 0.0 <= sign.pvalue <= 1.0
        if nonzero == 0:
            assert sign.pvalue == 1.0 and sign.warnings
            continue
        expected = stats.binomtest(positive, nonzero, 0.5, alternative=alternative).pvalue
        assert sign.pvalue == pytest.approx(expected, rel=1e-9)
        wil = _quiet(arrays.wilcoxon_kfold, x, alternative=alternative)
        ref = stats.wilcoxon(x[x != 0], alternative=alternative, method="exact")
        if len(set(np.abs(x[x != 0]))) == nonzero:  # scipy's exact law assumes no ties
            assert wil.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        assert _quiet(arrays.wilcoxon_kfold, -x, alternative=mirrored).pvalue == pytest.approx(
            wil.pvalue
        )


def test_wilcoxon_with_tied_ranks_is_the_exact_law_over_sign_flips() -> None:
    """Ten equal non-zero differences all get rank 5.5, so T+ = 5.5·(number of positive
    signs) and its exact law given the ranks is 5.5·Bin(10, ½): all ten positive has
    P = 2⁻¹⁰ one-sided and 2·2⁻¹⁰ two-sided (the normal approximation would give 0.0020
    only by chance of rounding)."""
    res = arrays.wilcoxon_kfold(np.full(10, 0.01), alternative="greater")
    assert res.pvalue == pytest.approx(2.0**-10)
    assert arrays.wilcoxon_kfold(np.full(10, 0.01)).pvalue == pytest.approx(2.0**-9)


@pytest.mark.parametrize(
    ("b", "c"), [(0, 1), (1, 0), (0, 7), (7, 0), (3, 3), (1, 1), (12, 4), (4, 12), (40, 25)]
)
def test_mcnemar_methods_on_small_and_balanced_counts_are_the_binomial_law(b, c) -> None:
    """Exact: p = min(1, 2·Bin(b + c, ½).cdf(min(b, c))); mid-p: exact − pmf(min(b, c)),
    and 1 − ½·pmf(b; 2b, ½) when b = c; corrected: max(|b − c| − 1, 0)²/(b + c) ~ χ²(1)
    (docs/methods.md §2.1). Every method is symmetric in b and c (A and B swapped)."""
    n, k = b + c, min(b, c)
    exact = min(1.0, 2 * stats.binom.cdf(k, n, 0.5))
    midp = (
        1 - 0.5 * stats.binom.pmf(b, 2 * b, 0.5) if b == c else exact - stats.binom.pmf(k, n, 0.5)
    )
    corrected = max(abs(b - c) - 1, 0) ** 2 / n
    assert arrays.mcnemar(b, c, "exact").pvalue == pytest.approx(exact, rel=1e-12)
    assert arrays.mcnemar(b, c, "midp").pvalue == pytest.approx(midp, rel=1e-12)
    assert arrays.mcnemar(b, c).statistic == pytest.approx(corrected)
    assert arrays.mcnemar(b, c).pvalue == pytest.approx(stats.chi2.sf(corrected, 1))
    for method in ("corrected", "uncorrected", "exact", "midp"):
        assert arrays.mcnemar(c, b, method).pvalue == pytest.approx(
            arrays.mcnemar(b, c, method).pvalue
        )


# ---------------------------------------------------------------- one model against p0


@pytest.mark.parametrize("errors", [0, 1, 3, 19, 20])
@pytest.mark.parametrize("alternative", ["less", "greater", "two-sided"])
def test_binomial_test_and_clopper_pearson_at_zero_and_all_errors(errors, alternative) -> None:
    """One-sided p is the binomial tail (scipy.stats.binomtest); two-sided doubles the
    smaller tail (the module's stated rule, not binomtest's minlike rule); the interval is
    Clopper–Pearson (statsmodels' method="beta"), one-sided for a one-sided alternative,
    with the end at 0 or 1 where no error or every record is an error."""
    n, p0, alpha = 20, 0.1, 0.1
    res = arrays.binomial_test(errors, n, p0, alternative=alternative)
    upper = stats.binom.sf(errors - 1, n, p0)
    lower = stats.binom.cdf(errors, n, p0)
    expected = {"greater": upper, "less": lower, "two-sided": min(1.0, 2 * min(upper, lower))}
    assert res.pvalue == pytest.approx(expected[alternative], rel=1e-9, abs=1e-300)
    two = alternative == "two-sided"
    low, high = proportion_confint(errors, n, alpha=alpha if two else 2 * alpha, method="beta")
    want = {"two-sided": (low, high), "less": (0.0, high), "greater": (low, 1.0)}[alternative]
    assert res.conf_int(alpha) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("errors", [0, 20])
def test_the_wald_interval_of_zero_width_says_so(errors) -> None:
    """At p̂ = 0 or 1, Wald's p̂ ± z·sqrt(p̂(1 − p̂)/N) is the single point p̂ (Brown, Cai &
    DasGupta 2001, §2.1: its coverage is 0 at any other error rate). cvreport showed
    "95% interval (0, 0)" without a word; the interval stays the documented one and a
    note now says what it is and names the exact interval to use instead."""
    res = arrays.normal_test(errors, 20, 0.1, alternative="two-sided")
    assert res.conf_int() == pytest.approx((errors / 20, errors / 20))
    assert any("zero width" in note and "Clopper–Pearson" in note for note in res.notes)
    assert "zero width" in res.summary().as_text()
    z = (errors / 20 - 0.1) / math.sqrt(0.1 * 0.9 / 20)
    assert res.statistic == pytest.approx(z)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)))
    assert not any("zero width" in note for note in arrays.normal_test(3, 20, 0.1).notes)


# ---------------------------------------------------------------- margins


@pytest.mark.parametrize("alternative", ["equivalent", "non-inferior"])
@pytest.mark.parametrize("delta", [0.0, 0.01, -0.01])
def test_a_margin_test_with_zero_variance_says_which_convention_gave_its_p(
    alternative, delta
) -> None:
    """Every split difference equal to D: SE = 0. Against the margin m, t_lower =
    (D + m)/0 and t_upper = (D − m)/0 are ±inf (docs/methods.md §0: p = 0 on the side
    of the alternative, 1 otherwise). With D = 0 and m = 0.02, both one-sided tests give
    p = 0: "equivalent" and "non-inferior" are "established" by the convention. The
    result carried only the warning of the test of no difference, which says "statistic
    = 0 and p = 1" beside a reported p = 0; it now also says, in the margin's own words,
    which convention gave p, and that it is no evidence."""
    margin = 0.02
    x = np.full(6, delta)
    with pytest.warns(DegenerateStatisticWarning, match="against the margin ±0.02"):
        res = arrays.corrected_resampled_ttest(x, 0.25, alternative=alternative, margin=margin)
    assert res.pvalue == 0.0  # |D| < m: both one-sided tests reject by convention
    assert res.pvalue_lower == 0.0 and res.pvalue_upper == 0.0
    words = [w for w in res.warnings if "against the margin" in w]
    assert len(words) == 1 and "p = 0" in words[0] and "not read" in words[0]
    assert "against the margin" in res.summary().as_text()


def test_a_margin_test_with_zero_variance_on_the_margin_gives_p_one() -> None:
    """D = m exactly with SE = 0: t_upper = 0/0, the 0/0 convention (statistic 0, p = 1)
    applies to H0: D ≥ m, so the equivalence is not shown (p = 1) and the words say p = 1."""
    with pytest.warns(DegenerateStatisticWarning, match="gives p = 1"):
        res = arrays.corrected_resampled_ttest(
            np.full(4, 0.5), 0.25, alternative="equivalent", margin=0.5
        )
    assert res.pvalue == 1.0 and res.pvalue_upper == 1.0 and res.pvalue_lower == 0.0


def test_a_margin_test_with_variance_has_no_margin_warning() -> None:
    """The warning is for SE = 0 only; TOST on ordinary data: p = max of the one-sided
    p-values (Schuirmann 1987) with t = (D̂ ± m)/SE ~ t(J − 1)."""
    d = np.array([0.02, -0.01, 0.03, 0.0, 0.01, 0.02, -0.02, 0.01, 0.04, 0.0])
    res = arrays.corrected_resampled_ttest(d, 0.25, alternative="equivalent", margin=0.05)
    se = math.sqrt((1 / 10 + 0.25) * d.var(ddof=1))
    p_low = stats.t.sf((d.mean() + 0.05) / se, 9)
    p_high = stats.t.cdf((d.mean() - 0.05) / se, 9)
    assert res.pvalue == pytest.approx(max(p_low, p_high))
    assert not res.warnings


# ---------------------------------------------------------------- records of one test set


def _delong(y, a, b):
    """DeLong et al. (1988) from ψ directly (O(mn)): θ̂, V10, V01, S = S10/m + S01/n."""
    pos, neg = y == 1, y == 0

    def components(s):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        return psi.mean(), psi.mean(axis=1), psi.mean(axis=0)

    ta, a10, a01 = components(a)
    tb, b10, b01 = components(b)
    s = np.cov(np.vstack([a10, b10])) / pos.sum() + np.cov(np.vstack([a01, b01])) / neg.sum()
    return ta - tb, s[0, 0] + s[1, 1] - 2 * s[0, 1]


@SETTINGS
@given(seed=st.integers(0, 10_000), alpha=st.sampled_from([0.01, 0.1]))
def test_delong_with_tied_scores_is_the_formula_and_mirrors(seed, alpha) -> None:
    """Scores on a coarse grid (many ties, ψ = ½) against DeLong's formula; AUC is a
    score, so the estimate is AUC(A) − AUC(B) and swapping A and B mirrors it."""
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, rng.integers(0, 2, 28)]
    a = np.round(rng.random(30) + 0.4 * y, 1)
    b = np.round(rng.random(30) + 0.2 * y, 1)
    est, var = _delong(y, a, b)
    if var <= 1e-14:
        return
    res, swapped = arrays.delong_test(y, a, b), arrays.delong_test(y, b, a)
    z = est / math.sqrt(var)
    q = stats.norm.ppf(1 - alpha / 2)
    assert res.direction == "higher"
    assert res.estimate == pytest.approx(est, abs=1e-12)
    assert res.statistic == pytest.approx(z, rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    assert res.conf_int(alpha) == pytest.approx(
        (est - q * math.sqrt(var), est + q * math.sqrt(var))
    )
    assert swapped.estimate == pytest.approx(-res.estimate)
    assert swapped.pvalue == pytest.approx(res.pvalue)
    # "greater" is H1: AUC(A) > AUC(B): p = 1 − Φ(z)
    greater = arrays.delong_test(y, a, b, alternative="greater")
    assert greater.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-9)


def test_a_permutation_test_whose_swaps_never_change_the_difference_says_so() -> None:
    """Identical predictions: every swap of the two models' outputs gives difference 0, so
    p = (1 + R)/(1 + R) = 1 (Noreen 1989). cvreport gave p = 1 without a word, where the
    bootstrap on the same data warns; both now explain it."""
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0] * 3)
    pred = np.array([0, 1, 0, 0, 1, 1, 1, 1, 0, 1] * 3)
    res = arrays.paired_permutation_test(y, pred, pred, n_resamples=199, random_state=0)
    assert res.estimate == 0.0 and res.pvalue == 1.0
    assert len(res.warnings) == 1 and "same difference" in res.warnings[0]
    assert "same difference" in res.summary().as_text()
    other = np.where(np.arange(30) % 7 == 0, 1 - pred, pred)
    assert not arrays.paired_permutation_test(
        y, pred, other, n_resamples=199, random_state=0
    ).warnings


# ---------------------------------------------------------------- unequal sizes, scores


def test_unequal_validation_sizes_use_the_ratio_of_summed_sizes() -> None:
    """Repeated hold-out with validation sets of 10, 20, 15 and 25 of n records: n2/n1 =
    Σ n2 / Σ (n − n2) (docs/methods.md §3.3, as Weka), not the mean of the ratios; the
    Bayesian correlated t takes ρ = r/(1 + r) (Corani & Benavoli 2015)."""
    rng = np.random.default_rng(1)
    n, sizes, rows = 60, [10, 20, 15, 25], []
    for rep, size in enumerate(sizes):
        validation = rng.choice(n, size, replace=False)
        for model, p in (("A", 0.3), ("B", 0.2)):
            for record in validation:
                rows.append((rep, model, record, int(rng.random() < p)))
    frame = pd.DataFrame(rows, columns=["replication", "model", "record", "loss"])
    table = cvreport.ResultsTable.from_formula("loss ~ model | replication", frame)
    seen = frame.record.nunique()
    n2 = np.array(sizes)
    ratio = n2.sum() / (seen - n2).sum()
    assert ratio != pytest.approx(np.mean(n2 / (seen - n2)))  # the two readings differ here
    means = frame.groupby(["replication", "model"]).loss.mean().unstack()
    d = (means.A - means.B).to_numpy()
    t = d.mean() / math.sqrt((1 / d.size + ratio) * d.var(ddof=1))
    res = cvreport.corrected_resampled_ttest(table, "A", "B")
    assert res.statistic == pytest.approx(t, rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), d.size - 1), rel=1e-9)
    bayes = cvreport.bayesian_correlated_ttest(table, "A", "B")
    assert bayes.correlation == pytest.approx(ratio / (1 + ratio))


@pytest.mark.parametrize("name", ["corrected_repeated_kfold_ttest", "bayesian_correlated_ttest"])
def test_a_score_is_reported_in_its_own_direction(name) -> None:
    """Accuracy = 1 − 0/1 loss: the estimate is accuracy(A) − accuracy(B) = −(loss(A) −
    loss(B)), the statistic mirrors, p stays, "less" of the score is "greater" of the loss,
    and the summary names the higher accuracy as better."""
    frame = cvreport.load_example()
    losses = cvreport.ResultsTable.from_formula("loss ~ model | replication + fold", frame)
    frame = frame.assign(accuracy=1 - frame["loss"]).drop(columns="loss")
    scores = cvreport.ResultsTable.from_formula(
        "accuracy ~ model | replication + fold", frame, direction="higher"
    )
    call = getattr(cvreport, name)
    a, b = "logistic_regression", "naive_bayes"
    loss, score = call(losses, a, b), call(scores, a, b)
    assert score.direction == "higher" and loss.direction == "lower"
    assert score.estimate == pytest.approx(-loss.estimate)
    assert score.statistic == pytest.approx(-loss.statistic)
    assert score.pvalue == pytest.approx(loss.pvalue)
    low, high = loss.conf_int(0.1)
    assert score.conf_int(0.1) == pytest.approx((-high, -low))
    assert call(scores, a, b, alternative="less").pvalue == pytest.approx(
        call(losses, a, b, alternative="greater").pvalue
    )
    text = score.summary(0.1).as_text()
    level = "90% credible interval" if name.startswith("bayesian") else "90% interval"
    assert "higher accuracy" in text and level in text and "95%" not in text


def test_clusters_with_equal_means_up_to_rounding_have_zero_robust_variance() -> None:
    """Cluster means 0.1 each ((0.3 − 0.1)/2, (0.7 − 0.5)/2, …): every cluster's sum of
    residuals Σ_{i∈c}(s_i − s̄) is 0, so the cluster-robust variance (1/n²) Σ_c (…)² is 0
    (Miller 2024) and docs/methods.md §0 applies: z = +inf, p = 0, with a warning. In
    floating point the sums are 1e-17; cvreport returned z = 2.2e16, p = 0 and no word."""
    d = np.array([0.3, -0.1, 0.7, -0.5, 0.2, 0.0, 0.15, 0.05])
    clusters = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    res = arrays.clustered_paired_test(d, clusters)
    assert res.statistic == math.inf and res.pvalue == 0.0
    assert len(res.warnings) == 1 and "cluster-robust variance is 0" in res.warnings[0]


def test_the_cluster_robust_test_on_ordinary_data_is_statsmodels() -> None:
    """OLS of the differences on a constant with cov_type="cluster": statsmodels' default
    factor G/(G − 1)·(N − 1)/(N − k) is G/(G − 1) for one regressor (k = 1), cvreport's
    default; use_correction=False drops it, as small_sample_correction=False does. z is
    referred to N(0, 1)."""
    import statsmodels.api as sm

    d = np.array([0.3, -0.1, 0.7, -0.5, 0.2, 0.0, 0.15, 0.05, 0.4])
    clusters = np.array([0, 0, 1, 1, 2, 2, 3, 3, 3])
    for corrected in (True, False):
        fit = sm.OLS(d, np.ones(d.size)).fit(
            cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": corrected}
        )
        res = arrays.clustered_paired_test(d, clusters, small_sample_correction=corrected)
        assert res.standard_error == pytest.approx(float(fit.bse[0]), rel=1e-9)
        assert res.statistic == pytest.approx(float(fit.tvalues[0]), rel=1e-9)
        assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(fit.tvalues[0])), rel=1e-9)
        assert not res.warnings


@pytest.mark.parametrize("test", ["wilcoxon_kfold", "sign_test"])
@pytest.mark.parametrize(
    ("differences", "alternative", "smallest"),
    [
        ([0.01, 0.02, 0.01, 0.03, 0.02], "two-sided", 0.0625),
        ([0.01, 0.0, -0.02, 0.03], "greater", 0.125),
        ([0.01, 0.03], "two-sided", 0.5),
        ([0.01], "less", 0.5),
    ],
)
def test_few_folds_say_the_smallest_p_value_they_can_give(
    test, differences, alternative, smallest
) -> None:
    """Zeros dropped, n differences left: all of one sign is the only pattern as extreme
    as itself among the 2^n equally likely ones (Wilcoxon 1945), so p ≥ 2^−n one-sided and
    ≥ 2^(1−n) two-sided. Five folds cannot reject at 0.05 two-sided (p ≥ 0.0625); the
    many-data-sets Wilcoxon said so, the K-fold tests gave p = 0.0625 without a word."""
    call = getattr(arrays, test)
    res = call(differences, alternative=alternative)
    assert res.pvalue >= smallest - 1e-15
    extreme = call(np.abs(differences) + 0.01, alternative="two-sided")
    n = int(np.count_nonzero(differences))
    if alternative == "two-sided":
        assert extreme.pvalue == pytest.approx(min(1.0, 2.0 ** (1 - n)))
    assert any(
        "smallest p-value this test can give" in n_ and f"{smallest:.4g}" in n_ for n_ in res.notes
    )
    assert not any("smallest p-value" in n_ for n_ in call(np.arange(1, 8) * 0.01).notes)
