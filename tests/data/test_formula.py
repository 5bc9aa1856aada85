"""The formula glue: shapes accepted, malformed formulas rejected, left sides evaluated."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cvreport.data.formula import ParsedFormula, evaluate_response, parse_formula
from cvreport.data.table import ResultsTable
from cvreport.errors import DataError, FormulaError


@pytest.mark.parametrize(
    ("text", "response", "is_column", "model", "blocks"),
    [
        ("loss ~ model | replication + fold", "loss", True, "model", ("replication", "fold")),
        ("err ~ clf | rep + split", "err", True, "clf", ("rep", "split")),
        ("{pred != truth} ~ model | replication + fold", "pred != truth", False, "model",
         ("replication", "fold")),
        ("loss ~ model | fold", "loss", True, "model", ("fold",)),
        ("loss ~ model", "loss", True, "model", ()),
        ("loss ~ model - 1 | replication + fold", "loss", True, "model", ("replication", "fold")),
        ("`my loss` ~ model", "my loss", True, "model", ()),
        ("np.log1p(loss) ~ model", "np.log1p(loss)", False, "model", ()),
    ],
)  # fmt: skip
def test_accepted_shapes(text, response, is_column, model, blocks):
    assert parse_formula(text) == ParsedFormula(text, response, is_column, model, blocks)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("loss", "no '~'"),
        ("~ model", "a loss is needed"),
        ("loss ~ model + fold", "must be a single column"),
        ("loss ~ model + 1", "must be a single column"),
        ("loss ~ C(model)", "must be a column name"),
        ("loss ~ 1", "must be a column name"),
        ("loss ~ model | a + b + c", "name the replication and fold columns"),
        ("loss ~ model | rep:fold", "'rep:fold'"),
        ("loss ~ model | x | y", "3 parts"),
        ("a + b ~ model", "the left side must be one loss"),
        ("1 ~ model", "constant"),
        ("loss ~ model | model", "only once"),
        ("loss ~ model |", "could not parse"),
        # formulaic would silently merge a repeated term into one block
        (
            "loss ~ model | replication + replication",
            "column 'replication' is named more than once",
        ),
        ("loss ~ model | fold + fold", "only once"),
        # formulaic fails on '.' with an internal key error
        ("loss ~ .", "'.' (every other column) is not supported"),
        ("loss ~ model | .", "name the model and block columns"),
    ],
)
def test_malformed_formulas_say_which_shape_is_expected(text, problem):
    with pytest.raises(FormulaError) as error:
        parse_formula(text)
    message = str(error.value)
    assert problem in message
    assert "expected 'loss ~ model | replication + fold'" in message
    assert "\x1b" not in message  # no terminal colour codes from formulaic


def test_formula_must_be_a_string():
    with pytest.raises(FormulaError, match="must be a string"):
        parse_formula(42)  # type: ignore[arg-type]


def test_expression_left_side_is_evaluated_row_by_row():
    df = pd.DataFrame({"pred": ["a", "b", "b"], "truth": ["a", "a", "b"], "x": [1.0, np.nan, 3]})
    values = evaluate_response(parse_formula("{pred != truth} ~ m"), df)
    assert values.tolist() == [0, 1, 0]
    # rows with missing values are kept (and reported later), not dropped
    doubled = evaluate_response(parse_formula("{x * 2} ~ m"), df)
    assert doubled.shape == (3,)
    assert doubled.iloc[0] == 2.0 and np.isnan(doubled.iloc[1])


def test_plain_column_is_not_copied():
    df = pd.DataFrame({"loss": [0.0, 1.0]})
    values = evaluate_response(parse_formula("loss ~ m"), df)
    assert np.shares_memory(values.to_numpy(), df["loss"].to_numpy())


def test_unknown_name_in_expression_is_a_formula_error():
    df = pd.DataFrame({"pred": [1], "truth": [1]})
    with pytest.raises(FormulaError, match="names 'nope', which is not a column of the data"):
        evaluate_response(parse_formula("{nope + 1} ~ m"), df)


def test_expression_giving_text_is_rejected():
    df = pd.DataFrame({"label": ["a", "b", "c"]})
    with pytest.raises(FormulaError, match="gives values that are not numbers"):
        evaluate_response(parse_formula("{label} ~ m"), df)


def test_missing_loss_column_is_a_data_error():
    df = pd.DataFrame({"model": ["a"]})
    with pytest.raises(DataError, match="'loss'"):
        evaluate_response(parse_formula("loss ~ model"), df)


def _predictions_frame():
    # two folds of one replication, two models, 4 records
    return pd.DataFrame(
        {
            "rep": [1] * 8,
            "split": [1, 1, 2, 2] * 2,
            "clf": ["lr"] * 4 + ["nb"] * 4,
            "id": [10, 11, 12, 13] * 2,
            "pred": ["x", "y", "y", "x", "x", "y", "x", "y"],
            "truth": ["x", "x", "y", "y"] * 2,
        }
    )


def test_from_formula_with_expression_builds_a_binary_table():
    table = ResultsTable.from_formula(
        "{pred != truth} ~ clf | rep + split", _predictions_frame(), record="id"
    )
    assert table.loss_name == "pred != truth"
    assert table.formula == "{pred != truth} ~ clf | rep + split"
    assert table.is_binary
    # lr wrong on 11 and 13; nb wrong on 11 and 12
    assert table.fold_errors()["loss"].tolist() == [0.5, 0.5, 0.5, 0.5]
    assert table.contingency("lr", "nb")[["n00", "n01", "n10", "n11"]].to_numpy().tolist() == [
        [1, 0, 0, 1],
        [0, 1, 1, 0],
    ]
    assert "formula '{pred != truth} ~ clf | rep + split'" in table.source


def test_formula_names_a_missing_column():
    with pytest.raises(DataError, match="replication column 'replicate'"):
        ResultsTable.from_formula("loss ~ model | replicate + fold", pd.DataFrame({"loss": [1]}))


def test_single_block_is_the_fold_of_one_kfold_run():
    df = pd.DataFrame(
        {"fold": [1, 1, 2, 2] * 2, "model": ["a"] * 4 + ["b"] * 4, "record": [0, 1, 2, 3] * 2,
         "loss": [0, 1, 0, 0, 1, 1, 0, 1]}
    )  # fmt: skip
    table = ResultsTable.from_formula("loss ~ model | fold", df)
    assert table.design.kind == "kfold"
    assert (table.design.m, table.design.K) == (1, 2)


def test_single_block_with_repeated_records_is_a_replication_of_repeated_holdout():
    # split 2 re-uses record 0: it can only be a second hold-out split
    df = pd.DataFrame(
        {"split": [1, 1, 2, 2] * 2, "model": ["a"] * 4 + ["b"] * 4, "record": [0, 1, 0, 2] * 2,
         "loss": [0, 1, 0, 0, 1, 1, 0, 1]}
    )  # fmt: skip
    table = ResultsTable.from_formula("loss ~ model | split", df)
    assert table.design.kind == "repeated_holdout"
    assert table.replications == (1, 2)
    assert table.differences("a", "b").to_numpy().tolist() == [[-0.5], [-0.5]]


def test_no_blocks_is_one_holdout_split():
    df = pd.DataFrame({"model": ["a", "a", "b", "b"], "record": [0, 1, 0, 1], "loss": [0, 1, 1, 1]})
    table = ResultsTable.from_formula("loss ~ model", df)
    assert table.design.kind == "holdout"
    assert table.design.describe() == "hold-out validation (n = 2 records)"


def test_per_fold_formula_negates_a_score_by_default():
    df = pd.DataFrame(
        {"rep": [1, 1, 1, 1], "fold": [1, 1, 2, 2], "model": ["a", "b"] * 2,
         "auc": [0.9, 0.8, 0.7, 0.75]}
    )  # fmt: skip
    table = ResultsTable.from_formula("auc ~ model | rep + fold", df, per_fold=True)
    assert table.higher_is_better is True
    assert not table.per_record
    # auc(a) − auc(b) as shown; the tests run on the negated score
    np.testing.assert_allclose(table.differences("a", "b").to_numpy(), [[0.1, -0.05]])
    np.testing.assert_allclose(table.loss_differences("a", "b").to_numpy(), [[-0.1, 0.05]])
    assert table.metric.direction == "higher"
    as_loss = ResultsTable.from_formula(
        "value ~ model | rep + fold",
        df.rename(columns={"auc": "value"}),
        per_fold=True,
        direction="lower",
    )
    np.testing.assert_allclose(as_loss.differences("a", "b").to_numpy(), [[0.1, -0.05]])
    np.testing.assert_allclose(as_loss.loss_differences("a", "b").to_numpy(), [[0.1, -0.05]])
    assert as_loss.higher_is_better is False


def test_per_record_score_can_be_negated():
    df = pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "record": [0, 1, 0, 1], "ll": [-0.1, -0.3, -0.2, -0.2]}
    )
    table = ResultsTable.from_formula("ll ~ model", df, direction="higher")
    assert table.higher_is_better is True
    np.testing.assert_allclose(table.fold_errors()["loss"], [0.2, 0.2])
    np.testing.assert_allclose(table.to_metric(table.fold_errors()["loss"]), [-0.2, -0.2])
    assert table.direction_note == "given"
    with pytest.warns(DeprecationWarning, match="direction='higher'"):
        old = ResultsTable.from_formula("ll ~ model", df, higher_is_better=True)
    assert old.metric == table.metric


def test_a_frame_given_where_the_formula_belongs_is_named_as_swapped_arguments():
    frame = pd.DataFrame({"loss": [0, 1], "model": ["a", "b"]})
    with pytest.raises(FormulaError, match=r"got DataFrame \(the formula comes first, the data"):
        ResultsTable.from_formula(frame, "loss ~ model")
    with pytest.raises(FormulaError, match=r"got int; expected") as caught:
        parse_formula(3)
    assert "comes first" not in str(caught.value)
