"""Many data sets at the edges, round five: ties, zeros, swapped models, the rope's boundary.

Every expected value is computed from the formula (Demšar 2006; Benavoli et al. 2014,
2017) with scipy or numpy alone, never with cvreport's own helpers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from cvreport.errors import DegenerateStatisticWarning
from cvreport.multi.bayesian import bayesian_signed_rank
from cvreport.multi.friedman import friedman_test
from cvreport.multi.pairwise import wilcoxon_signed_rank

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateStatisticWarning)
        warnings.simplefilter("ignore", UserWarning)
        return call(*args, **kwargs)


# ---------------------------------------------------------------- many data sets


@SETTINGS
@given(
    scores=st.lists(
        st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.4]), min_size=3, max_size=3),
        min_size=3,
        max_size=8,
    )
)
def test_friedman_with_ties_is_scipys_and_ignores_the_direction_flip(scores) -> None:
    """Tied scores share average ranks; χ²_F divided by the tie factor is
    scipy.stats.friedmanchisquare's; Iman–Davenport F_F = (N − 1)χ²/(N(k − 1) − χ²)
    (Demšar 2006 §3.2.2). Negated scores read as "higher" rank exactly as the scores read
    as "lower", so every number is the same."""
    s = np.asarray(scores, dtype=float)
    if np.all(s == s[:, :1]):
        return  # every data set ties all models: scipy divides 0 by 0
    res = _quiet(friedman_test, pd.DataFrame(s), "lower")
    flipped = _quiet(friedman_test, pd.DataFrame(-s), "higher")
    ref = stats.friedmanchisquare(*s.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert flipped.statistic == pytest.approx(res.statistic) and flipped.pvalue == pytest.approx(
        res.pvalue
    )
    n, k = s.shape
    chi = res.statistic
    if n * (k - 1) - chi > 1e-9:
        f = (n - 1) * chi / (n * (k - 1) - chi)
        assert res.f_statistic == pytest.approx(f, rel=1e-9, abs=1e-12)
        assert res.f_pvalue == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-9)


@SETTINGS
@given(
    pairs=st.lists(
        # binary fractions: every difference is exact, so ties are ties for scipy too
        st.tuples(st.sampled_from([0.5, 0.625, 0.75, 0.875]), st.sampled_from([0.5, 0.75, 0.875])),
        min_size=3,
        max_size=10,
    )
)
def test_wilcoxon_over_data_sets_is_scipys_zsplit_and_swaps(pairs) -> None:
    """Demšar (2006) §3.2.1: zero differences split their ranks between R+ and R−
    (scipy's zero_method="zsplit"); swapping A and B swaps R+ and R− and keeps p."""
    a, b = (np.array(v, dtype=float) for v in zip(*pairs, strict=True))
    res = _quiet(wilcoxon_signed_rank, a, b, "higher")
    swapped = _quiet(wilcoxon_signed_rank, b, a, "higher")
    assert swapped.pvalue == pytest.approx(res.pvalue)
    assert (swapped.r_plus, swapped.r_minus) == pytest.approx((res.r_minus, res.r_plus))
    assert 0.0 <= res.pvalue <= 1.0
    if np.all(a == b):
        assert res.pvalue == 1.0 and res.warnings
        return
    ref = stats.wilcoxon(a - b, zero_method="zsplit")
    assert res.statistic == pytest.approx(ref.statistic)
    if a.size > 13 or not (np.any(a == b) or len(set(np.abs(a - b))) < a.size):
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_differences_equal_up_to_rounding_tie_across_data_sets() -> None:
    """0.7 − 0.8 and 0.9 − 0.8 are −0.10000000000000009 and 0.09999999999999998 in
    floating point; they are the same |difference| of 0.1 and must share rank 2.5 (with
    the zero's ranks split: R+ = R− = 3, Demšar 2006 §3.2.1). scipy.stats.wilcoxon ranks
    the rounding error (statistic 2.5); cvreport rounds the differences before ranking."""
    res = _quiet(wilcoxon_signed_rank, [0.7, 0.7, 0.9], [0.7, 0.8, 0.8], "higher")
    assert (res.r_plus, res.r_minus, res.statistic) == (3.0, 3.0, 3.0)
    assert res.pvalue == 1.0


def _signed_rank_posterior(d, rope, prior, draws, seed):
    """Benavoli et al. (2014) from the definition: z = (0, d_1, …, d_N) with Dirichlet
    weights (prior, 1, …, 1); θ_left = Σ_ij w_i w_j H(−(z_i + z_j) − 2 rope), θ_right the
    same above +2 rope, H(0) = ½; each draw votes for the largest of θ_left, θ_rope,
    θ_right."""
    z = np.r_[0.0, d]
    weights = np.ones(z.size)
    weights[0] = prior
    w = np.random.default_rng(seed).dirichlet(weights, draws)
    sums = z[:, None] + z[None, :]
    below = (sums < -2 * rope) + 0.5 * (sums == -2 * rope)
    above = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    left = np.einsum("ni,ij,nj->n", w, below, w)
    right = np.einsum("ni,ij,nj->n", w, above, w)
    middle = 1 - left - right
    return (
        float(np.mean((left > right) & (left > middle))),
        float(np.mean((right > left) & (right > middle))),
    )


def test_bayesian_signed_rank_on_the_ropes_boundary_is_the_exact_definition() -> None:
    """Scores in hundredths with rope 0.01: Walsh sums such as 0.01 + 0.01 and 0.02 + 0
    lie exactly on ±2·rope and count ½ on each side (H(0) = ½). With the differences
    taken as computed in floating point (0.80 − 0.78 = 0.020000000000000018) they fall on
    one side by rounding noise; baycomp does so and gives P(A better) ≈ 0.89 here, the
    definition on the decimal differences ≈ 0.82. cvreport rounds the differences first and
    agrees with the definition; swapping A and B swaps the two probabilities."""
    a = np.array([0.80, 0.82, 0.75, 0.90, 0.88, 0.70, 0.85, 0.79])
    b = np.array([0.78, 0.83, 0.70, 0.86, 0.88, 0.69, 0.80, 0.80])
    draws = 20_000
    ours = _quiet(bayesian_signed_rank, a, b, "higher", rope=0.01, n_samples=draws, seed=1)
    swapped = _quiet(bayesian_signed_rank, b, a, "higher", rope=0.01, n_samples=draws, seed=1)
    # "higher": A is better where a − b > 0, i.e. where the advantage of B, b − a, is below
    a_better, b_better = _signed_rank_posterior(np.round(b - a, 2), 0.01, 0.5, 200_000, seed=7)
    sd = np.sqrt(a_better * (1 - a_better) / draws)
    assert abs(ours.probabilities[0] - a_better) <= 5 * sd
    assert ours.probabilities[2] == pytest.approx(b_better, abs=5 * sd + 1e-3)
    assert swapped.probabilities == ours.probabilities[::-1]
    # the floating-point reading is far from it: the boundary matters here
    noisy, _ = _signed_rank_posterior(b - a, 0.01, 0.5, 200_000, seed=7)
    assert noisy - a_better > 0.05


@pytest.mark.parametrize("value", [0.0, 0.02, 0.03])
def test_the_hierarchical_test_refuses_folds_equal_up_to_rounding(value) -> None:
    """Ten folds of an advantage 0.02 on every data set: the advantages do not vary, so
    the model (Corani et al. 2017, which scales by the mean within-data-set sd) has nothing
    to fit. numpy gives np.full(10, 0.02).std() = 3.5e-18, not 0; cvreport divided the
    data by it (a factor 3e17) and reported P(A better) = 1 without a word, while the same
    data at 0.0 were refused. Equal up to rounding now counts as equal."""
    pytest.importorskip("numpyro", reason="the hierarchical test's sampler is an optional extra")
    from cvreport.errors import CVReportError
    from cvreport.multi.hierarchical import hierarchical_test_array

    advantages = [np.full(10, value) for _ in range(4)]
    assert value == 0.0 or np.std(advantages[0]) > 0  # what numpy makes of it
    with pytest.raises(CVReportError, match="constant"):
        hierarchical_test_array(advantages, rho=0.1, n_samples=100, n_warmup=100)


def test_cohens_d_of_scores_equal_up_to_rounding_is_undefined_as_the_ranks_tie() -> None:
    """0.1 + 0.2 = 0.30000000000000004: two models scoring 0.3 on three data sets, one of
    them once written as 0.1 + 0.2. The ranks tie them (average rank 1.5 each), and
    Cohen's d = (x̄ − ȳ)/s_pooled is 0/0 for equal constant samples (NaN, "undefined",
    documented). cvreport divided a 1.9e-17 mean difference by a 1.3e-17 pooled standard
    deviation and reported d = 1.41, a "large" effect; now both count as rounding error."""
    from cvreport.multi.effect_sizes import cohens_d, hedges_g, pairwise_effect_sizes
    from cvreport.multi.ranks import average_ranks

    a, b = [0.1 + 0.2, 0.3, 0.3], [0.3, 0.3, 0.3]
    scores = pd.DataFrame({"A": a, "B": b})
    assert average_ranks(scores, "higher").tolist() == [1.5, 1.5]
    assert np.isnan(cohens_d(a, b)) and np.isnan(hedges_g(a, b)[0])
    row = pairwise_effect_sizes(scores, [("A", "B")]).iloc[0]
    assert np.isnan(row.cohen_d) and row.g_magnitude == "undefined"
    # a difference well above rounding keeps its value: d = (x̄ − ȳ)/s_pooled
    c = [0.31, 0.3, 0.32]
    pooled = np.sqrt((np.var(c, ddof=1) + np.var(b, ddof=1)) / 2)
    assert cohens_d(c, b) == pytest.approx((np.mean(c) - 0.3) / pooled)
