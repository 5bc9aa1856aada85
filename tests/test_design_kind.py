"""A result carries the kind of its design as a value, and nothing reads it back from words.

Read from the user's side: every test, from a table of each design kind or from
arrays, says which kind of design its numbers come from (``result.design_kind``),
still prints the design's sentence as before, and a result without an interval
points to the tests that give one on that kind of design, whatever its sentence
says.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport import arrays
from cvreport.data import design as design_module
from cvreport.data.design import DESIGN_KINDS, DesignKind
from cvreport.errors import DesignError, IntervalUndefinedError
from cvreport.methods import recommendation, registry, spec
from cvreport.methods.registry import SPECS, get_spec, specs_for
from cvreport.results import TestResult
from tests._designs import BY_DESIGN, TABLES, run

PACKAGE = Path(cvreport.__file__).parent
MX2 = [[0.02, -0.01], [0.03, 0.00], [0.01, 0.02], [-0.02, 0.01], [0.04, 0.00]]
KFOLD = [0.02, -0.01, 0.03, 0.015, 0.04]
REPEATED_KFOLD = [[0.02, -0.01, 0.03], [0.01, 0.0, 0.02], [0.03, 0.01, -0.01]]


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _predictions(*, folds: int = 1, seed: int = 5, n: int = 90) -> cvreport.ResultsTable:
    """Scores of models A and B on every record: one hold-out split, or K folds."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.clip(0.5 * y + 0.6 * rng.random(n), 0.0, 1.0)
    b = rng.random(n)
    frame = pd.DataFrame(
        {
            "model": np.repeat(["A", "B"], n),
            "record": np.tile(np.arange(n), 2),
            "fold": np.tile(np.arange(n) % folds, 2),
            "y": np.tile(y, 2),
            "p": np.concatenate([a, b]),
        }
    )
    if folds == 1:
        return cvreport.ResultsTable.from_predictions(
            frame, truth="y", score="p", metric="roc_auc", replication=None, fold=None
        )
    return cvreport.ResultsTable.from_predictions(
        frame, truth="y", score="p", metric="roc_auc", replication=None, fold="fold"
    )


# -- the array route ------------------------------------------------------------------------
ARRAY_CASES = [
    ("paired_ttest_5x2cv", (MX2,), {}, "mx2"),
    ("combined_ttest_5x2cv", (MX2,), {}, "mx2"),
    ("blocked_ttest_3x2cv", (MX2[:3],), {}, "mx2"),
    ("combined_ftest_5x2cv", (MX2,), {}, "mx2"),
    ("combined_ftest_5x2cv", (MX2[:1],), {}, "kfold"),  # one replication of 2 folds
    ("calibrated_ftest_5x2cv", (MX2,), {}, "mx2"),
    ("mcnemar_5x2bcv", (np.full((5, 2, 4), 10),), {}, "mx2"),
    ("corrected_repeated_kfold_ttest", (MX2,), {}, "mx2"),
    ("corrected_repeated_kfold_ttest", (REPEATED_KFOLD,), {}, "repeated_kfold"),
    ("corrected_repeated_kfold_ttest", (KFOLD,), {}, "kfold"),
    ("bayesian_correlated_ttest", (REPEATED_KFOLD,), {}, "repeated_kfold"),
    ("bayesian_correlated_ttest", (KFOLD,), {}, "kfold"),
    ("bayesian_correlated_ttest", (KFOLD, 0.25), {}, None),  # J splits or K unequal folds
    ("paired_ttest_kfold", (KFOLD,), {}, "kfold"),
    ("wilcoxon_kfold", (KFOLD,), {}, "kfold"),
    ("sign_test", (KFOLD,), {}, "kfold"),
    ("mcnemar_kfold", ([3, 4, 2], [1, 2, 0]), {}, "kfold"),
    (
        "cv_confidence_interval",
        (np.array([0.0, 1, -1, 0, 1, 0]), np.array([0, 0, 0, 1, 1, 1])),
        {},
        "kfold",
    ),
    ("corrected_resampled_ttest", (KFOLD, 0.25), {}, "repeated_holdout"),
    ("paired_ttest_resampled", (KFOLD,), {}, "repeated_holdout"),
    ("mcnemar", (12, 4), {}, "holdout"),
    ("proportion_test", (0.1, 0.2, 100), {}, "holdout"),
    ("binomial_test", (10, 100, 0.2), {}, None),  # one model: any design
    ("normal_test", (10, 100, 0.2), {}, None),
    ("ttest_error", ([0.1, 0.2, 0.15], 0.2), {}, None),
]


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "kind"),
    ARRAY_CASES,
    ids=[f"{case[0]}-{case[3]}" for case in ARRAY_CASES],
)
def test_a_result_from_arrays_carries_the_kind_its_arrays_imply(name, args, kwargs, kind):
    result = _quiet(getattr(arrays, name), *args, **kwargs)
    assert result.design_kind == kind
    assert result.design_kind is None or type(result.design_kind) is DesignKind


