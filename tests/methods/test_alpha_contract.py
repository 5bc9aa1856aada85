"""One contract about levels, checked for every result type the registry produces.

``summary(alpha)`` and ``to_frame(alpha)`` speak the level they are given: the
interval is the ``1 − alpha`` interval (``1 − 2 alpha`` against a margin), it
stands right after the quantity it is an interval of, and the decision is taken
and named at ``alpha``. A result of a test added to the registry is checked
here without a line of its own.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from cvreport import arrays
from cvreport.methods.registry import SPECS
from cvreport.results import level_text
from tests._designs import TABLES, run

ALPHAS = (0.01, 0.05, 0.1)
MARGIN_TESTS = (
    "corrected_resampled_ttest",
    "corrected_repeated_kfold_ttest",
    "cv_confidence_interval",
)


def _record_data(seed: int = 5, n: int = 300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score_a = np.clip(y * 0.35 + rng.normal(0.35, 0.25, n), 0, 1)
    score_b = np.clip(y * 0.25 + rng.normal(0.4, 0.25, n), 0, 1)
    hard_a = np.where(rng.random(n) < 0.82, y, 1 - y)
    hard_b = np.where(rng.random(n) < 0.78, y, 1 - y)
    return y, score_a, score_b, hard_a, hard_b


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _record_results():
    """The record-level tests that run on one test set (no table design of their own)."""
    y, score_a, score_b, hard_a, hard_b = _record_data()
    clusters = np.repeat(np.arange(60), 5)
    resampling = {"n_resamples": 499, "random_state": 0}
    return {
        "delong_test": _quiet(arrays.delong_test, y, score_a, score_b),
        "delong_test/equivalent": _quiet(
            arrays.delong_test, y, score_a, score_b, alternative="equivalent", margin=0.1
        ),
        "paired_bootstrap_test": _quiet(
            arrays.paired_bootstrap_test, y, hard_a, hard_b, **resampling
        ),
        "paired_bootstrap_test/percentile": _quiet(
            arrays.paired_bootstrap_test, y, hard_a, hard_b, method="percentile", **resampling
        ),
        "paired_permutation_test": _quiet(
            arrays.paired_permutation_test, y, hard_a, hard_b, **resampling
        ),
        "clustered_paired_test": _quiet(
            arrays.clustered_paired_test, (hard_a == y) * 1.0 - (hard_b == y), clusters
        ),
    }


def _all_results():
    results = {}
    for spec in SPECS:
        for kind in spec.designs:
            args = ("A",) if spec.models == 1 else ("A", "B")
            results[f"{spec.name}/{kind}"] = run(spec, TABLES[kind], *args)
            if spec.models == 1:
                results[f"{spec.name}/{kind}/less"] = run(
                    spec, TABLES[kind], *args, alternative="less"
                )
        if spec.name in MARGIN_TESTS:
            kind = spec.designs[0]
            for alternative in ("equivalent", "non-inferior"):
                results[f"{spec.name}/{kind}/{alternative}"] = run(
                    spec, TABLES[kind], "A", "B", alternative=alternative, margin=0.08
                )
    results.update(_record_results())
    return results


RESULTS = _all_results()


def test_every_result_type_of_the_registry_is_checked():
    checked = {type(result) for result in RESULTS.values()}
    assert {spec.result for spec in SPECS} <= checked


def _interval_row(rows):
    for index, row in enumerate(rows):
        if re.search(r"interval( of .*)?$", row.label) and isinstance(row.value, tuple):
            return index
    return None


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("key", sorted(RESULTS))
def test_summary_shows_the_interval_at_alpha_beside_its_estimate(key, alpha):
    result = RESULTS[key]
    summary = result.summary(alpha)
    rows = list(summary.rows)
    level = level_text(result.interval_level(alpha))
    # every level and every α printed is alpha's
    for row in rows:
        for shown in re.findall(r"\d+(?:\.\d+)?%", row.label):
            assert shown == level, (key, row.label)
        for shown in re.findall(r"α = ([0-9.]+)", row.label):
            assert float(shown) == alpha, (key, row.label)
    decisions = [row for row in rows if row.label.startswith("reject H0")]
    if decisions:
        assert [(row.label, row.value) for row in decisions] == [
            (f"reject H0 at α = {alpha:g}", result.reject(alpha))
        ]
    text = summary.as_text()
    assert f"{level} " in text or not result.has_conf_int
    if alpha != 0.05 and result.margin is None:
        assert "α = 0.05" not in text and "95% interval" not in text
    index = _interval_row(rows)
    if not result.has_conf_int:
        assert index is None, key
        return
    assert index is not None and index > 0, key
    low, high = result.conf_int(alpha)
    assert rows[index].label.startswith(level)
    assert rows[index].value == pytest.approx((low, high), nan_ok=True)
    # the row before the interval is the quantity the interval is about, and it lies inside
    about = rows[index - 1].value
    expected = result.estimate if result.interval_about is None else result.center
    if result.interval_about is None and hasattr(result, "location"):
        expected = result.location  # the posterior's location is its estimate
    assert about == pytest.approx(expected, rel=1e-12), (key, rows[index - 1].label)
    assert low - 1e-12 <= about <= high + 1e-12, key


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("key", sorted(RESULTS))
def test_to_frame_puts_the_interval_of_the_estimate_at_alpha_beside_it(key, alpha):
    result = RESULTS[key]
    row = result.to_frame(alpha).iloc[0]
    if "estimate" not in row.index:  # pragma: no cover - every registry result has one
        pytest.fail(f"{key}: to_frame has no estimate")
    assert row["alpha"] == alpha
    assert bool(row["reject"]) == result.reject(alpha)
    assert row["ci_level"] == pytest.approx(result.interval_level(alpha))
    interval = result.estimate_interval(alpha)
    if interval is None:
        assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])
        return
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(result.conf_int(alpha))
    assert row["ci_low"] - 1e-12 <= row["estimate"] <= row["ci_high"] + 1e-12


def test_an_interval_wider_at_a_smaller_alpha():
    """A hand check of the t interval: mean ± t_{K−1, 1−α/2} · s/√K (scipy's quantile)."""
    stats = pytest.importorskip("scipy.stats")
    d = np.array([0.02, 0.01, 0.03, 0.0, 0.02, 0.015])
    result = arrays.paired_ttest_kfold(d)
    for alpha in ALPHAS:
        half = stats.t.ppf(1 - alpha / 2, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
        row = result.to_frame(alpha).iloc[0]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((d.mean() - half, d.mean() + half))
        text = result.summary(alpha).as_text()
        assert f"{level_text(1 - alpha)} interval" in text
        assert f"reject H0 at α = {alpha:g}" in text
