"""The many-data-sets statistics against scipy.stats, scikit-posthocs, autorank and baycomp."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cvreport.multi import (
    bayesian_signed_rank,
    critical_difference,
    friedman_test,
    pairwise_wilcoxon,
    rank_scores,
    wilcoxon_signed_rank,
)
from tests.multi.demsar import TABLE6, TABLE6_RANKED


def _scores(n: int, k: int, seed: int, *, rounded: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = 0.7 + 0.1 * rng.random((n, 1)) + 0.03 * rng.standard_normal((n, k))
    values += np.linspace(0, 0.02, k)  # a small trend so that some pairs differ
    if rounded is not None:
        values = values.round(rounded)  # ties
    return pd.DataFrame(
        values, index=[f"d{i}" for i in range(n)], columns=[f"m{j}" for j in range(k)]
    )


CASES = [(14, 4, 0, None), (8, 5, 1, None), (20, 3, 2, 2), (6, 7, 3, 2), (30, 10, 4, None)]


@pytest.mark.parametrize("n, k, seed, rounded", CASES)
@pytest.mark.parametrize("direction", ["lower", "higher"])
def test_friedman_agrees_with_scipy(n, k, seed, rounded, direction):
    scores = _scores(n, k, seed, rounded=rounded)
    ours = friedman_test(scores, direction)
    theirs = stats.friedmanchisquare(*scores.to_numpy().T)
    assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-12)
    assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)
    # the Iman–Davenport F recomputed from scipy's statistic
    f = (n - 1) * theirs.statistic / (n * (k - 1) - theirs.statistic)
    assert ours.f_statistic == pytest.approx(f, abs=1e-12)
    assert ours.f_pvalue == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), abs=1e-12)


def test_friedman_tie_correction_on_demsar_table():
    corrected = friedman_test(TABLE6, "higher")
    uncorrected = friedman_test(TABLE6, "higher", tie_correction=False)
    theirs = stats.friedmanchisquare(*TABLE6.to_numpy().T)
    assert corrected.statistic == pytest.approx(theirs.statistic, abs=1e-12)
    assert corrected.statistic > uncorrected.statistic == uncorrected.statistic_uncorrected
    assert any("tied" in w for w in corrected.warnings)


@pytest.mark.parametrize("n, k, seed, rounded", CASES)
def test_wilcoxon_agrees_with_scipy(n, k, seed, rounded):
    scores = _scores(n, k, seed, rounded=rounded)
    for a, b in itertools.combinations(scores.columns, 2):
        ours = wilcoxon_signed_rank(scores[a], scores[b], "higher")
        difference = np.round(scores[b] - scores[a], 12)
        if not difference.any():
            continue
        theirs = stats.wilcoxon(difference, zero_method="zsplit")
        assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-12)
        assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)
        assert min(ours.r_plus, ours.r_minus) == pytest.approx(theirs.statistic, abs=1e-12)
        assert ours.r_plus + ours.r_minus == pytest.approx(n * (n + 1) / 2, abs=1e-12)


def test_pairwise_wilcoxon_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    scores = _scores(12, 5, 7)
    out = pairwise_wilcoxon(scores, "higher", correction="holm")
    raw = [
        stats.wilcoxon(np.round(scores[b] - scores[a], 12), zero_method="zsplit").pvalue
        for a, b in itertools.combinations(scores.columns, 2)
    ]
    assert out["pvalue"].to_numpy() == pytest.approx(raw, abs=1e-12)
    holm = multipletests(raw, method="holm")[1]
    assert out["adjusted"].to_numpy() == pytest.approx(holm, abs=1e-12)


@pytest.mark.parametrize("n, k, seed, rounded", [*CASES, (14, 4, 9, 2)])
def test_ranks_and_nemenyi_agree_with_scikit_posthocs(n, k, seed, rounded):
    sp = pytest.importorskip("scikit_posthocs")
    scores = _scores(n, k, seed, rounded=rounded)
    ours = critical_difference(friedman_test(scores, "higher").average_ranks, n)
    theirs = sp.posthoc_nemenyi_friedman(scores.to_numpy())
    theirs.index = theirs.columns = scores.columns
    mine = ours.pvalues.loc[scores.columns, scores.columns].to_numpy()
    assert mine == pytest.approx(theirs.to_numpy(), abs=1e-9)
    # scikit-posthocs ranks the rows with scipy (1 = smallest): our "lower" ranks
    expected = scores.rank(axis=1).mean()
    assert rank_scores(scores, "lower").mean().to_numpy() == pytest.approx(expected, abs=1e-12)


def test_nemenyi_agrees_with_scikit_posthocs_on_demsar():
    sp = pytest.importorskip("scikit_posthocs")
    ours = critical_difference(friedman_test(TABLE6_RANKED, "higher").average_ranks, 14)
    theirs = sp.posthoc_nemenyi_friedman(TABLE6_RANKED.to_numpy())
    theirs.index = theirs.columns = TABLE6_RANKED.columns
    mine = ours.pvalues.loc[TABLE6_RANKED.columns, TABLE6_RANKED.columns].to_numpy()
    assert mine == pytest.approx(theirs.to_numpy(), abs=1e-9)


@pytest.mark.parametrize("n, k, seed, rounded", [(14, 4, 0, None), (10, 6, 5, 2), (25, 8, 6, None)])
@pytest.mark.parametrize("direction, order", [("higher", "descending"), ("lower", "ascending")])
def test_ranks_and_cd_agree_with_autorank(n, k, seed, rounded, direction, order):
    autorank = pytest.importorskip("autorank")
    scores = _scores(n, k, seed, rounded=rounded)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = autorank.autorank(
            scores,
            alpha=0.05,
            order=order,
            approach="frequentist",
            force_mode="nonparametric",
            verbose=False,
        )
    ours = friedman_test(scores, direction)
    # autorank's "descending" order gives rank 1 to the largest value, "ascending" to the smallest
    expected = theirs.rankdf["meanrank"]
    assert ours.average_ranks[expected.index].to_numpy() == pytest.approx(expected, abs=1e-12)
    cd = critical_difference(ours.average_ranks, n).cd
    # autorank takes q from statsmodels' qsturng interpolation, good to about 1e-3
    assert cd == pytest.approx(theirs.cd, rel=2e-3)
    assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)


BAYES_SAMPLES = 20_000


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.02])
@pytest.mark.parametrize("seed", [0, 1])
def test_bayesian_signed_rank_agrees_with_baycomp(rope, seed):
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(100 + seed)
    a = 0.8 + 0.05 * rng.standard_normal(12)
    b = a + 0.01 + 0.015 * rng.standard_normal(12)
    ours = bayesian_signed_rank(a, b, "higher", rope=rope, n_samples=BAYES_SAMPLES, seed=seed)
    theirs = baycomp.SignedRankTest(a, b, rope, nsamples=BAYES_SAMPLES, random_state=seed)
    if rope > 0:
        expected = theirs.probs(True)
        got = ours.probabilities
    else:
        expected = theirs.probs(False)
        got = (ours.p_a_better, ours.p_b_better)
    # two independent Monte Carlo estimates of the same probability: their difference has
    # standard deviation √(2 p (1 − p) / n) ≤ 0.0050 at n = 20 000; allow five of them
    for mine, reference in zip(got, expected):
        sd = np.sqrt(2 * max(reference * (1 - reference), 1 / BAYES_SAMPLES) / BAYES_SAMPLES)
        assert abs(mine - reference) <= 5 * sd + 1e-12


def test_bayesian_signed_rank_seeded_and_mirrored():
    a = [0.80, 0.71, 0.90, 0.65, 0.88, 0.77, 0.93, 0.69]
    b = [0.83, 0.74, 0.90, 0.70, 0.91, 0.80, 0.94, 0.72]
    first = bayesian_signed_rank(a, b, "higher", n_samples=5000, seed=3)
    again = bayesian_signed_rank(a, b, "higher", n_samples=5000, seed=3)
    swapped = bayesian_signed_rank(b, a, "higher", n_samples=5000, seed=3)
    as_loss = bayesian_signed_rank(
        1 - np.array(a), 1 - np.array(b), "lower", n_samples=5000, seed=3
    )
    assert first.probabilities == again.probabilities
    assert swapped.probabilities == first.probabilities[::-1]
    assert as_loss.probabilities == pytest.approx(first.probabilities, abs=1e-12)
