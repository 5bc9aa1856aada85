"""Bergmann–Hommel and the pairwise Wilcoxon decisions."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvreport.errors import CVReportError
from cvreport.multi import bergmann_hommel, pairwise_wilcoxon, wilcoxon_signed_rank
from cvreport.multi.pairwise import _set_partitions

BELL = [1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147]


@pytest.mark.parametrize("k", range(1, 9))
def test_set_partitions_count_is_bell(k):
    labels = _set_partitions(k)
    assert labels.shape == (BELL[k], k)
    assert len({tuple(row) for row in labels}) == BELL[k]


def test_bergmann_hommel_three_models_by_hand():
    # exhaustive sets for 3 models: all three pairs, or any one pair alone
    p = {("a", "b"): 0.02, ("a", "c"): 0.001, ("b", "c"): 0.3}
    matrix = pd.DataFrame(1.0, index=list("abc"), columns=list("abc"))
    for (x, y), value in p.items():
        matrix.loc[x, y] = matrix.loc[y, x] = value
    adjusted = pd.DataFrame(bergmann_hommel(matrix), index=list("abc"), columns=list("abc"))
    smallest = min(p.values())
    for (x, y), value in p.items():
        assert adjusted.loc[x, y] == pytest.approx(max(3 * smallest, value), abs=1e-15)


def test_bergmann_hommel_four_models_by_hand():
    # for k = 4 the exhaustive sets are: all 6 pairs; the 3 pairs within a triple (4 ways);
    # 1 pair within a couple (6 ways); 2 disjoint pairs (3 ways)
    models = list("abcd")
    rng = np.random.default_rng(5)
    pairs = list(itertools.combinations(range(4), 2))
    p = dict(zip(pairs, rng.uniform(0.0001, 0.2, 6)))
    sets = [pairs]
    sets += [list(itertools.combinations(t, 2)) for t in itertools.combinations(range(4), 3)]
    sets += [[q] for q in pairs]
    sets += [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 3), (1, 2)]]
    matrix = np.ones((4, 4))
    for (i, j), value in p.items():
        matrix[i, j] = matrix[j, i] = value
    got = bergmann_hommel(pd.DataFrame(matrix, index=models, columns=models))
    for q in pairs:
        expected = max(len(s) * min(p[x] for x in s) for s in sets if q in s)
        assert got[q] == pytest.approx(min(1.0, expected), abs=1e-15)


@settings(max_examples=20, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32 - 1))
def test_bergmann_hommel_between_raw_and_holm(k, seed):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(seed)
    first, second = np.triu_indices(k, 1)
    raw = rng.uniform(0, 0.2, first.size) ** 2
    matrix = np.ones((k, k))
    matrix[first, second] = matrix[second, first] = raw
    adjusted = bergmann_hommel(matrix)[first, second]
    holm = multipletests(raw, method="holm")[1]
    assert np.all(adjusted >= raw - 1e-15)
    assert np.all(adjusted <= holm + 1e-12)  # Bergmann–Hommel is at least as powerful as Holm


def test_bergmann_hommel_refuses_too_many_models():
    with pytest.raises(CVReportError, match="Holm"):
        bergmann_hommel(np.ones((10, 10)))


def test_pairwise_wilcoxon_baseline_and_better():
    scores = pd.DataFrame(
        {
            "new": [0.9, 0.85, 0.8, 0.95, 0.7, 0.88, 0.91, 0.77],
            "old": [0.8, 0.80, 0.7, 0.90, 0.6, 0.80, 0.85, 0.70],
            "same": [0.9, 0.86, 0.79, 0.95, 0.71, 0.87, 0.91, 0.78],
        }
    )
    out = pairwise_wilcoxon(scores, "higher", baseline="new", correction="holm")
    assert out[["a", "b"]].values.tolist() == [["new", "old"], ["new", "same"]]
    first = out.iloc[0]
    # "new" beats "old" on all 8 data sets: R− (new better) = 36, exact p = 2/2^8
    assert (first["r_plus"], first["r_minus"]) == (0.0, 36.0)
    assert first["pvalue"] == pytest.approx(2 / 2**8, abs=1e-12)
    assert first["better"] == "new" and bool(first["reject"])
    assert pd.isna(out.iloc[1]["better"])
    with pytest.raises(CVReportError, match="baseline"):
        pairwise_wilcoxon(scores, "higher", baseline="new", correction="bergmann-hommel")


def test_wilcoxon_explains_small_and_identical_samples():
    few = wilcoxon_signed_rank([0.1, 0.2, 0.3, 0.4], [0.2, 0.3, 0.4, 0.5], "lower")
    assert any("smallest two-sided p-value" in w and "is 0.125" in w for w in few.warnings)
    same = wilcoxon_signed_rank([0.1] * 6, [0.1] * 6, "lower")
    assert same.pvalue == 1.0 and any("same on every data set" in w for w in same.warnings)
