"""Many pairs at once: the vectorised tests against their definitions, and their edge cases.

The Bayesian signed-rank test is recomputed from the paper's double sum with the
very same Dirichlet draws; the Wilcoxon tests against scipy.stats.wilcoxon pair
by pair, in each of scipy's three methods; Holm against statsmodels; the
per-data-set tests against the tests' own functions called pair by pair.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import cvreport
from cvreport.data.datasets import DatasetsTable
from cvreport.errors import CVReportError
from cvreport.multi import (
    bayesian_signed_rank,
    compare_datasets,
    pairwise_wilcoxon,
    per_dataset_tests,
    wilcoxon_signed_rank,
)
from cvreport.multi.bayesian import (
    DEFAULT_SAMPLES,
    MIN_AUTOMATIC_SAMPLES,
    automatic_samples,
    bayesian_signed_rank_pairs,
)
from cvreport.multi.per_dataset import holm_adjusted


def _double_sum(a, b, rope, n_samples, seed, prior=0.5):
    """Benavoli et al. (2017) as written: θ = Σ_ij w_i w_j H(z_i + z_j ∓ 2 rope), per draw."""
    z = np.concatenate([[0.0], np.round(np.asarray(b) - np.asarray(a), 12)])
    walsh = z[:, None] + z[None, :]
    right = (walsh > 2 * rope) + 0.5 * (walsh == 2 * rope)
    left = (-walsh > 2 * rope) + 0.5 * (-walsh == 2 * rope)
    weights = np.ones(z.size)
    weights[0] = prior
    draws = np.random.default_rng(seed).dirichlet(weights, n_samples)
    theta_right = np.einsum("si,ij,sj->s", draws, right, draws)
    theta_left = np.einsum("si,ij,sj->s", draws, left, draws)
    theta = np.column_stack([theta_left, 1 - theta_left - theta_right, theta_right])
    return np.bincount(theta.argmax(axis=1), minlength=3) / n_samples


def _scores(n: int, k: int, seed: int, decimals: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = 0.7 + 0.1 * rng.random((n, 1)) + 0.02 * rng.standard_normal((n, k))
    values += np.linspace(0, 0.02, k)
    return pd.DataFrame(values.round(decimals), columns=[f"m{j}" for j in range(k)], index=range(n))


# N ≤ 48 takes the matrix product, N > 48 the sorted cumulative sums; two decimals make
# Walsh sums fall exactly on ±2·rope
@pytest.mark.parametrize("n", [6, 12, 48, 49, 120])
@pytest.mark.parametrize("rope", [0.0, 0.01, 0.02])
def test_bayesian_pairs_equal_the_double_sum_on_the_same_draws(n, rope):
    scores = _scores(n, 4, seed=n, decimals=2)
    pairs = list(itertools.combinations(scores.columns, 2))
    results = bayesian_signed_rank_pairs(scores, pairs, "higher", rope=rope, n_samples=3000)
    for (a, b), result in zip(pairs, results):
        expected = _double_sum(scores[a], scores[b], rope, 3000, seed=0)
        assert result.probabilities == pytest.approx(tuple(expected), abs=1e-12)
        single = bayesian_signed_rank(
            scores[a], scores[b], "higher", rope=rope, n_samples=3000, models=(a, b)
        )
        assert single.probabilities == result.probabilities
        assert result.models == (a, b) and result.n_samples == 3000


def test_bayesian_pairs_mirror_exactly_and_follow_the_direction():
    scores = _scores(60, 3, seed=4, decimals=3)
    pairs = [("m0", "m1"), ("m1", "m0"), ("m0", "m2"), ("m2", "m0")]
    forward = bayesian_signed_rank_pairs(scores, pairs, "higher", n_samples=4000, seed=9)
    assert forward[0].probabilities == forward[1].probabilities[::-1]
    assert forward[2].probabilities == forward[3].probabilities[::-1]
    as_loss = bayesian_signed_rank_pairs(1 - scores, pairs, "lower", n_samples=4000, seed=9)
    for mine, theirs in zip(forward, as_loss):
        assert mine.probabilities == pytest.approx(theirs.probabilities, abs=1e-12)


@pytest.mark.parametrize("n", [8, 70])
def test_identical_models_get_symmetric_probabilities_at_any_rope(n):
    baycomp = pytest.importorskip("baycomp")
    a = _scores(n, 1, seed=1, decimals=3)["m0"].to_numpy()
    # at rope = 0 every draw has θ_left = θ_right = ½: the vote is shared (baycomp leaves
    # it to the rounding of 1 − θ_right, docs/methods.md)
    tied = bayesian_signed_rank(a, a.copy(), "higher", rope=0, n_samples=5000)
    assert tied.probabilities == (0.5, 0.0, 0.5)
    assert any("posterior is symmetric" in w for w in tied.warnings)
    for rope in (0.001, 0.01, 0.5):
        same = bayesian_signed_rank(a, a.copy(), "lower", rope=rope, n_samples=5000)
        assert same.probabilities == (0.0, 1.0, 0.0)
        theirs = baycomp.SignedRankTest.probs(a, a.copy(), rope, nsamples=500, random_state=0)
        assert tuple(map(float, theirs)) == same.probabilities
    frame = pd.DataFrame({"x": a, "y": a.copy(), "z": a + 0.05})
    rows = bayesian_signed_rank_pairs(frame, [("x", "y"), ("y", "x")], "higher", rope=0)
    assert rows[0].probabilities == rows[1].probabilities == (0.5, 0.0, 0.5)


def test_a_tie_on_half_the_draws_splits_only_those_votes():
    # z = (0, +d, −d): every draw has θ_left = θ_right exactly when the two data-set
    # weights are equal, which they never are; the result is symmetric only in law
    a = np.array([0.5, 0.5])
    b = np.array([0.6, 0.4])
    result = bayesian_signed_rank(a, b, "higher", rope=0, n_samples=20_000)
    assert result.p_equivalent == 0.0
    assert result.p_a_better == pytest.approx(0.5, abs=5 * result.mc_standard_error)
    expected = _double_sum(a, b, 0, 20_000, seed=0)
    assert result.probabilities == pytest.approx(tuple(expected), abs=1e-12)


def test_automatic_draws_shrink_with_the_work_and_say_so():
    assert automatic_samples(1, 30) == DEFAULT_SAMPLES
    assert automatic_samples(19_900, 12) == MIN_AUTOMATIC_SAMPLES
    few = automatic_samples(45, 1000)
    assert MIN_AUTOMATIC_SAMPLES < few < DEFAULT_SAMPLES
    scores = _scores(200, 8, seed=3, decimals=3)
    result = compare_datasets(scores, direction="higher")
    draws = result.bayesian[0].n_samples
    assert draws == automatic_samples(28, 200) < DEFAULT_SAMPLES
    note = [n for n in result.notes if "posterior draws per pair" in n]
    assert len(note) == 1 and f"{draws:,}" in note[0]
    bound = max(r.mc_standard_error for r in result.bayesian)
    assert f"{bound:.3f}" in note[0] and bound <= 0.5 / np.sqrt(draws)
    chosen = compare_datasets(scores, direction="higher", n_samples=3000)
    assert chosen.bayesian[0].n_samples == 3000
    assert not any("posterior draws per pair" in n for n in chosen.notes)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "many", True, float("nan")])
def test_bayesian_pairs_refuse_bad_draws(bad):
    scores = _scores(10, 2, seed=0, decimals=3)
    with pytest.raises(CVReportError, match="n_samples"):
        bayesian_signed_rank_pairs(scores, [("m0", "m1")], "higher", n_samples=bad)
    with pytest.raises(CVReportError, match="not models"):
        bayesian_signed_rank_pairs(scores, [("m0", "nope")], "higher")


# --- Wilcoxon: the p-value follows scipy's choice of method, and the warning names it ---


def test_wilcoxon_small_sample_with_ties_is_the_exact_sign_flip_p_value():
    a = np.array([0.80, 0.71, 0.90, 0.65, 0.88, 0.77, 0.93, 0.69, 0.75, 0.81])
    b = np.array([0.83, 0.74, 0.90, 0.70, 0.91, 0.80, 0.94, 0.72, 0.73, 0.86])
    ours = wilcoxon_signed_rank(a, b, "higher")
    d = np.round(b - a, 12)
    assert ours.pvalue == pytest.approx(stats.wilcoxon(d, zero_method="zsplit").pvalue, abs=1e-12)
    exact = stats.wilcoxon(d, zero_method="zsplit", method=stats.PermutationMethod()).pvalue
    normal = stats.wilcoxon(d, zero_method="zsplit", method="asymptotic").pvalue
    assert ours.pvalue == pytest.approx(exact, abs=1e-12)
    assert abs(ours.pvalue - normal) > 1e-3  # the normal approximation is not what is used
    # by hand: the 2^10 sign flips of the ranks (zeros keep their half ranks on each side)
    ranks = stats.rankdata(np.abs(d))
    movable = np.where(d == 0, 0.0, ranks)
    flips = (np.arange(2**10)[:, None] >> np.arange(10)) & 1
    null = flips @ movable
    observed = movable[d > 0].sum()
    by_hand = min(1.0, 2 * min((null <= observed).mean(), (null >= observed).mean()))
    assert ours.pvalue == pytest.approx(by_hand, abs=1e-12)
    (warning,) = [w for w in ours.warnings if "p-value" in w]
    assert "exact over all 2^10 sign flips" in warning
    assert "normal approximation" not in warning


def test_wilcoxon_larger_sample_with_ties_is_the_normal_approximation():
    rng = np.random.default_rng(2)
    a = rng.random(20).round(2)
    b = (a + rng.normal(0.02, 0.03, 20)).round(2)
    ours = wilcoxon_signed_rank(a, b, "higher")
    d = np.round(b - a, 12)
    assert (d == 0).any() or len(np.unique(np.abs(d))) < 20
    normal = stats.wilcoxon(d, zero_method="zsplit", method="asymptotic").pvalue
    assert ours.pvalue == pytest.approx(normal, abs=1e-12)
    assert ours.pvalue == pytest.approx(stats.wilcoxon(d, zero_method="zsplit").pvalue, abs=1e-12)
    (warning,) = [w for w in ours.warnings if "p-value" in w]
    assert "normal approximation with the tie correction" in warning


@pytest.mark.parametrize("n, decimals", [(7, 2), (12, 2), (13, 2), (14, 2), (30, 6), (60, 6)])
def test_pairwise_wilcoxon_equals_scipy_pair_by_pair(n, decimals):
    scores = _scores(n, 6, seed=n, decimals=decimals)
    scores.iloc[: n // 3, 1] = scores.iloc[: n // 3, 0]  # zero differences for one pair
    out = pairwise_wilcoxon(scores, "higher", correction="holm")
    for row in out.itertuples():
        d = np.round(scores[row.b] - scores[row.a], 12).to_numpy()
        theirs = stats.wilcoxon(d, zero_method="zsplit")
        assert row.pvalue == pytest.approx(theirs.pvalue, abs=1e-12), (row.a, row.b)
        assert row.statistic == pytest.approx(theirs.statistic, abs=1e-12)
    assert out["adjusted"].to_numpy() == pytest.approx(
        multipletests(out["pvalue"], method="holm")[1], abs=1e-12
    )


# --- notes name their pairs; Holm; per-data-set tests in a batch ---


def test_tie_notes_name_their_pairs_once():
    scores = _scores(10, 4, seed=5, decimals=2)
    scores["m1"] = scores["m0"]  # identical pair
    scores.iloc[:3, 3] = scores.iloc[:3, 2]  # three zero differences for m2 vs m3
    result = compare_datasets(scores, direction="higher", n_samples=2000)
    notes = list(result.notes)
    assert len(notes) == len(set(notes))
    identical = [n for n in notes if "score the same on every data set" in n]
    assert identical and all(n.startswith("m0 vs m1: ") for n in identical)
    equal = int((scores["m2"] == scores["m3"]).sum())
    assert equal >= 3
    zeros = [n for n in notes if f"{equal} data sets with equal scores" in n]
    assert len(zeros) == 1 and zeros[0].startswith("m2 vs m3: ")
    shared = [n for n in notes if ": equal absolute differences share their average rank" in n]
    exact = [n for n in notes if "sign flips" in n]
    assert len(exact) == 1 and exact[0].endswith(
        "the p-value is exact over all 2^10 sign flips of the differences (the permutation "
        "distribution, which allows for ties and zeros), as scipy.stats.wilcoxon computes it "
        "for N ≤ 13."
    )
    # m2 vs m3 has tied absolute differences beside its zeros: one bullet names all five
    assert len(shared) == 1 and shared[0].startswith(
        "m0 vs m2, m0 vs m3, m1 vs m2, m1 vs m3, m2 vs m3: "
    )
    for note in notes:
        if "Wilcoxon" in note or "ranks split" in note or "sign flips" in note:
            head = note.split(": ")[0]
            assert head == "Every pair" or " vs " in head, note


def test_holm_equals_statsmodels():
    rng = np.random.default_rng(0)
    for size in (1, 2, 7, 40):
        p = rng.random(size) ** 3
        p[: size // 3] = p[0]  # ties
        assert holm_adjusted(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-15)


def _fold_table(n_datasets: int, k: int, seed: int, direction: str) -> DatasetsTable:
    rng = np.random.default_rng(seed)
    rows = []
    for dataset in range(n_datasets):
        level = rng.uniform(0.6, 0.9)
        models = [level + 0.01 * model + rng.normal(0, 0.02, 10) for model in range(k)]
        models[1] = models[0]  # a copy of model 0: a degenerate pair on every data set
        for model, scores in enumerate(models):
            for fold, score in enumerate(scores.round(3)):
                rows.append((f"d{dataset}", f"m{model}", fold + 1, score))
    frame = pd.DataFrame(rows, columns=["dataset", "model", "fold", "value"])
    return DatasetsTable.from_formula(
        "value ~ model | fold | dataset", frame, per_fold=True, direction=direction
    )


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_per_dataset_batch_equals_the_tests_called_pair_by_pair(direction):
    table = _fold_table(4, 5, seed=3, direction=direction)
    tests = per_dataset_tests(table)
    rows = tests.comparisons
    assert len(rows) == 4 * 10
    for row in rows.itertuples():
        one = getattr(cvreport, row.test)(table.tables[row.dataset], row.a, row.b)
        assert row.pvalue == pytest.approx(one.pvalue, abs=1e-12)
        assert row.statistic == pytest.approx(one.statistic, abs=1e-12)
        if (row.a, row.b) == ("m0", "m1"):  # the degenerate pair keeps its explanation
            assert row.pvalue == 1.0 and "variance" in row.note
        else:
            assert pd.isna(row.note)
    for dataset, part in rows.groupby("dataset"):
        expected = multipletests(part["pvalue"], method="holm")[1]
        assert part["adjusted"].to_numpy() == pytest.approx(expected, abs=1e-12), dataset
    matrix = tests.win_tie_loss_matrix()
    for a, b in itertools.permutations(table.models, 2):
        pair = rows[((rows["a"] == a) & (rows["b"] == b)) | ((rows["a"] == b) & (rows["b"] == a))]
        wins, losses = int((pair["better"] == a).sum()), int((pair["better"] == b).sum())
        assert matrix.loc[a, b] == f"{wins}/{len(pair) - wins - losses}/{losses}"
