"""Formulas are data, not code: every refused part is named before anything is evaluated."""

from __future__ import annotations

import re
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvreport
from cvreport.cli import main
from cvreport.data.formula import (
    ALLOWED_FUNCTIONS,
    check_expression,
    evaluate_response,
    parse_formula,
)
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


# ---------------------------------------------------------------------- round two (issue 23)
def _frame(**columns):
    n = len(next(iter(columns.values())))
    return pd.DataFrame({**columns, "model": ["a"] * n})


def test_names_are_matched_exactly_as_written_not_folded():
    # Python folds 'ｌｏｓｓ' (fullwidth) to 'loss'; the formula must read the column as written
    df = _frame(loss=[1.0, 2.0], **{"ｌｏｓｓ": [10.0, 20.0]})
    fullwidth = evaluate_response(parse_formula("{ｌｏｓｓ * 1} ~ model"), df)
    plain = evaluate_response(parse_formula("{loss * 1} ~ model"), df)
    assert fullwidth.tolist() == [10.0, 20.0]
    assert plain.tolist() == [1.0, 2.0]
    assert check_expression("ｌｏｓｓ + loss").columns == ("ｌｏｓｓ", "loss")


def test_a_look_alike_name_of_a_missing_column_is_named_with_the_column_it_resembles():
    df = _frame(loss=[1.0, 2.0])
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse_formula("{ｌｏｓｓ * 1} ~ model"), df)
    message = str(error.value)
    assert "'ｌｏｓｓ'" in message and "written differently from 'loss'" in message
    assert "exactly as written" in message


def test_a_look_alike_function_name_is_no_allowed_function():
    with pytest.raises(FormulaError, match=r"the call ａｂｓ\(\.\.\.\) is not one of the allowed"):
        check_expression("ａｂｓ(loss)")


@pytest.mark.parametrize("internal", ["_quoted_column_0", "_cvq_0", "_cvq__0", "_cvq_"])
def test_a_column_named_like_an_internal_name_is_not_taken_for_a_back_quoted_one(internal):
    df = _frame(**{"a b": [7.0, 8.0], internal: [5.0, 6.0]})
    values = evaluate_response(parse_formula(f"{{`a b` * 10 + {internal}}} ~ model"), df)
    assert values.tolist() == [75.0, 86.0]
    quoted = evaluate_response(parse_formula(f"{{`{internal}` - `a b`}} ~ model"), df)
    assert quoted.tolist() == [-2.0, -2.0]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        ("abs(x, y)", "gives 2 arguments; abs takes 1: abs(x)"),
        ("np.abs(x, y)", "gives 2 arguments; abs takes 1"),
        ("log(x, y)", "log takes 1"),
        ("minimum(x)", "gives 1 argument; minimum takes 2: minimum(x, y)"),
        ("clip(x, 0)", "clip takes 3: clip(x, lower, upper)"),
        ("where(x > 0, 1)", "where takes 3: where(condition, if_true, if_false)"),
        ("maximum(x, y, x)", "maximum takes 2"),
        ("abs(x, out=y)", "has keyword arguments"),
        ("abs(*x)", "unpacks arguments"),
    ],
)
def test_function_arity_is_checked_before_anything_runs(call, words):
    df = _frame(x=[-1.0, 2.0], y=[0.0, 0.0])
    with pytest.raises(FormulaError) as error:
        evaluate_response(parse_formula(f"{{{call}}} ~ model"), df)
    assert words in str(error.value)
    assert df["y"].tolist() == [0.0, 0.0]  # numpy's output buffer was never handed the column


def test_every_allowed_function_declares_its_arity():
    from cvreport.data.formula import ALLOWED_FUNCTIONS, FUNCTION_ARITY

    assert set(FUNCTION_ARITY) == set(ALLOWED_FUNCTIONS)
    df = _frame(x=[0.25, 4.0], y=[1.0, 2.0])
    for name, arity in FUNCTION_ARITY.items():
        arguments = ", ".join(["x", "y", "x"][:arity])
        values = evaluate_response(parse_formula(f"{{{name}({arguments})}} ~ model"), df)
        expected = ALLOWED_FUNCTIONS[name](*[df[c].to_numpy() for c in ["x", "y", "x"][:arity]])
        np.testing.assert_allclose(values.to_numpy(dtype=float), expected)


@pytest.mark.parametrize(
    "left",
    [
        "'a' * 100000000000 + loss",
        "loss + len('a' * 100000000000)",
        "('a' * 100000) * 1000000 == loss",
        "'%0999999999d' % loss",
        "'%s' % 1 == loss",
        "loss * 'a'",
        "-'a' == loss",
    ],
)
def test_strings_in_arithmetic_are_refused_before_anything_is_built(left):
    with pytest.raises(FormulaError) as error:
        parse_formula(f"{{{left}}} ~ model")
    assert "is refused" in str(error.value)


def test_the_issues_repetition_is_refused_naming_the_string_arithmetic():
    with pytest.raises(FormulaError, match="the string arithmetic \"'a' \\* 10\\*\\*11\""):
        parse_formula("{'a' * 10**11 == loss} ~ model")
    with pytest.raises(FormulaError, match="of two constants is not allowed"):
        parse_formula("{loss * 10**11} ~ model")


