"""One contract over every member of the result family, the many-data-sets results and the audit included.

Every concrete subclass of :class:`cvreport.results.Result` has a sample here
(a new type fails :func:`test_every_result_type_has_a_sample` until it gets
one). For each, at α = 0.01, 0.05 and 0.1: ``summary(alpha)`` and
``to_frame(alpha)`` speak that level, the interval of the estimate stands
right after it at that level where the result has one, one alpha check refuses
a bad level, and the result displays itself in a notebook.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cvreport
from cvreport.errors import CVReportError
from cvreport.multi.bayesian import bayesian_signed_rank
from cvreport.multi.friedman import friedman_test
from cvreport.multi.pairwise import wilcoxon_signed_rank
from cvreport.results import (
    HypothesisTestResult,
    NormalTestResult,
    Result,
    TestResult,
    level_text,
)
from tests.methods.test_alpha_contract import RESULTS as REGISTRY_RESULTS

ALPHAS = (0.01, 0.05, 0.1)

# Demšar (2006) Table 2: AUC of C4.5 and C4.5 with m tuned on 14 data sets
C45 = [
    0.763,
    0.599,
    0.954,
    0.628,
    0.882,
    0.936,
    0.661,
    0.583,
    0.775,
    1.0,
    0.940,
    0.619,
    0.972,
    0.957,
]
C45M = [
    0.768,
    0.591,
    0.971,
    0.661,
    0.888,
    0.931,
    0.668,
    0.583,
    0.838,
    1.0,
    0.962,
    0.666,
    0.981,
    0.978,
]
SCORES = pd.DataFrame(
    {
        "C4.5": C45,
        "C4.5+m": C45M,
        "C4.5+cf": [
            0.771,
            0.590,
            0.968,
            0.654,
            0.886,
            0.931,
            0.656,
            0.586,
            0.821,
            1.0,
            0.940,
            0.623,
            0.970,
            0.955,
        ],
    }
)


def _concrete_results() -> set[type]:
    for module in pkgutil.walk_packages(cvreport.__path__, "cvreport."):
        if module.name.startswith(("cvreport.jupyter", "cvreport.cli")):
            continue
        importlib.import_module(module.name)
    found, todo = set(), [Result]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("cvreport."):
            found.add(cls)
    return found - {Result, HypothesisTestResult, TestResult}


def _hierarchical() -> Result:
    pytest.importorskip("numpyro")
    from cvreport.multi.hierarchical import hierarchical_test_array

    rng = np.random.default_rng(3)
    advantages = [rng.normal(0.01, 0.02, 10) for _ in range(6)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hierarchical_test_array(advantages, rho=0.1, n_samples=300, n_warmup=300)


def _audit() -> Result:
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    return cvreport.audit_overlap(table)


SAMPLES = {
    **REGISTRY_RESULTS,
    "friedman": friedman_test(SCORES, "higher"),
    "multi wilcoxon": wilcoxon_signed_rank(C45, C45M, "higher", models=("C4.5", "C4.5+m")),
    "bayesian signed rank": bayesian_signed_rank(
        C45, C45M, "higher", n_samples=2000, models=("C4.5", "C4.5+m")
    ),
    "audit": _audit(),
    # the z kind of TestResult, built by hand: z = 0.02 / 0.008 = 2.5
    "normal": NormalTestResult(
        statistic=2.5,
        pvalue=float(2 * stats.norm.sf(2.5)),
        estimate=0.02,
        standard_error=0.008,
        models=("A", "B"),
        method="z test",
    ),
}
LAZY_SAMPLES = {"hierarchical": _hierarchical}
KEYS = sorted(SAMPLES) + sorted(LAZY_SAMPLES)


def _sample(key: str) -> Result:
    if key not in SAMPLES:
        SAMPLES[key] = LAZY_SAMPLES[key]()
    return SAMPLES[key]


def test_every_result_type_has_a_sample():
    sampled = {type(result) for result in SAMPLES.values()}
    sampled.add(importlib.import_module("cvreport.multi.hierarchical").HierarchicalResult)
    assert _concrete_results() <= sampled, _concrete_results() - sampled


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("key", KEYS)
def test_summary_and_frame_speak_the_level_they_are_given(key: str, alpha: float) -> None:
    result = _sample(key)
    rows = list(result.summary(alpha).rows)
    for row in rows:
        for shown in re.findall(r"α = ([0-9.]+)", row.label):
            assert float(shown) == alpha, (key, row.label)
    frame = result.to_frame(alpha)
    assert len(frame) == 1
    if isinstance(result, HypothesisTestResult):
        decisions = [row for row in rows if row.label.startswith("reject H0")]
        # a posterior and the audit take no decision at a level; the others take it at alpha
        assert [row.value for row in decisions] in ([], [result.reject(alpha)]), key
        if "reject" in frame:
            assert frame["alpha"].item() == alpha
            assert bool(frame["reject"].item()) == result.reject(alpha)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("key", KEYS)
def test_the_interval_of_the_estimate_stands_beside_it_at_alpha(key: str, alpha: float) -> None:
    result = _sample(key)
    interval = result.estimate_interval(alpha) if isinstance(result, TestResult) else None
    if interval is None:  # no interval of the estimate: none is shown as if it were one
        frame = result.to_frame(alpha)
        if "ci_low" in frame:
            assert math.isnan(frame["ci_low"].item()) and math.isnan(frame["ci_high"].item())
        return
    low, high = result.conf_int(alpha)
    rows = list(result.summary(alpha).rows)
    level = level_text(result.interval_level(alpha))
    at = next(i for i, row in enumerate(rows) if row.label.startswith(level))
    assert re.fullmatch(f"{re.escape(level)} (credible )?interval", rows[at].label)
    assert rows[at].value == pytest.approx((low, high))
    assert "estimate" in rows[at - 1].label  # the estimate, right before its interval
    assert rows[at - 1].value == pytest.approx(result.estimate)
    row = result.to_frame(alpha).iloc[0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
    assert row["ci_level"] == pytest.approx(1 - alpha if result.margin is None else 1 - 2 * alpha)
    assert low <= row["estimate"] <= high


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, True, "0.05", None])
@pytest.mark.parametrize("key", ["friedman", "multi wilcoxon", "bayesian signed rank", "audit"])
def test_one_alpha_check_refuses_a_bad_level(key: str, alpha: object) -> None:
    result = _sample(key)
    for view in (result.summary, result.to_frame):
        with pytest.raises(CVReportError, match="alpha must"):
            view(alpha)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", KEYS)
def test_every_result_displays_itself(key: str) -> None:
    result = _sample(key)
    html = result._repr_html_()
    assert result.summary().title.split("(")[0].strip()[:20] in html.replace("&#39;", "'")
    assert str(result) == result.summary().as_text()
    assert repr(result).strip()
    if isinstance(result, HypothesisTestResult):
        statistic, pvalue = result
        assert (statistic, pvalue) == (result.statistic, result.pvalue)


def test_friedman_summary_shows_scipys_statistic_and_the_f_decision():
    result = SAMPLES["friedman"]
    chi2, p = stats.friedmanchisquare(*(SCORES[c] for c in SCORES))
    rows = {row.label: row.value for row in result.summary(0.1).rows}
    assert rows["χ²_F (tie-corrected)"] == pytest.approx(chi2)
    assert rows["p-value (χ²)"] == pytest.approx(p)
    n, k = SCORES.shape
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)  # Iman & Davenport (1980)
    assert rows["Iman–Davenport F_F"] == pytest.approx(f)
    assert rows["reject H0 at α = 0.1 (F)"] == (stats.f.sf(f, k - 1, (k - 1) * (n - 1)) <= 0.1)
    frame = result.to_frame(0.1).iloc[0]
    assert (frame["statistic"], frame["f_df"], frame["f_df2"]) == pytest.approx(
        (chi2, k - 1, (k - 1) * (n - 1))
    )


def test_multi_wilcoxon_frame_matches_scipy():
    result = SAMPLES["multi wilcoxon"]
    peer = stats.wilcoxon(C45M, C45, zero_method="zsplit")
    row = result.to_frame(0.05).iloc[0]
    assert row["statistic"] == pytest.approx(peer.statistic)
    assert row["pvalue"] == pytest.approx(peer.pvalue)
    assert (row["model_a"], row["model_b"]) == ("C4.5", "C4.5+m")
    assert (row["wins_a"], row["ties"], row["wins_b"]) == (2, 2, 10)


def test_posterior_summary_shows_its_three_probabilities_summing_to_one():
    result = SAMPLES["bayesian signed rank"]
    rows = {row.label: row.value for row in result.summary(0.05).rows}
    shown = [rows["P(C4.5 better)"], rows["P(equivalent, within ±0.01)"], rows["P(C4.5+m better)"]]
    assert shown == list(result.probabilities)
    assert math.isclose(sum(shown), 1.0)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_the_z_interval_is_scipys(alpha: float) -> None:
    result = SAMPLES["normal"]
    expected = stats.norm.interval(1 - alpha, loc=0.02, scale=0.008)
    assert result.conf_int(alpha) == pytest.approx(expected)
    assert result.reject(alpha) == (2 * stats.norm.sf(2.5) <= alpha)
