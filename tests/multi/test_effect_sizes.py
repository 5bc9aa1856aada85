"""Effect sizes across data sets against autorank, R's effsize and hand computations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from autorank import autorank
from hypothesis import given, settings
from hypothesis import strategies as st

from cvreport.errors import CVReportError
from cvreport.multi.effect_sizes import (
    cliffs_delta,
    cohens_d,
    hedges_g,
    magnitude,
    pairwise_effect_sizes,
)


def scores(seed: int, n: int = 20, k: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.8, 0.05, size=(n, 1))
    values = base + rng.normal(0, 0.02, size=(n, k)) + np.linspace(0, 0.03, k)
    return pd.DataFrame(values, columns=[f"m{j}" for j in range(k)])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("measure", ["cohen_d", "cliff_delta"])
def test_against_autorank(seed: int, measure: str) -> None:
    data = scores(seed)
    result = autorank(data, alpha=0.05, verbose=False, effect_size=measure, force_mode="parametric")
    ranked = result.rankdf
    best = ranked.index[0]
    ours = pairwise_effect_sizes(data, [(best, m) for m in ranked.index[1:]])
    for row in ours.itertuples():
        assert getattr(row, measure) == pytest.approx(ranked.loc[row.b, "effect_size"], abs=1e-12)
        words = row.delta_magnitude if measure == "cliff_delta" else magnitude(row.cohen_d, measure)
        assert words == ranked.loc[row.b, "magnitude"]


def test_cliffs_interval_against_r_effsize() -> None:
    # R effsize's own test output: cliff.delta(x1, x2) with its defaults
    x1 = [10, 20, 20, 20, 30, 30, 30, 40, 50, 100]
    x2 = [10, 20, 30, 40, 40, 50]
    delta, low, high = cliffs_delta(x1, x2)
    assert delta == pytest.approx(-0.06666667, abs=5e-9)
    assert (low, high) == pytest.approx((-0.6082254, 0.5172431), abs=5e-8)


def test_hedges_g_by_hand() -> None:
    a, b = np.array([0.81, 0.84, 0.79, 0.9, 0.86]), np.array([0.8, 0.8, 0.76, 0.85, 0.86])
    s = math.sqrt((4 * a.var(ddof=1) + 4 * b.var(ddof=1)) / 8)
    d = (a.mean() - b.mean()) / s
    g = d * (1 - 3 / (4 * 10 - 9))
    se = math.sqrt(10 / 25 + g * g / 20)
    assert cohens_d(a, b) == pytest.approx(d, rel=1e-12)
    assert hedges_g(a, b, alpha=0.1) == pytest.approx((g, g - 1.6448536 * se, g + 1.6448536 * se))


def test_pairs_at_once_equal_one_at_a_time() -> None:
    data = scores(7, n=9, k=5)
    data.iloc[2, 1] = data.iloc[2, 3]  # a tie across models
    pairs = list(itertools.combinations(data.columns, 2))
    frame = pairwise_effect_sizes(data, pairs, alpha=0.1)
    for row in frame.itertuples():
        assert row.cohen_d == pytest.approx(cohens_d(data[row.a], data[row.b]), rel=1e-12)
        g = hedges_g(data[row.a], data[row.b], alpha=0.1)
        assert (row.hedges_g, row.g_low, row.g_high) == pytest.approx(g, rel=1e-12)
        delta = cliffs_delta(data[row.a], data[row.b], alpha=0.1)
        assert (row.cliff_delta, row.delta_low, row.delta_high) == pytest.approx(delta, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=12),
    st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=12),
)
def test_cliffs_delta_is_the_dominance_mean_and_swaps_sign(x: list[float], y: list[float]) -> None:
    delta, low, high = cliffs_delta(x, y)
    dominance = np.sign(np.subtract.outer(np.array(x), np.array(y)))
    assert delta == pytest.approx(dominance.mean(), abs=1e-12)
    mirrored = cliffs_delta(y, x)
    if abs(delta) == 1:  # complete dominance: no interval
        assert math.isnan(low) and math.isnan(high) and mirrored[0] == -delta
        return
    assert -1 <= low <= delta <= high <= 1
    assert mirrored == pytest.approx((-delta, -high, -low), abs=1e-12)


def test_degenerate_and_bad_input() -> None:
    assert math.isnan(cohens_d([0.5, 0.5], [0.5, 0.5]))
    assert cohens_d([0.6, 0.6], [0.5, 0.5]) == math.inf
    assert magnitude(math.nan, "cohen_d") == "undefined"
    with pytest.raises(CVReportError, match="two scores"):
        cohens_d([0.5], [0.4, 0.3])
    with pytest.raises(CVReportError, match="NaN"):
        cliffs_delta([0.5, np.nan], [0.4, 0.3])
    with pytest.raises(CVReportError, match="no scores for model 'x'"):
        pairwise_effect_sizes(scores(1), [("m0", "x")])
    with pytest.raises(CVReportError, match="measure"):
        magnitude(0.3, "eta")
