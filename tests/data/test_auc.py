"""The one AUC: against scikit-learn (with and without weights), and every caller through it."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import cvreport.data.auc as auc_module
from cvreport import arrays
from cvreport.data.auc import AUCRanking, grouped_auc
from cvreport.methods.delong import delong_components

TOL = 1e-12


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 2),
            st.booleans(),
            st.integers(0, 5),
            st.integers(0, 3),
            st.one_of(st.just(0.0), st.floats(0.01, 2)),  # no subnormal products
        ),
        min_size=1,
        max_size=50,
    )
)
def test_weighted_auc_equals_sklearn_with_sample_weights(rows):
    groups = np.array([r[0] for r in rows])
    positive = np.array([r[1] for r in rows])
    scores = np.array([r[2] / 4.0 for r in rows])  # ties on purpose
    counts = np.array([r[3] for r in rows])
    real = np.array([r[4] for r in rows])
    got = grouped_auc(groups, 3, positive, scores, weights=np.stack([counts, real]))
    assert got.shape == (2, 3)
    for row, w in enumerate((counts, real)):
        for g in range(3):
            here = groups == g
            y, s, wg = positive[here], scores[here], w[here]
            if wg[y].sum() > 0 and wg[~y].sum() > 0:
                expected = skm.roc_auc_score(y, s, sample_weight=wg)
                assert got[row, g] == pytest.approx(expected, abs=TOL)
            else:
                assert np.isnan(got[row, g])


def test_integer_weights_give_the_expanded_records_auc_bit_for_bit():
    rng = np.random.default_rng(2)
    n = 300
    groups = rng.integers(0, 4, n)
    positive = rng.random(n) < 0.4
    scores = np.round(rng.random(n), 2)
    counts = rng.integers(0, 4, (5, n))
    weighted = grouped_auc(groups, 4, positive, scores, weights=counts)
    for row in range(5):
        kept = np.repeat(np.arange(n), counts[row])
        expanded = grouped_auc(groups[kept], 4, positive[kept], scores[kept])
        np.testing.assert_array_equal(weighted[row], expanded)
    one = grouped_auc(groups, 4, positive, scores, weights=counts[0])
    np.testing.assert_array_equal(one, weighted[0])


def test_one_weighting_and_a_batch_of_weightings_agree():
    rng = np.random.default_rng(9)
    positive = rng.random(80) < 0.5
    ranking = AUCRanking.of(positive, np.round(rng.random(80), 1))
    counts = rng.integers(0, 3, (3, 80))
    u2, pairs = ranking.doubled_u(counts)
    for row in range(3):
        u2_one, pairs_one = ranking.doubled_u(counts[row])
        assert (u2_one, pairs_one) == (u2[row], pairs[row])


def test_delong_estimate_is_the_one_auc():
    rng = np.random.default_rng(4)
    y = rng.random(60) < 0.5
    scores = np.round(rng.random((3, 60)) + 0.3 * y, 2)
    auc, v10, v01 = delong_components(y, scores)
    for k in range(3):
        assert auc[k] == grouped_auc(np.zeros(60, int), 1, y, scores[k])[0]
        assert auc[k] == pytest.approx(skm.roc_auc_score(y, scores[k]), abs=TOL)
        assert v10[k].mean() == pytest.approx(auc[k], abs=TOL)
        assert v01[k].mean() == pytest.approx(auc[k], abs=TOL)


def test_delong_and_the_resampling_tests_read_their_aucs_from_the_one_module():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 60)
    a, b = np.round(rng.random(60) + 0.4 * y, 2), np.round(rng.random(60) + 0.2 * y, 2)
    with mock.patch("cvreport.methods.delong.grouped_auc", wraps=auc_module.grouped_auc) as spy:
        arrays.delong_test(y, a, b)
    assert spy.call_count == 1
    with mock.patch.object(
        AUCRanking, "doubled_u", autospec=True, side_effect=AUCRanking.doubled_u
    ) as spy:
        boot = arrays.paired_bootstrap_test(
            y, a, b, metric="roc_auc", n_resamples=99, random_state=np.random.default_rng(1)
        )
    assert spy.call_count > 0
    assert boot.estimate == pytest.approx(
        skm.roc_auc_score(y, a) - skm.roc_auc_score(y, b), abs=TOL
    )
    perm = arrays.paired_permutation_test(
        y, a, b, metric="roc_auc", n_resamples=99, random_state=np.random.default_rng(1)
    )
    assert perm.estimate == pytest.approx(boot.estimate, abs=TOL)
