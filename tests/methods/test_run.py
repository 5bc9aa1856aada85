"""The one run path: every test runs through its spec as through its public functions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cvreport.errors import DataError
from tests._designs import BY_DESIGN, PAIRED, TABLES, run


def _quiet_run(spec, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return spec.run(*args, **kwargs)


@pytest.mark.parametrize("spec", BY_DESIGN, ids=lambda spec: spec.name)
def test_spec_run_gives_the_public_function_s_numbers(spec):
    table = TABLES[spec.designs[0]]
    if spec.models == 1:
        ours = _quiet_run(spec, table, "A", alternative="greater", p0=0.3)
        theirs = run(spec, table, "A")
    else:
        ours = _quiet_run(spec, table, "A", "B", alternative="two-sided")
        kwargs = {"alternative": "two-sided"} if spec.takes_alternative else {}
        theirs = run(spec, table, "A", "B", **kwargs)
    assert type(ours) is type(theirs)
    assert ours.pvalue == theirs.pvalue
    assert ours.statistic == theirs.statistic


@pytest.mark.parametrize("spec", PAIRED, ids=lambda spec: spec.name)
def test_a_one_sided_question_to_a_test_without_one_is_refused_in_words(spec):
    table = TABLES[spec.designs[0]]
    if spec.takes_alternative:
        less = _quiet_run(spec, table, "A", "B", alternative="less")
        greater = _quiet_run(spec, table, "A", "B", alternative="greater")
        assert less.alternative == "less" and greater.alternative == "greater"
        if spec.name != "bayesian_correlated_ttest":
            # A (error 0.2) beats B (0.35): the evidence is for "less"
            assert less.pvalue < greater.pvalue
    else:
        with pytest.raises(DataError, match="only alternative='two-sided'"):
            spec.run(table, "A", "B", alternative="less")


def test_the_bayesian_test_takes_a_rope():
    spec = next(spec for spec in PAIRED if spec.takes_rope)
    result = _quiet_run(spec, TABLES["kfold"], "A", "B", rope=0.01)
    assert result.rope == 0.01


@pytest.mark.parametrize("spec", [s for s in PAIRED if s.simulated], ids=lambda spec: spec.name)
def test_every_pair_at_once_gives_each_pair_s_numbers(spec):
    from cvreport.methods.pair_kernels import all_pairs

    table = TABLES[spec.designs[0]]
    pairs = [("A", "B"), ("B", "A"), ("A", "B")]
    batch = all_pairs(spec, table, pairs)
    assert np.shape(batch.pvalue) == (3,)
    for (a, b), pvalue, statistic in zip(pairs, batch.pvalue, batch.statistic, strict=True):
        one = _quiet_run(spec, table, a, b, alternative="two-sided")
        assert pvalue == pytest.approx(one.pvalue, rel=1e-12)
        assert statistic == pytest.approx(one.statistic, rel=1e-12)
