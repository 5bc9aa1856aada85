"""Malformed input found by probing: each one a typed error that says what to fix."""

from __future__ import annotations

import pandas as pd
import pytest

import cvreport
from cvreport.errors import CVReportError, DataError

FORMULA = "loss ~ model | replication + fold"


def test_report_of_a_dataframe_says_to_build_a_table() -> None:
    with pytest.raises(DataError, match="Report needs a ResultsTable or a formula with data="):
        cvreport.Report(cvreport.load_example())


def test_two_loss_columns_are_named() -> None:
    frame = cvreport.load_example()
    doubled = pd.concat([frame, frame[["loss"]]], axis=1)
    with pytest.raises(DataError, match="several columns named 'loss'"):
        cvreport.ResultsTable.from_formula(FORMULA, doubled)
    with pytest.raises(DataError, match="several columns named 'loss'"):
        cvreport.ResultsTable.from_formula("{loss * 2} ~ model | replication + fold", doubled)


@pytest.mark.parametrize("alpha", ["0.05", None, True, [0.05]])
def test_alpha_that_is_no_number_is_a_typed_error(alpha: object) -> None:
    result = cvreport.arrays.mcnemar(12, 4)
    with pytest.raises(CVReportError, match="alpha must be a number between 0 and 1"):
        result.reject(alpha)  # type: ignore[arg-type]


@pytest.mark.parametrize(("b", "c"), [(1.5, 2), (3, 0.25)])
def test_mcnemar_counts_must_be_whole(b: float, c: float) -> None:
    with pytest.raises(DataError, match="must be whole counts of records"):
        cvreport.arrays.mcnemar(b, c)
    assert cvreport.arrays.mcnemar(2.0, 3).pvalue == cvreport.arrays.mcnemar(2, 3).pvalue


def test_model_labels_one_and_true_do_not_merge() -> None:
    frame = pd.DataFrame(
        {
            "model": [1, True, 1, True],
            "fold": [1, 1, 2, 2],
            "record": [0, 0, 1, 1],
            "loss": [0, 1, 1, 0],
        }
    )
    with pytest.raises(DataError, match="mixes True/False with numbers"):
        cvreport.ResultsTable.from_formula("loss ~ model | fold", frame)
    fixed = frame.assign(model=frame["model"].astype(str))
    assert cvreport.ResultsTable.from_formula("loss ~ model | fold", fixed).models == ("1", "True")


def test_probabilities_are_refused_as_predictions() -> None:
    frame = cvreport.load_example()
    table = cvreport.ResultsTable.from_predictions(frame, truth="truth", prediction="prediction")
    assert table.fold_errors()["loss"].mean() == pytest.approx(0.0572, abs=5e-4)
    probed = frame.assign(prediction=frame["prediction"].astype(float))
    probed.loc[probed.index[::4], "prediction"] = 0.8
    with pytest.raises(DataError, match=r"fractional values such as 0\.8.*threshold them first"):
        cvreport.ResultsTable.from_predictions(probed, truth="truth", prediction="prediction")


@pytest.mark.filterwarnings("ignore:higher_is_better is deprecated:DeprecationWarning")
def test_a_01_score_with_higher_is_better_is_the_01_loss_mcnemar_reads() -> None:
    frame = cvreport.load_example().assign(correct=lambda d: 1 - d["loss"])
    score = cvreport.ResultsTable.from_formula(
        "correct ~ model | replication + fold", frame, higher_is_better=True
    )
    loss = cvreport.ResultsTable.from_formula(FORMULA, frame)
    assert score.is_binary and score.higher_is_better  # kept as hits, compared as 1 − hit
    pair = ("logistic_regression", "decision_tree")
    with pytest.warns(cvreport.PartitionWarning):
        from_score = cvreport.mcnemar_5x2bcv(score, *pair)
    with pytest.warns(cvreport.PartitionWarning):
        from_loss = cvreport.mcnemar_5x2bcv(loss, *pair)
    assert from_score.pvalue == from_loss.pvalue
    assert cvreport.combined_ftest_5x2cv(score, *pair).pvalue == pytest.approx(
        cvreport.combined_ftest_5x2cv(loss, *pair).pvalue
    )
    # a score that is not 0/1 is still negated
    auc = frame.assign(auc=lambda d: 0.5 + 0.25 * d["loss"])
    negated = cvreport.ResultsTable.from_formula(
        "auc ~ model | replication + fold", auc, higher_is_better=True
    )
    assert negated.higher_is_better and negated.loss_name == "auc"
