"""Formulas are data, not code: every refused part is named before anything is evaluated."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cvreport
from cvreport.cli import main
from cvreport.data.formula import check_expression, evaluate_response, parse_formula
from cvreport.data.table import ResultsTable
from cvreport.errors import FormulaError

PAYLOAD = "{(__import__('os').system('touch pwned.txt'), loss)[1]} ~ model | replication + fold"


@pytest.mark.parametrize(
    ("left", "refused"),
    [
        ("(__import__('os').system('id'), loss)[1]", "a subscript"),
        ("__import__('os').system('id')", "the call __import__('os').system(...)"),
        ("loss.__class__", "attribute access 'loss.__class__'"),
        ("eval('1') + loss", "the call eval(...)"),
        ("open('x')", "the call open(...)"),
        ("np.loadtxt('x')", "the call np.loadtxt(...)"),
        ("os.system('id')", "the call os.system(...)"),
        ("loss[0]", "a subscript 'loss[0]'"),
        ("(lambda: 1)() + loss", "the call (lambda: 1)(...)"),
        ("[x for x in loss]", "a ListComp expression"),
        ("(y := loss)", "an assignment"),
        ("(loss, pred)", "a Tuple expression '(loss, pred)'"),
        ("9 ** 9 ** 9 + loss", "the power '9 ** 9' of two constants"),
        ("log(loss, out=loss)", "has keyword arguments"),
        ("loss if pred else truth", "an IfExp expression"),
    ],
)
def test_code_in_the_left_side_is_refused_naming_the_part(left, refused):
    with pytest.raises(FormulaError) as error:
        parse_formula(f"{{{left}}} ~ model | replication + fold")
    assert refused in str(error.value)
    assert "data, not code" in str(error.value)


@pytest.mark.parametrize(
    ("left", "expected"),
    [
        ("pred != truth", [0, 1, 1]),
        ("(pred != truth) and (w > 0)", [0, 1, 0]),
        ("not (pred == truth)", [0, 1, 1]),
        ("(pred != truth) | (w < 0)", [0, 1, 1]),
        ("abs(w - 1)", [0.0, 1.0, 2.0]),
        ("np.log1p(abs(w)) * 0 + maximum(w, 0)", [1.0, 2.0, 0.0]),
        ("where(w > 1, 1, 0)", [0, 1, 0]),
        ("0 <= w < 2", [1, 0, 0]),
        ("`my col` ** 2", [1, 4, 9]),
        ("(w + 1) // 2 % 2", [1.0, 1.0, 0.0]),
    ],
)
def test_allowed_expressions_are_evaluated_elementwise(left, expected):
    df = pd.DataFrame(
        {"pred": [1, 0, 1], "truth": [1, 1, 0], "w": [1.0, 2.0, -1.0], "my col": [1, 2, 3]}
    )
    values = evaluate_response(parse_formula(f"{{{left}}} ~ m"), df)
    np.testing.assert_allclose(values.to_numpy(dtype=float), expected)


def test_checked_expression_lists_its_columns_once():
    assert check_expression("a * b + a").columns == ("a", "b")
    assert check_expression("`a b` > 1").columns == ("a b",)


def test_text_that_is_no_expression_is_refused():
    with pytest.raises(FormulaError, match="is not an expression"):
        check_expression("loss +")


def test_constant_left_sides_are_refused_alike():
    for text in ("1 ~ model | replication + fold", "{0} ~ model | replication + fold"):
        with pytest.raises(FormulaError, match="constant"):
            parse_formula(text)


def test_the_payload_runs_nowhere(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FormulaError, match="a subscript"):
        ResultsTable.from_formula(PAYLOAD, pd.DataFrame({"loss": [0], "model": ["a"]}))
    with pytest.raises(FormulaError, match="a subscript"):
        cvreport.corrected_resampled_ttest(
            PAYLOAD, "a", "b", data=pd.DataFrame({"loss": [0], "model": ["a"]})
        )
    assert main(["report", "--example", "-f", PAYLOAD, "-o", "r.html"]) != 0
    assert "a subscript" in capsys.readouterr().err
    assert main(["notebook", "--example", "-f", PAYLOAD, "-o", "n.ipynb"]) != 0
    pd.DataFrame({"loss": [0], "model": ["a"]}).to_csv("x.csv", index=False)
    with pytest.raises(FormulaError, match="a subscript"):
        cvreport.notebook.write("n2.ipynb", data="x.csv", formula=PAYLOAD)
    assert not (tmp_path / "pwned.txt").exists()
    assert not (tmp_path / "r.html").exists()
    assert not (tmp_path / "n.ipynb").exists()
    assert not (tmp_path / "n2.ipynb").exists()


def test_the_payload_is_refused_per_data_set_too(tmp_path, monkeypatch):
    from cvreport.data.datasets import DatasetsTable

    monkeypatch.chdir(tmp_path)
    frame = pd.DataFrame({"loss": [0.1, 0.2], "model": ["a", "b"], "task": ["t", "t"]})
    with pytest.raises(FormulaError, match="a subscript"):
        DatasetsTable.from_formula(
            "{(__import__('os').system('touch pwned.txt'), loss)[1]} ~ model | task", frame
        )
    assert not (tmp_path / "pwned.txt").exists()