def test_text_columns_take_no_arithmetic_so_nothing_is_repeated():
    df = _frame(pred=["cat", "dog"], truth=["cat", "cat"])
    with pytest.raises(
        FormulaError, match="arithmetic needs numbers, but column 'pred' holds text"
    ):
        evaluate_response(parse_formula("{pred * 100000000000} ~ model"), df)
    with pytest.raises(FormulaError, match="arithmetic needs numbers"):
        evaluate_response(parse_formula("{where(pred == truth, 'x' , 'y')} ~ model"), df)
    # comparisons of labels still work
    assert evaluate_response(parse_formula("{pred != truth} ~ model"), df).tolist() == [0, 1]


@pytest.mark.parametrize("links", [2_000, 3_000])
def test_a_long_comparison_chain_is_answered_with_its_value(links):
    # a <= b <= a <= b ... holds exactly where a == b (the issue's chain took 28 s)
    rng = np.random.default_rng(links)
    a = rng.integers(0, 3, 60).astype(float)
    b = np.where(rng.random(60) < 0.5, a, a + rng.choice([-1.0, 1.0], 60))
    df = _frame(a=a, b=b)
    chain = " <= ".join(["a", "b"] * (links // 2))
    values = evaluate_response(parse_formula(f"{{{chain}}} ~ model"), df)
    assert values.tolist() == (a == b).astype(int).tolist()
    assert 0 < values.sum() < 60


def test_a_formula_longer_than_the_limit_is_refused_with_the_limit():
    from cvreport.data.formula import MAX_EXPRESSION_LENGTH

    text = "{" + " + ".join(["loss"] * (MAX_EXPRESSION_LENGTH // 7 + 1)) + "} ~ model"
    with pytest.raises(FormulaError) as error:
        parse_formula(text)
    assert f"at most {MAX_EXPRESSION_LENGTH:,} are read" in str(error.value)
    with pytest.raises(FormulaError, match="characters long"):
        check_expression("loss + " * 5_000 + "loss")


@pytest.mark.parametrize(
    "left",
    [
        "-" * 150 + "loss",
        "abs(" * 150 + "loss" + ")" * 150,
        "loss + " * 1_500 + "loss",
        "not " * 3_000 + "loss",
        "(" * 500 + "loss" + ")" * 500,
        "1" * 5_000 + " + loss",
    ],
)
def test_deep_nesting_is_refused_in_words(left):
    with pytest.raises(FormulaError) as error:
        parse_formula(f"{{{left}}} ~ model")
    assert "nest" in str(error.value) or "not an expression" in str(error.value)


def test_nesting_up_to_the_limit_is_evaluated():
    from cvreport.data.formula import MAX_NESTING_DEPTH

    df = _frame(loss=[1.0, 2.0])
    left = "loss + " * (MAX_NESTING_DEPTH - 2) + "loss"
    values = evaluate_response(parse_formula(f"{{{left}}} ~ model"), df)
    assert values.tolist() == [MAX_NESTING_DEPTH - 1.0, 2 * (MAX_NESTING_DEPTH - 1.0)]


def test_a_cluster_term_after_a_long_run_of_spaces_is_split_in_linear_time():
    from cvreport.data.formula import split_cluster_term

    # the former pattern backtracked cubically over such runs (minutes for 2,000 spaces)
    assert split_cluster_term("loss ~ model" + " " * 20_000 + "x") == (
        "loss ~ model" + " " * 20_000 + "x",
        None,
    )
    spaced = "loss ~ model |" + " " * 5_000 + "fold +" + " " * 5_000 + "cluster(  doc )"
    assert split_cluster_term(spaced) == ("loss ~ model |" + " " * 5_000 + "fold", "doc")
    with pytest.raises(FormulaError, match="empty cluster"):
        split_cluster_term("loss ~ model | cluster( )")


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int8, np.uint64])
def test_integer_arithmetic_has_one_meaning_whatever_the_label_type(dtype):
    df = _frame(pred=np.array([0, 1, 1, 0], dtype=dtype), truth=np.array([1, 1, 0, 0], dtype=dtype))
    misses = evaluate_response(parse_formula("{abs(pred - truth)} ~ model"), df)
    assert misses.tolist() == [1.0, 0.0, 1.0, 0.0]  # not 255 for a uint8 miss
    scaled = evaluate_response(parse_formula("{(pred - truth) * 200} ~ model"), df)
    assert scaled.tolist() == [-200.0, 0.0, 200.0, 0.0]  # no wrap-around in 8 bits


# ------------------------------------------------------------------------------- fuzzing
_FUZZ_FRAME = pd.DataFrame(
    {
        "a": [0.5, -1.0, 2.0, 0.0],
        "b": [1, 0, 3, -2],
        "lbl": ["cat", "dog", "cat", "bird"],
        "a b": np.array([0, 1, 255, 7], dtype=np.uint8),
        "loss": [0.1, 0.2, 0.3, 0.4],
        "ｌｏｓｓ": [1.0, 2.0, 3.0, 4.0],
        "_cvq_0": [9.0, 8.0, 7.0, 6.0],
        "model": ["m", "m", "n", "n"],
    }
)
_LEAVES = st.sampled_from(
    ["a", "b", "lbl", "`a b`", "loss", "ｌｏｓｓ", "_cvq_0", "missing", "0", "1", "2.5", "-3",
     "1e308", "'cat'", "''", "True", "None", "..."]
)  # fmt: skip
_CALLEES = st.sampled_from(
    [*sorted(ALLOWED_FUNCTIONS), "np.abs",
     "numpy.where", "ａｂｓ", "eval", "open", "len", "np.loadtxt", "roc_auc", "nonsense"]
)  # fmt: skip
_OPERATORS = st.sampled_from(
    ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "and", "or", "==", "!=", "<", "<=", ">",
     ">=", "<<", "@", "in", "is"]
)  # fmt: skip


def _expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, _OPERATORS, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["-", "+", "not ", "~"]), inner).map("".join),
            st.tuples(_CALLEES, st.lists(inner, max_size=4)).map(
                lambda t: f"{t[0]}({', '.join(t[1])})"
            ),
            st.lists(inner, min_size=2, max_size=6).map(" < ".join),
            st.tuples(inner, st.sampled_from([".real", "[0]", "(1)", " if a else b"])).map("".join),
        )

    return st.recursive(_LEAVES, extend, max_leaves=16)