def test_every_array_function_is_checked_for_its_design_kind():
    checked = {case[0] for case in ARRAY_CASES}
    records = {spec.name for spec in SPECS if spec.in_metric}  # records of one table: no kind
    assert checked | records == {spec.name for spec in SPECS if spec.array_function}


def test_a_test_on_records_from_arrays_names_no_design_kind():
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    a = np.array([0.2, 0.9, 0.4, 0.7, 0.6, 0.1, 0.8, 0.3])
    b = np.array([0.5, 0.6, 0.3, 0.4, 0.7, 0.2, 0.5, 0.6])
    result = arrays.delong_test(y, a, b)
    assert result.design_kind is None


# -- the table route --------------------------------------------------------------------------
TABLE_CASES = [
    (test, kind)
    for test in BY_DESIGN
    for kind in DESIGN_KINDS
    if test.accepts_design(TABLES[kind].design)
]


@pytest.mark.parametrize(
    ("test", "kind"), TABLE_CASES, ids=[f"{test.name}-{kind}" for test, kind in TABLE_CASES]
)
def test_a_result_from_a_table_carries_the_tables_design_kind(test, kind):
    table = TABLES[kind]
    args = ("A",) if test.models == 1 else ("A", "B")
    options = {"repeated": "average"} if test.name == "cv_confidence_interval" else {}
    result = run(test, table, *args, **options)
    assert type(result.design_kind) is DesignKind and result.design_kind is table.design.kind
    assert result.design_kind == kind
    # the sentence is printed as before
    assert result.design == table.design.describe()
    assert result.to_frame()["design"].item() == table.design.describe()
    assert table.design.describe() in result.summary().as_text()


def test_every_design_kind_has_a_table_route_case():
    assert {kind for _, kind in TABLE_CASES} == set(DESIGN_KINDS)


@pytest.mark.parametrize(
    ("name", "folds", "kind"),
    [
        ("delong_test", 1, "holdout"),  # DeLong's test takes one test set
        ("paired_bootstrap_test", 1, "holdout"),
        ("paired_bootstrap_test", 3, "kfold"),
        ("paired_permutation_test", 1, "holdout"),
        ("paired_permutation_test", 3, "kfold"),
    ],
)
def test_a_test_on_records_carries_the_tables_design_kind(name, folds, kind):
    table = _predictions(folds=folds)
    options = {} if name == "delong_test" else {"n_resamples": 99, "random_state": 0}
    result = _quiet(getattr(cvreport, name), table, "A", "B", **options)
    assert result.design_kind is DesignKind(kind) is table.design.kind
    assert result.design == table.design.describe()


