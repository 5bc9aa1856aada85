"""Random, careless input through the public entry points: a typed error or a result, never more.

Long tables with dropped or repeated rows, NaN, infinities, text in the loss
column, a single model or a single fold go through ``ResultsTable.from_formula``,
then the whole report with every test that fits (``Report(tests="all")``);
random arrays go through the array API of the record-level tests. Anything but
a :class:`~cvreport.errors.CVReportError` (or a result) is a defect.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cvreport
from cvreport.errors import CVReportError

LOSSES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.integers(-3, 3),
    st.sampled_from([0, 1, 0.5, "x", None]),
)


@st.composite
def long_tables(draw: st.DrawFn) -> pd.DataFrame:
    n_models = draw(st.integers(1, 3))
    n_reps = draw(st.integers(1, 2))
    n_folds = draw(st.integers(1, 3))
    n_records = draw(st.integers(2, 12))
    rows = []
    random_folds = draw(st.booleans())
    for r in range(1, n_reps + 1):
        folds = (
            draw(st.lists(st.integers(1, n_folds), min_size=n_records, max_size=n_records))
            if random_folds
            else [(record + r) % n_folds + 1 for record in range(n_records)]
        )
        for record, fold in enumerate(folds):
            for m in range(n_models):
                rows.append(
                    {"replication": r, "fold": fold, "model": f"m{m}", "record": record,
                     "loss": draw(st.sampled_from([0, 1]))}
                )  # fmt: skip
    frame = pd.DataFrame(rows)
    replaced = draw(st.integers(0, 3)) if draw(st.booleans()) else 0
    if replaced:
        frame["loss"] = frame["loss"].astype(object)  # room for text and None
    # the careless part: replaced values, dropped rows, repeated rows
    for _ in range(replaced):
        where = draw(st.integers(0, len(frame) - 1))
        frame.loc[where, "loss"] = draw(LOSSES)
    if draw(st.integers(0, 3)) == 0:
        frame = frame.drop(index=draw(st.integers(0, len(frame) - 1)))
    if draw(st.integers(0, 3)) == 0:
        frame = pd.concat([frame, frame.iloc[[0]]])
    return frame.reset_index(drop=True)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same cases on every run: CI reproduces a failure
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(long_tables(), st.sampled_from(["lower", "higher", None]))
def test_tables_and_reports_from_careless_frames(frame: pd.DataFrame, direction) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            table = cvreport.ResultsTable.from_formula(
                "loss ~ model | replication + fold", frame, direction=direction
            )
        except CVReportError:
            return
        try:
            report = cvreport.Report(table, tests="all")
        except CVReportError:
            return
        text = report.to_markdown()
    assert text.startswith("#")
    BUILT.append(table.design.kind)


BUILT: list[str] = []


def test_the_fuzz_reached_whole_reports() -> None:
    # run after the fuzz above (file order): careless input must not only ever fail
    assert len(set(BUILT)) >= 3, BUILT


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same cases on every run: CI reproduces a failure
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(st.sampled_from([0, 1, 2, -1, 0.5, np.nan]), min_size=0, max_size=12),
    st.lists(st.sampled_from([0, 1, 1, 0, 0.7, np.inf]), min_size=0, max_size=12),
    st.sampled_from(["accuracy", "roc_auc", "f1", "log_loss", "nonsense"]),
    st.sampled_from([0, 1, 99, -5, 2.5, "many"]),
)
def test_the_record_tests_on_careless_arrays(truth, scores, metric, n_resamples) -> None:
    n = min(len(truth), len(scores))
    a, b = np.asarray(scores[:n]), np.asarray(scores[:n])[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in (
            cvreport.arrays.paired_bootstrap_test,
            cvreport.arrays.paired_permutation_test,
        ):
            try:
                result = test(truth[:n], a, b, metric=metric, n_resamples=n_resamples)
            except CVReportError:
                continue
            assert 0 <= result.pvalue <= 1 or np.isnan(result.pvalue)


@pytest.mark.parametrize("metric", ["f1", "accuracy", "roc_auc"])
def test_a_missing_label_is_refused_in_words(metric) -> None:
    # found by the fuzz above: NaN truth with f1 reached a bincount as a negative code
    scores = [0.2, 0.7, 0.4] if metric == "roc_auc" else [0, 1, 1]
    for test in (cvreport.arrays.paired_bootstrap_test, cvreport.arrays.paired_permutation_test):
        with pytest.raises(CVReportError, match=r"missing values \(NaN or None\) in truth: 1"):
            test([0, np.nan, 1], scores, scores[::-1], metric=metric, n_resamples=99)


@pytest.mark.parametrize(
    ("metric", "words"),
    [
        ("log_loss", "one score per record was given for 3 classes in truth"),
        ("brier_score_loss", "one score per record was given for 3 classes in truth"),
        ("roc_auc", "'roc_auc' is defined for two classes, but truth and the predictions hold 3"),
        ("f1", "'f1' is defined for two classes, but truth and the predictions hold 3"),
    ],
)
def test_three_classes_with_one_score_or_a_binary_metric_are_refused_in_words(
    metric, words
) -> None:
    # found by the fuzz above: log_loss on truth [0, 1, 2] with one probability per record
    # reached an index out of bounds inside the permutation test
    scores = [0.0, 0.0, 0.0] if metric != "f1" else [0, 1, 2]
    for test in (cvreport.arrays.paired_bootstrap_test, cvreport.arrays.paired_permutation_test):
        with pytest.raises(CVReportError, match=re.escape(words)):
            test([0, 1, 2], scores, scores[::-1], metric=metric, n_resamples=99)


@pytest.mark.parametrize("metric", ["accuracy", "average_precision"])
def test_records_in_one_cluster_are_refused_in_words(metric) -> None:
    # found by a longer run of the fuzz above: one cluster left the jackknife and the
    # permutation test nothing to draw (an index error, scipy's ValueError)
    for test in (cvreport.arrays.paired_bootstrap_test, cvreport.arrays.paired_permutation_test):
        with pytest.raises(CVReportError, match="the records lie in 1 cluster; it needs at least"):
            test([0, 1], [0, 1], [1, 0], metric=metric, clusters=[7, 7], n_resamples=99)