def _typed_error_or_value(formula: str) -> None:
    from cvreport.errors import CVReportError

    try:
        parsed = parse_formula(formula)
        values = evaluate_response(parsed, _FUZZ_FRAME)
    except CVReportError:
        return
    assert values.shape == (len(_FUZZ_FRAME),)
    if parsed.response_is_column:  # a column is handed on as it is; its values are read later
        assert values.equals(_FUZZ_FRAME[parsed.response])
        return
    assert values.dtype.kind in "biuf" or all(
        v is None or isinstance(v, (int, float, np.number)) for v in values.tolist()
    )


@settings(max_examples=300, deadline=timedelta(seconds=2))
@given(_expressions())
def test_fuzz_random_expressions_give_a_typed_error_or_a_value(expression):
    _typed_error_or_value(f"{{{expression}}} ~ model")


@settings(max_examples=300, deadline=timedelta(seconds=2))
@given(
    st.lists(
        st.sampled_from([*"ab lc()[]{}`'\"~|+-*/%<>=!&^.,:_019ｌｏｓ\n\t", "loss", "cluster("]),
        max_size=40,
    ).map("".join)
)
def test_fuzz_random_text_gives_a_typed_error_or_a_value(text):
    _typed_error_or_value(text)
    _typed_error_or_value(f"{{{text}}} ~ model")
    _typed_error_or_value(f"{text} ~ model | b")


_ARITHMETIC = st.recursive(
    st.sampled_from(["a", "b", "`a b`", "2", "0.5"]),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        inner.map(lambda x: f"abs({x})"),
        st.tuples(inner, inner).map(lambda t: f"minimum({t[0]}, {t[1]})"),
        inner.map(lambda x: f"-{x}"),
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=timedelta(seconds=2))
@given(_ARITHMETIC.filter(lambda e: re.search(r"\b[ab]\b", e) is not None))
def test_fuzz_arithmetic_equals_float64_numpy(expression):
    # the reference: the same text over float64 arrays, evaluated by Python itself (test only)
    columns = {
        "a": _FUZZ_FRAME["a"].to_numpy(float),
        "b": _FUZZ_FRAME["b"].to_numpy(float),
        "a_b": _FUZZ_FRAME["a b"].to_numpy(float),
    }
    reference_text = expression.replace("`a b`", "a_b")
    with np.errstate(all="ignore"):
        # the test's own generated arithmetic, never user input
        expected = eval(
            reference_text, {"__builtins__": {}, "abs": np.abs, "minimum": np.minimum}, columns
        )
    values = evaluate_response(parse_formula(f"{{{expression}}} ~ model"), _FUZZ_FRAME)
    np.testing.assert_allclose(
        values.to_numpy(dtype=float), np.broadcast_to(expected, (4,)), rtol=1e-12, equal_nan=True
    )


def test_decimal_and_nullable_columns_take_arithmetic_with_missing_values_kept():
    from decimal import Decimal

    df = _frame(
        d=[Decimal("0.5"), Decimal("1.25"), None],
        n=pd.array([1, None, 3], dtype="Int64"),
    )
    np.testing.assert_array_equal(
        evaluate_response(parse_formula("{d * 2} ~ model"), df).to_numpy(float), [1.0, 2.5, np.nan]
    )
    np.testing.assert_array_equal(
        evaluate_response(parse_formula("{n - 1} ~ model"), df).to_numpy(float), [0.0, np.nan, 2.0]
    )
    np.testing.assert_array_equal(
        evaluate_response(parse_formula("{n > 1} ~ model"), df).to_numpy(float), [0.0, np.nan, 1.0]
    )