def test_the_clustered_test_carries_the_tables_design_kind():
    rng = np.random.default_rng(2)
    n = 60
    frame = pd.DataFrame(
        {
            "model": np.repeat(["A", "B"], n),
            "record": np.tile(np.arange(n), 2),
            "doc": np.tile(np.arange(n) // 6, 2),
            "loss": (rng.random(2 * n) < np.repeat([0.2, 0.4], n)).astype(int),
        }
    )
    table = cvreport.ResultsTable.from_formula("loss ~ model | cluster(doc)", frame)
    result = cvreport.clustered_paired_test(table, "A", "B")
    assert result.design_kind is DesignKind.HOLDOUT is table.design.kind


def test_the_overlap_audit_carries_the_kind_of_the_cross_validation_design():
    table = cvreport.ResultsTable.from_formula(
        "loss ~ model | replication + fold", cvreport.load_example()
    )
    audit = cvreport.audit_overlap(table)
    assert audit.cv_design_kind is DesignKind.MX2
    assert audit.cv_design == table.design.describe()


# -- the hint for an interval reads the value -------------------------------------------------
def _hint(result: TestResult) -> str:
    with pytest.raises(IntervalUndefinedError) as caught:
        result.conf_int()
    return str(caught.value)


ALL_INTERVAL_TESTS = {name for kind in DesignKind for name in kind.interval_tests}


@pytest.mark.parametrize("kind", list(DesignKind))
def test_a_result_without_an_interval_names_the_tests_of_its_kind_whatever_its_sentence(kind):
    plain = arrays.mcnemar(12, 4)  # McNemar's test gives no interval
    for sentence in (None, "my lab's own protocol", "10-fold cross-validation (K = 10)"):
        result = dataclasses.replace(plain, design=sentence, design_kind=kind)
        message = _hint(result)
        named = {name for name in ALL_INTERVAL_TESTS if name in message}
        assert named == set(kind.interval_tests), (kind, sentence, message)


def test_a_design_kind_given_by_its_name_becomes_the_value_and_a_wrong_name_is_refused():
    result = dataclasses.replace(arrays.mcnemar(12, 4), design_kind="repeated_holdout")
    assert result.design_kind is DesignKind.REPEATED_HOLDOUT
    assert "corrected_resampled_ttest" in _hint(result)
    with pytest.raises(DesignError, match=r"unknown design kind '5x2'.*'mx2'"):
        dataclasses.replace(result, design_kind="5x2")


def test_a_result_whose_kind_is_unknown_gets_the_general_hint():
    message = _hint(_no_interval())
    assert "t-based test of the table's design" in message
    assert not any(name in message for name in ALL_INTERVAL_TESTS)


def _no_interval() -> TestResult:
    return dataclasses.replace(arrays.mcnemar(12, 4), design=None, design_kind=None)


@pytest.mark.parametrize("kind", [k for k in DesignKind if k is not DesignKind.HOLDOUT])
def test_the_tests_a_hint_names_give_an_interval_on_that_design(kind):
    """The reader follows the hint: each named test runs on the table and gives an interval."""
    table = TABLES[kind]
    assert kind.interval_tests
    for name in kind.interval_tests:
        result = run(get_spec(name), table, "A", "B")
        low, high = result.conf_int()
        assert low < high and np.isfinite([low, high]).all()
        assert result.estimate_interval() is not None


def test_on_one_hold_out_split_the_hint_names_the_bootstrap_which_gives_an_interval():
    """Was: "no test of cvreport gives one for a single hold-out split", beside the
    paired bootstrap that gives one on the same table."""
    table = _predictions()
    permutation = _quiet(cvreport.paired_permutation_test, table, n_resamples=99, random_state=0)
    message = _hint(permutation)
    assert "paired_bootstrap_test" in message and "no test" not in message
    assert "ResultsTable.from_predictions" in message
    bootstrap = _quiet(cvreport.paired_bootstrap_test, table, n_resamples=199, random_state=0)
    low, high = bootstrap.conf_int()
    assert low <= bootstrap.estimate <= high


def test_a_table_results_hint_names_the_tests_of_its_design():
    for name, kind in (("mcnemar", "holdout"), ("mcnemar_kfold", "kfold"),
                       ("combined_ftest_5x2cv", "mx2")):  # fmt: skip
        result = run(get_spec(name), TABLES[kind], "A", "B")
        message = _hint(result)
        assert {n for n in ALL_INTERVAL_TESTS if n in message} == set(
            DesignKind(kind).interval_tests
        )


# -- one set of kinds, values everywhere, no words parsed --------------------------------------
def test_the_specs_hold_design_kind_values_from_the_one_tuple():
    assert spec.DESIGN_KINDS is DESIGN_KINDS is registry.DESIGN_KINDS
    assert DESIGN_KINDS == ("holdout", "repeated_holdout", "kfold", "repeated_kfold", "mx2")
    for test in SPECS:
        assert all(type(kind) is DesignKind for kind in test.designs), test.name
    assert get_spec("mcnemar").designs == (DesignKind.HOLDOUT,) == ("holdout",)


@pytest.mark.parametrize("kind", list(DesignKind))
def test_a_kind_and_its_plain_name_select_and_recommend_the_same_tests(kind):
    for binary, per_record in ((True, True), (False, False)):
        by_value = specs_for(kind, binary=binary, per_record=per_record)
        assert by_value == specs_for(str(kind.value), binary=binary, per_record=per_record)
        assert by_value or not per_record, kind
        advice = recommendation.recommendation(kind, binary=binary, per_record=per_record)
        same = recommendation.recommendation(str(kind.value), binary=binary, per_record=per_record)
        assert advice == same and (advice.tests or not per_record)


def test_no_module_reads_a_design_kind_from_a_sentence():
    assert not hasattr(DesignKind, "from_description")
    sentence_parse = re.compile(
        r"from_description|[\"'](?:-fold|×2? ?|hold-out|repeated hold-out|fold)[\"']\s+in\s"
    )
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in PACKAGE.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if sentence_parse.search(line)
    ]
    assert offenders == []
    assert "from_description" not in Path(design_module.__file__).read_text(encoding="utf-8")
