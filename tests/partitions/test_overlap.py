"""The overlap statistic Z of Wang, Li & Li (2015) and its distribution (docs/methods.md)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvreport.errors import CVReportError
from cvreport.partitions.overlap import (
    _overlaps_by_cells,
    _overlaps_by_permutation,
    overlap_distribution,
    overlap_mean,
    overlap_quantile,
    overlap_var,
    simulate_zmax,
    zmax_sf,
    zmax_tail,
)

# Wang, Li & Li (2015), Tables 5–8, every printed row: (n from, n to, k(P > 0.2), k(P > 0.1)),
# n in steps of 4. Table 5 is two partitions (m = 2), Tables 6, 7, 8 are m = 3, 7, 11.
TABLE5 = [
    (40, 60, 1, 2), (64, 72, 2, 2), (76, 116, 2, 3), (120, 120, 3, 3), (124, 176, 3, 4),
    (180, 196, 3, 5), (200, 248, 4, 5), (252, 292, 4, 6), (296, 332, 5, 6), (336, 408, 5, 7),
    (412, 424, 6, 7), (428, 532, 6, 8), (536, 548, 6, 9), (552, 652, 7, 9), (656, 700, 7, 10),
    (704, 780, 8, 10), (784, 876, 8, 11), (880, 924, 9, 11), (928, 1024, 9, 12),
]  # fmt: skip
TABLE6 = [
    (40, 44, 2, 2), (48, 60, 2, 3), (64, 72, 3, 3), (76, 100, 3, 4), (104, 108, 4, 4),
    (112, 148, 4, 5), (152, 200, 5, 6), (204, 208, 5, 7), (212, 256, 6, 7), (260, 276, 6, 8),
    (280, 320, 7, 8), (324, 356, 7, 9), (360, 392, 8, 9), (396, 444, 8, 10), (448, 472, 9, 10),
    (476, 544, 9, 11), (548, 556, 10, 11), (560, 652, 10, 12), (656, 752, 11, 13),
    (756, 768, 11, 14), (772, 860, 12, 14), (864, 896, 12, 15), (900, 972, 13, 15),
    (976, 1024, 13, 16),
]  # fmt: skip
TABLE7 = [
    # The first row is printed as (40–48, 3, 3). For n = 44 and 48 the printed
    # k(0.1) = 3 is a misprint (docs/methods.md): P(Z_max > 4) = 0.1188 (n = 44) and
    # 0.1672 (n = 48) exceed 0.1, so the largest k with P(Z_max > k) > 0.1 is 4.
    # The row is split here and n = 44, 48 are asserted at their correct value 4.
    (40, 40, 3, 3), (44, 48, 3, 4),
    (52, 60, 4, 4), (64, 72, 4, 5), (76, 84, 5, 5), (88, 104, 5, 6),
    (108, 112, 6, 6), (116, 136, 6, 7), (140, 144, 7, 7), (148, 176, 7, 8), (180, 184, 8, 8),
    (188, 220, 8, 9), (224, 224, 9, 9), (228, 268, 9, 10), (272, 316, 10, 11), (320, 324, 10, 12),
    (328, 368, 11, 12), (372, 380, 11, 13), (384, 428, 12, 13), (432, 444, 12, 14),
    (448, 488, 13, 14), (492, 512, 13, 15), (516, 552, 14, 15), (556, 588, 14, 16),
    (592, 620, 15, 16), (624, 664, 15, 17), (668, 696, 16, 17), (700, 748, 16, 18),
    (752, 772, 17, 18), (776, 836, 17, 19), (840, 852, 18, 19), (856, 928, 18, 20),
    (932, 936, 19, 20), (940, 1024, 19, 21),
]  # fmt: skip
TABLE8 = [
    (40, 40, 3, 4), (44, 48, 4, 4), (52, 56, 4, 5), (60, 68, 5, 5), (72, 80, 5, 6),
    (84, 92, 6, 6), (96, 108, 6, 7), (112, 120, 7, 7), (124, 140, 7, 8), (144, 148, 8, 8),
    (152, 172, 8, 9), (176, 184, 9, 9), (188, 212, 9, 10), (216, 220, 10, 10), (224, 256, 10, 11),
    (260, 260, 11, 11), (264, 300, 11, 12), (304, 304, 12, 12), (308, 348, 12, 13),
    (352, 352, 12, 14), (356, 400, 13, 14), (404, 408, 13, 15), (412, 452, 14, 15),
    (456, 464, 14, 16), (468, 508, 15, 16), (512, 528, 15, 17), (532, 568, 16, 17),
    (572, 592, 16, 18), (596, 632, 17, 18), (636, 664, 17, 19), (668, 696, 18, 19),
    (700, 736, 18, 20), (740, 768, 19, 20), (772, 812, 19, 21), (816, 840, 20, 21),
    (844, 896, 20, 22), (900, 916, 21, 22), (920, 980, 21, 23), (984, 996, 22, 23),
    (1000, 1024, 22, 24),
]  # fmt: skip
TABLES = {2: TABLE5, 3: TABLE6, 7: TABLE7, 11: TABLE8}


@pytest.mark.parametrize("m", sorted(TABLES))
def test_tables_cover_every_sample_size_once(m: int) -> None:
    sizes = [n for lo, hi, _, _ in TABLES[m] for n in range(lo, hi + 1, 4)]
    assert sizes == list(range(40, 1025, 4))


@pytest.mark.parametrize("m", sorted(TABLES))
def test_overlap_quantile_reproduces_wang_li_li_2015_tables_5_to_8(m: int) -> None:
    wrong = []
    for lo, hi, k20, k10 in TABLES[m]:
        for n in range(lo, hi + 1, 4):
            got = (overlap_quantile(n, m, 0.2), overlap_quantile(n, m, 0.1))
            if got != (k20, k10):
                wrong.append((n, (k20, k10), got))
    assert wrong == []


@pytest.mark.parametrize(("n", "tail"), [(44, 0.1188), (48, 0.1672)])
def test_table7_misprints_are_misprints(n: int, tail: float) -> None:
    # printed k(0.1) = 3 would need P(Z_max > 4) <= 0.1; it is not
    assert zmax_sf(4, n, 7) == pytest.approx(tail, abs=5e-5)
    assert zmax_sf(5, n, 7) <= 0.1
    assert overlap_quantile(n, 7, 0.1) == 4
    # and a Monte Carlo over real random partitions agrees (4 standard errors)
    sim = zmax_sf(4, n, 7, method="simulate", n_sim=20_000, random_state=n)
    assert abs(sim - tail) < 4 * math.sqrt(tail * (1 - tail) / 20_000)


def _direct_moments(n: int) -> tuple[float, float, float]:
    """P(Z = 0), E Z, E Z² by exact summation of the hypergeometric law.

    Integer arithmetic throughout: with weights W_k = C(a, k)·C(n − a, a − k) and
    a = n // 2, n·Z = |k n − a²| is an integer, so every sum is exact and only
    the final division rounds.
    """
    a = n // 2
    total = math.comb(n, a)
    weights = [math.comb(a, k) * math.comb(n - a, a - k) for k in range(a + 1)]
    dev = [abs(k * n - a * a) for k in range(a + 1)]
    zero = sum(w for w, d in zip(weights, dev) if d == 0)
    first = sum(w * d for w, d in zip(weights, dev))
    second = sum(w * d * d for w, d in zip(weights, dev))
    return (
        float(Fraction(zero, total)),
        float(Fraction(first, total * n)),
        float(Fraction(second, total * n * n)),
    )


def test_mean_and_variance_match_direct_summation_for_n_4_to_1024() -> None:
    for n in range(4, 1025):
        p0, ez, ez2 = _direct_moments(n)
        dist = overlap_distribution(n)
        assert dist.mean == pytest.approx(ez, rel=1e-12, abs=1e-14), n
        assert dist.var == pytest.approx(ez2 - ez * ez, rel=1e-10, abs=1e-14), n
        if n % 4 == 0:
            # closed forms of docs/methods.md (Wang, Li & Li (2015) eq 6 for E Z²)
            assert dist.pmf(0) == pytest.approx(p0, rel=1e-12)
            assert ez == pytest.approx(n / 8 * p0, rel=1e-12)
            assert ez2 == pytest.approx(n * n / (16 * (n - 1)), rel=1e-12)


def test_reference_figures() -> None:
    d40 = overlap_distribution(40)
    assert d40.pmf(0) == pytest.approx(0.247629, abs=5e-7)
    assert d40.mean == pytest.approx(1.238144, abs=5e-7)
    assert d40.var == pytest.approx(1.031101, abs=5e-7)
    assert overlap_mean(1024) == pytest.approx(6.378403, abs=5e-7)
    assert overlap_var(1024) == pytest.approx(23.378535, abs=5e-7)


def test_pmf_matches_wang_li_li_2015_equations_3_and_4() -> None:
    n, q = 48, 12
    dist = overlap_distribution(n)
    denominator = math.comb(n, 2 * q)
    assert dist.pmf(0) == pytest.approx(math.comb(2 * q, q) ** 2 / denominator, rel=1e-13)
    for z in range(1, q + 1):
        expected = 2 * math.comb(2 * q, q - z) ** 2 / denominator
        assert dist.pmf(z) == pytest.approx(expected, rel=1e-12)
    # eq (4) is decreasing in z (Remark 1), the support ends at n/4
    assert np.all(np.diff(dist.pmf(np.arange(1, q + 1))) < 0)
    assert dist.values.max() == q
    assert dist.pmf(q + 1) == 0.0
    assert dist.pmf(0.5) == 0.0  # off the support


def test_large_n_in_log_space() -> None:
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    n = 10_000_000
    dist = overlap_distribution(n)

    def log_comb(a: int, b: int) -> object:
        return mpmath.loggamma(a + 1) - mpmath.loggamma(b + 1) - mpmath.loggamma(a - b + 1)

    exact_p0 = float(mpmath.e ** (2 * log_comb(n // 2, n // 4) - log_comb(n, n // 2)))
    assert dist.pmf(0) == pytest.approx(exact_p0, rel=1e-10)
    exact_p3000 = float(2 * mpmath.e ** (2 * log_comb(n // 2, n // 4 - 3000) - log_comb(n, n // 2)))
    assert dist.pmf(3000) == pytest.approx(exact_p3000, rel=1e-9)
    assert float(np.exp(dist.log_pmf).sum()) == pytest.approx(1.0, abs=1e-12)
    # E Z = (n/8)·P(Z = 0) holds at this size too
    assert dist.mean == pytest.approx(n / 8 * exact_p0, rel=1e-10)
    # a tail far below the double precision of 1 − cdf is still resolved
    from scipy.stats import hypergeom

    far = 2 * hypergeom.sf(n // 4 + 7999, n, n // 2, n // 2)
    assert 0 < dist.tail(8000) < 1e-20
    assert dist.tail(8000) == pytest.approx(far, rel=1e-6)
    assert dist.logtail(8000) == pytest.approx(math.log(far), rel=1e-9)


def test_tail_sf_and_cdf_agree() -> None:
    dist = overlap_distribution(200)
    z = np.arange(0, 12)
    assert np.allclose(dist.tail(z[1:]), dist.sf(z[:-1]))
    assert np.allclose(dist.cdf(z) + dist.sf(z), 1.0)
    assert dist.tail(0) == 1.0
    assert dist.sf(-1) == 1.0
    assert dist.sf(50) == 0.0


def test_n_not_multiple_of_four() -> None:
    # n ≡ 2 (mod 4): Z takes half-integer values, still symmetric pairs
    d = overlap_distribution(10)
    assert d.values.tolist() == [0.5, 1.5, 2.5]
    # X ~ H(10, 5, 5) on 0..5, Z = |X − 2.5|: P(Z = 0.5) = 2·C(5,2)·C(5,3)/C(10,5)
    assert d.pmf(0.5) == pytest.approx(2 * 10 * 10 / 252)
    # unequal training sizes: E X = a b / n
    d = overlap_distribution(11, sizes=(5, 6))
    assert d.expected_overlap == pytest.approx(30 / 11)
    assert float(np.exp(d.log_pmf).sum()) == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=3000))
def test_distribution_is_a_distribution(n: int) -> None:
    d = overlap_distribution(n)
    p = np.exp(d.log_pmf)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(d.values) > 0)
    assert d.tail(d.values[0]) == pytest.approx(1.0)
    if n % 4 == 0:
        assert d.mean == pytest.approx(n / 8 * d.pmf(0), rel=1e-9)


def test_zmax_sf_is_independence_model() -> None:
    n, m = 200, 5
    dist = overlap_distribution(n)
    for k in range(0, 12):
        assert zmax_sf(k, n, m) == pytest.approx(1 - dist.cdf(k) ** 10, rel=1e-12, abs=1e-15)
    # m = 2 is one pair
    assert zmax_sf(3, n, 2) == pytest.approx(dist.sf(3), rel=1e-12)
    # the p-value of an observed Z_max
    assert zmax_tail(9, n, m) == pytest.approx(zmax_sf(8, n, m))
    assert zmax_tail(0, n, m) == 1.0


def test_simulation_schemes_agree_with_a_plain_shuffle() -> None:
    n, m, sims = 40, 3, 3000
    rng = np.random.default_rng(7)
    plain = np.empty(sims)
    for s in range(sims):
        train = np.zeros((m, n), dtype=int)
        for j in range(m):
            train[j, rng.permutation(n)[: n // 2]] = 1
        ov = train @ train.T
        plain[s] = np.abs(ov[np.triu_indices(m, 1)] - n / 4).max()
    cells = np.abs(_overlaps_by_cells(n, m, sims, np.random.default_rng(1)) - n / 4).max(axis=1)
    perm = np.abs(_overlaps_by_permutation(n, m, sims, np.random.default_rng(2)) - n / 4).max(
        axis=1
    )
    se = plain.std() / math.sqrt(sims) * math.sqrt(2)
    assert abs(cells.mean() - plain.mean()) < 4 * se
    assert abs(perm.mean() - plain.mean()) < 4 * se
    # and the independence model is close to the real joint law (docs/methods.md)
    model = float(np.sum(zmax_sf(np.arange(0, 12), n, m)))  # E Z_max = Σ P(Z_max > k)
    assert abs(model - plain.mean()) < 4 * se + 0.01


def test_simulate_zmax_is_reproducible() -> None:
    a = simulate_zmax(100, 4, n_sim=500, random_state=3)
    b = simulate_zmax(100, 4, n_sim=500, random_state=3)
    assert np.array_equal(a, b)
    assert a.shape == (500,)


def test_bad_arguments() -> None:
    with pytest.raises(CVReportError, match="alpha"):
        overlap_quantile(40, 3, 1.5)
    with pytest.raises(CVReportError, match="m must be"):
        zmax_sf(1, 40, 1)
    with pytest.raises(CVReportError, match="n must be"):
        overlap_distribution(1)
    with pytest.raises(CVReportError, match="method"):
        zmax_sf(1, 40, 3, method="exact")  # type: ignore[arg-type]
    with pytest.raises(CVReportError, match="sizes"):
        overlap_distribution(10, sizes=(0, 5))
    # nothing exceeds 0 with probability above 0.9 for one pair at n = 8
    assert overlap_quantile(8, 2, 0.9) == -1
