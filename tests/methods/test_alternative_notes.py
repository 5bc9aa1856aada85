"""The note on the alternative hypothesis names the alternative that was run, and only it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cvreport import arrays
from cvreport.methods.bootstrap_margin import paired_bootstrap_equivalence_test_array
from cvreport.methods.hypothesis_note import alternative_note

TRUTH = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
SCORE_A = [0.9, 0.8, 0.3, 0.4, 0.2, 0.1, 0.7, 0.35, 0.6, 0.5]
SCORE_B = [0.7, 0.4, 0.6, 0.5, 0.3, 0.2, 0.65, 0.3, 0.55, 0.45]
ALTERNATIVE_WORDS = ("'greater'", "'less'", "two-sided", "one-sided", "equivalence", "inferior")


def _words_of(notes: tuple[str, ...]) -> set[str]:
    text = " ".join(notes)
    return {w for w in ALTERNATIVE_WORDS if w in text}


@pytest.mark.parametrize(
    ("alternative", "margin", "note"),
    [
        ("two-sided", None, None),
        ("greater", None, "the alternative hypothesis is one-sided, roc_auc(A) > roc_auc(B)."),
        ("less", None, "the alternative hypothesis is one-sided, roc_auc(A) < roc_auc(B)."),
        (
            "equivalent",
            0.1,
            "the alternative hypothesis is equivalence, |roc_auc(A) − roc_auc(B)| < 0.1.",
        ),
        (
            "non-inferior",
            0.1,
            "the alternative hypothesis is non-inferiority, roc_auc(A) − roc_auc(B) > −0.1.",
        ),
    ],
)
def test_delong_states_the_alternative_it_ran(
    alternative: str, margin: float | None, note: str | None
) -> None:
    res = arrays.delong_test(TRUTH, SCORE_A, SCORE_B, alternative=alternative, margin=margin)
    assert res.alternative == alternative
    stated = [n for n in res.notes if n.startswith("the alternative hypothesis")]
    assert stated == ([] if note is None else [note])
    assert all(n[0].islower() for n in res.notes), res.notes
    assert "'greater'" not in " ".join(res.notes)


def test_delong_notes_do_not_change_its_numbers() -> None:
    two_sided = arrays.delong_test(TRUTH, SCORE_A, SCORE_B)
    greater = arrays.delong_test(TRUTH, SCORE_A, SCORE_B, alternative="greater")
    z = two_sided.statistic
    assert greater.statistic == z
    assert two_sided.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    assert greater.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("test", ["paired_bootstrap_test", "paired_permutation_test"])
def test_resampling_tests_state_only_the_alternative_they_ran(alternative: str, test: str) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    a = np.where(rng.random(60) < 0.8, y, 1 - y)
    b = np.where(rng.random(60) < 0.7, y, 1 - y)
    res = getattr(arrays, test)(y, a, b, alternative=alternative, n_resamples=199, random_state=0)
    expected = {"two-sided": set(), "less": {"one-sided"}, "greater": {"one-sided"}}
    assert _words_of(res.notes) == expected[alternative]
    sign = {"less": "<", "greater": ">"}.get(alternative)
    if sign is not None:
        assert res.notes == (
            f"the alternative hypothesis is one-sided, accuracy(A) {sign} accuracy(B).",
        )
    else:
        assert res.notes == ()


def test_the_bootstrap_against_a_margin_states_the_loss_direction() -> None:
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.85, y, 1 - y)
    b = np.where(rng.random(200) < 0.85, y, 1 - y)
    res = paired_bootstrap_equivalence_test_array(
        y,
        a,
        b,
        margin=0.05,
        alternative="non-inferior",
        metric="zero_one_loss",
        n_resamples=199,
        random_state=0,
    )
    assert res.notes[0] == (
        "the alternative hypothesis is non-inferiority, zero_one_loss(A) − zero_one_loss(B) < 0.05."
    )
    # the two-sided run it is built from leaves no note about its own alternative
    stated = [n for n in res.notes if n.startswith("the alternative hypothesis")]
    assert stated == [res.notes[0]]
    assert all(n[0].islower() for n in res.notes), res.notes


def test_a_two_sided_alternative_has_no_note() -> None:
    assert alternative_note("two-sided", "accuracy") == ()
    assert alternative_note("equivalent", "accuracy", margin=0.02) == (
        "the alternative hypothesis is equivalence, |accuracy(A) − accuracy(B)| < 0.02.",
    )
