"""Read an R-style formula naming the columns of a results table.

The formula follows R's blocked-design convention (``friedman.test(y ~ treatment
| block)``)::

    loss ~ model | replication + fold        # m replications of K-fold CV
    {pred != truth} ~ model | replication + fold
    loss ~ model | fold                      # one run of K-fold CV (see below)
    loss ~ model                             # one hold-out split

formulaic parses it (multi-part ``|``, no intercept); it is used only as a
parser, never to evaluate anything or to build model matrices of the keys.

A left side that is an expression is data, not code: before anything is
evaluated, its Python syntax tree is checked against an allow-list (columns,
numbers and strings, arithmetic, comparisons, boolean operators and the
functions in :data:`ALLOWED_FUNCTIONS`); attribute access, imports, other calls,
subscripts and the like are a :class:`~cvreport.errors.FormulaError` that names
the refused part. The checked tree is then evaluated by a small interpreter over
the data's columns, so a formula from someone else (a web form, a config file)
cannot run code.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cvreport.errors import FormulaError, describe_keys

__all__ = [
    "ALLOWED_FUNCTIONS",
    "DEFAULT_FORMULA",
    "EXPECTED_SHAPES",
    "ParsedFormula",
    "check_expression",
    "evaluate_response",
    "parse_formula",
    "split_cluster_term",
]

#: The formula of per-record losses keyed by replication and fold, used as the example.
DEFAULT_FORMULA = "loss ~ model | replication + fold"

_CLUSTER_TERM = re.compile(r"\s*\+?\s*\bcluster\(\s*([^()]+?)\s*\)\s*\+?\s*")


def split_cluster_term(text: str) -> tuple[str, str | None]:
    """Take a ``cluster(column)`` term out of the blocks of a formula.

    ``"correct ~ model | cluster(passage)"`` names the column of clusters of
    records; the rest of the formula is read as usual.

    Examples
    --------
    >>> split_cluster_term("loss ~ model | fold + cluster(passage)")
    ('loss ~ model | fold', 'passage')
    >>> split_cluster_term("loss ~ model | cluster(doc)")
    ('loss ~ model', 'doc')
    """
    if not isinstance(text, str):
        return text, None
    matches = _CLUSTER_TERM.findall(text)
    if len(matches) > 1:
        raise FormulaError(f"the formula {text!r} names more than one cluster(...) column")
    if not matches:
        return text, None
    rest = _CLUSTER_TERM.sub(" + ", text, count=1).strip()
    rest = re.sub(r"\|\s*\+\s*", "| ", rest)
    rest = re.sub(r"\s*\+\s*$", "", rest)
    rest = re.sub(r"\s*\|\s*$", "", rest)
    return rest.strip(), matches[0]


EXPECTED_SHAPES = (
    "'loss ~ model | replication + fold' (m replications of K-fold CV), "
    "'loss ~ model | fold' (one run of K-fold CV, or repeated hold-out when records repeat), "
    "or 'loss ~ model' (one hold-out split); the left side may be an expression in braces, "
    "e.g. '{pred != truth} ~ model | replication + fold'"
)


# The left side as data, not code: a parsed Python expression checked node by node
# against an allow-list and evaluated by a small interpreter over the data's columns,
# so no text from a formula ever reaches ``eval``.

ALLOWED_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "minimum": np.minimum,
    "maximum": np.maximum,
    "clip": np.clip,
    "where": np.where,
}
"""The functions a left side may call (numpy's, elementwise), also as ``np.NAME``."""

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
    ast.Not: np.logical_not,
    ast.Invert: np.logical_not,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_BOOLEAN: dict[type, Callable[[Any, Any], Any]] = {
    ast.And: np.logical_and,
    ast.Or: np.logical_or,
}
_BINARY_BOOLEAN: dict[type, Callable[[Any, Any], Any]] = {
    ast.BitAnd: np.logical_and,
    ast.BitOr: np.logical_or,
    ast.BitXor: np.logical_xor,
}
_QUOTED_NAME = re.compile(r"`([^`]*)`")
_NUMPY_MODULES = ("np", "numpy")
ALLOWED_SYNTAX = (
    "columns, numbers and strings; + - * / // % **; == != < <= > >=; and, or, not "
    "(also & | ^ ~, elementwise); and the functions " + ", ".join(ALLOWED_FUNCTIONS)
)


@dataclass(frozen=True)
class _Checked:
    tree: ast.expr
    columns: tuple[str, ...]
    quoted: dict[str, str]


def _refuse(expression: str, part: str, why: str) -> FormulaError:
    return FormulaError(
        f"the left side {expression!r} is refused: {part} {why}. A left side is data, not "
        f"code: it may use {ALLOWED_SYNTAX}"
    )


def _function_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in _NUMPY_MODULES
    ):
        return node.attr
    return None


def check_expression(expression: str) -> _Checked:
    """Parse a left-side expression and check every node against the allow-list.

    Raises
    ------
    FormulaError
        Naming the first refused part (an attribute, a call outside
        :data:`ALLOWED_FUNCTIONS`, a subscript, a lambda, ...).

    Examples
    --------
    >>> check_expression("pred != truth").columns
    ('pred', 'truth')
    >>> check_expression("__import__('os').system('id')")
    Traceback (most recent call last):
    ...
    cvreport.errors.FormulaError: the left side "__import__('os').system('id')" is refused: ...
    """
    quoted: dict[str, str] = {}

    def placeholder(match: re.Match[str]) -> str:
        name = f"_quoted_column_{len(quoted)}"
        quoted[name] = match.group(1)
        return name

    source = _QUOTED_NAME.sub(placeholder, expression)
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except SyntaxError as error:
        raise _refuse(expression, "the text", f"is not an expression ({error.msg})") from None
    columns: list[str] = []

    def visit(node: ast.expr, *, constant_only: list[bool]) -> None:
        segment = ast.get_source_segment(source, node) or type(node).__name__
        for name, column in quoted.items():
            segment = segment.replace(name, f"`{column}`")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float, str)):
                return
            raise _refuse(expression, f"the constant {segment!r}", "is not a number or string")
        constant_only[0] = False
        if isinstance(node, ast.Name):
            column = quoted.get(node.id, node.id)
            if column not in columns:
                columns.append(column)
            return
        if isinstance(node, ast.BinOp) and type(node.op) in {**_BINARY, **_BINARY_BOOLEAN}:
            left, right = [True], [True]
            visit(node.left, constant_only=left)
            visit(node.right, constant_only=right)
            if isinstance(node.op, ast.Pow) and left[0] and right[0]:
                raise _refuse(
                    expression, f"the power {segment!r}", "of two constants is not allowed"
                )
            constant_only[0] = left[0] and right[0]
            return
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            inner = [True]
            visit(node.operand, constant_only=inner)
            constant_only[0] = inner[0]
            return
        if isinstance(node, ast.BoolOp) and type(node.op) in _BOOLEAN:
            for value in node.values:
                visit(value, constant_only=[True])
            return
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            for value in (node.left, *node.comparators):
                visit(value, constant_only=[True])
            return
        if isinstance(node, ast.Call):
            name = _function_name(node.func)
            if name not in ALLOWED_FUNCTIONS:
                callee = ast.get_source_segment(source, node.func) or "?"
                if not isinstance(node.func, (ast.Name, ast.Attribute)):
                    callee = f"({callee})"
                raise _refuse(
                    expression,
                    f"the call {callee}(...)",
                    "is not one of the allowed functions " + ", ".join(ALLOWED_FUNCTIONS),
                )
            if node.keywords:
                raise _refuse(expression, f"the call {segment!r}", "has keyword arguments")
            for argument in node.args:
                if isinstance(argument, ast.Starred):
                    raise _refuse(expression, f"the call {segment!r}", "unpacks arguments")
                visit(argument, constant_only=[True])
            return
        kinds = {
            ast.Attribute: "attribute access",
            ast.Subscript: "a subscript",
            ast.Lambda: "a lambda",
            ast.NamedExpr: "an assignment",
        }
        name = type(node).__name__
        kind = kinds.get(type(node), f"{'an' if name[0] in 'AEIOU' else 'a'} {name} expression")
        raise _refuse(expression, f"{kind} {segment!r}", "is not allowed")

    everything_constant = [True]
    visit(tree, constant_only=everything_constant)
    return _Checked(tree=tree, columns=tuple(columns), quoted=quoted)


def _evaluate(node: ast.expr, values: Mapping[str, np.ndarray], quoted: Mapping[str, str]) -> Any:
    """Evaluate a checked expression over column arrays."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[quoted.get(node.id, node.id)]
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, values, quoted)
        right = _evaluate(node.right, values, quoted)
        return {**_BINARY, **_BINARY_BOOLEAN}[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_evaluate(node.operand, values, quoted))
    if isinstance(node, ast.BoolOp):
        combine = _BOOLEAN[type(node.op)]
        result = _evaluate(node.values[0], values, quoted)
        for value in node.values[1:]:
            result = combine(result, _evaluate(value, values, quoted))
        return result
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, values, quoted)
        result: Any = True
        for op, comparator in zip(node.ops, node.comparators):
            right = _evaluate(comparator, values, quoted)
            result = np.logical_and(result, _COMPARE[type(op)](left, right))
            left = right
        return result
    assert isinstance(node, ast.Call)  # check_expression allowed nothing else
    function = ALLOWED_FUNCTIONS[str(_function_name(node.func))]
    return function(*(_evaluate(argument, values, quoted) for argument in node.args))


@dataclass(frozen=True)
class ParsedFormula:
    """The parts of a results-table formula.

    Attributes
    ----------
    text : str
        The formula as given.
    response : str
        The left side: a column name or an expression.
    response_is_column : bool
        Whether the left side is a plain column name.
    model : str
        The column naming the models.
    blocks : tuple of str
        The columns after ``|``: ``(replication, fold)``, ``(block,)`` or ``()``.

    Examples
    --------
    >>> f = parse_formula("loss ~ model | replication + fold")
    >>> f.response, f.model, f.blocks
    ('loss', 'model', ('replication', 'fold'))
    """

    text: str
    response: str
    response_is_column: bool
    model: str
    blocks: tuple[str, ...]

    @property
    def replication_and_fold(self) -> tuple[str | None, str | None]:
        """The replication and fold columns of the blocks; a single block is the fold.

        >>> parse_formula("loss ~ model | fold").replication_and_fold
        (None, 'fold')
        """
        if len(self.blocks) == 2:
            return self.blocks[0], self.blocks[1]
        return None, (self.blocks[0] if self.blocks else None)


class _Part(list):
    """One term presented as a formula part (prints as the term)."""

    def __init__(self, term: object) -> None:
        super().__init__([term])

    def __str__(self) -> str:
        return str(self[0])


def _plain(message: object) -> str:
    """An exception message on one line, without terminal colour codes."""
    text = re.sub(r"\x1b\[[0-9;]*m|[\u29da\u29db]", "", str(message))
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _malformed(text: str, problem: str) -> FormulaError:
    return FormulaError(f"cannot read the formula {text!r}: {problem}; expected {EXPECTED_SHAPES}")


def _single_column(part: object, text: str, role: str) -> str:
    """The one column a formula part names, or a FormulaError."""
    terms = list(part)  # type: ignore[call-overload]
    if len(terms) != 1 or len(terms[0].factors) != 1:
        raise _malformed(text, f"the {role} must be a single column, got {str(part)!r}")
    factor = terms[0].factors[0]
    if factor.eval_method.value != "lookup":
        raise _malformed(text, f"the {role} must be a column name, got {factor.expr!r}")
    return str(factor.expr)


def _check_tokens(text: str, parser: object) -> None:
    """Catch what formulaic would silently accept or report obscurely.

    formulaic drops a repeated term (``replication + replication`` is one
    block) and fails on ``.`` with an internal key error; both get a
    :class:`FormulaError` that says what to write instead.
    """
    try:
        tokens = list(parser.get_tokens(text))  # type: ignore[attr-defined]
    except Exception:  # formulaic's own parse reports the problem
        return
    if any(token.kind.value == "operator" and str(token) == "." for token in tokens):
        raise _malformed(
            text, "'.' (every other column) is not supported; name the model and block columns"
        )
    names = [str(token) for token in tokens if token.kind.value == "name"]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise _malformed(
            text,
            f"column {describe_keys(repeated)} is named more than once; each column may appear "
            "only once",
        )


def parse_formula(text: str) -> ParsedFormula:
    """Parse ``response ~ model | replication + fold`` with formulaic.

    Raises
    ------
    FormulaError
        When the formula does not have one of the expected shapes; the message
        shows the shapes.

    Examples
    --------
    >>> parse_formula("{pred != truth} ~ model").response
    'pred != truth'
    >>> parse_formula("loss ~ model + fold")
    Traceback (most recent call last):
    ...
    cvreport.errors.FormulaError: cannot read the formula 'loss ~ model + fold': ...
    """
    if not isinstance(text, str):
        raise FormulaError(
            f"the formula must be a string, got {type(text).__name__}; expected {EXPECTED_SHAPES}"
        )
    if "~" not in text:
        raise _malformed(text, "there is no '~' separating the loss from the model")
    from formulaic import Formula
    from formulaic.parser import DefaultFormulaParser

    parser = DefaultFormulaParser(include_intercept=False)
    _check_tokens(text, parser)
    try:
        formula = Formula(text, _parser=parser)
    except Exception as error:  # formulaic raises several exception types
        raise _malformed(text, f"formulaic could not parse it ({_plain(error)})") from error
    lhs = getattr(formula, "lhs", None)
    rhs = getattr(formula, "rhs", None)
    if lhs is None or rhs is None:
        raise _malformed(text, "a loss is needed on the left of '~'")
    parts = list(rhs) if isinstance(rhs, tuple) else [rhs]
    if len(parts) > 2:
        raise _malformed(text, f"found {len(parts)} parts separated by '|', at most 2 are allowed")
    response_terms = list(lhs)
    if len(response_terms) != 1 or len(response_terms[0].factors) != 1:
        raise _malformed(text, f"the left side must be one loss, got {str(lhs)!r}")
    response_factor = response_terms[0].factors[0]
    if response_factor.eval_method.value == "literal":
        raise _malformed(text, f"the left side is a constant ({response_factor.expr!r})")
    if response_factor.eval_method.value == "python":
        if not check_expression(str(response_factor.expr)).columns:
            raise _malformed(
                text, f"the left side is a constant ({response_factor.expr!r}); name a column"
            )
    model = _single_column(parts[0], text, "model (right of '~')")
    blocks: tuple[str, ...] = ()
    if len(parts) == 2:
        block_terms = list(parts[1])
        if not 1 <= len(block_terms) <= 2:
            raise _malformed(
                text,
                f"after '|' name the replication and fold columns ('replication + fold'), "
                f"got {str(parts[1])!r}",
            )
        blocks = tuple(_single_column(_Part(term), text, "block after '|'") for term in block_terms)
    if model in blocks or response_factor.expr in (model, *blocks):
        raise _malformed(text, "each column may appear only once")
    return ParsedFormula(
        text=text,
        response=str(response_factor.expr),
        response_is_column=response_factor.eval_method.value == "lookup",
        model=model,
        blocks=blocks,
    )


def _require_unique(data: pd.DataFrame, columns: Sequence[str]) -> None:
    from cvreport.errors import DataError

    repeated = [column for column in columns if not isinstance(data[column], pd.Series)]
    if repeated:
        raise DataError(
            f"the data has several columns named {describe_keys(repeated)}; rename them so "
            "that each name is unique"
        )


def _all_numbers(values: np.ndarray) -> bool:
    return all(
        value is None or (isinstance(value, (int, float, np.number)) and not isinstance(value, str))
        for value in values.tolist()
    )


def evaluate_response(parsed: ParsedFormula, data: pd.DataFrame) -> pd.Series:
    """The left side of the formula as a Series aligned with ``data``'s rows.

    A plain column is returned as it is (no copy); an expression is checked by
    :func:`check_expression` and evaluated over the columns, keeping rows with
    missing values so they can be reported.

    Examples
    --------
    >>> df = pd.DataFrame({"pred": [1, 0], "truth": [1, 1]})
    >>> evaluate_response(parse_formula("{pred != truth} ~ model"), df).tolist()
    [0, 1]
    """
    from cvreport.errors import DataError

    if parsed.response_is_column:
        if parsed.response not in data:
            raise DataError(
                f"the loss column {parsed.response!r} of the formula {parsed.text!r} is not in "
                f"the data (columns {describe_keys(data.columns, 12)})"
            )
        _require_unique(data, [parsed.response])
        return data[parsed.response]
    checked = check_expression(parsed.response)
    missing = [column for column in checked.columns if column not in data]
    if missing:
        raise FormulaError(
            f"the left side {parsed.response!r} of {parsed.text!r} names "
            f"{describe_keys(missing)}, which {'is' if len(missing) == 1 else 'are'} not "
            f"a column of the data (columns {describe_keys(data.columns, 12)}) nor one of the "
            f"allowed functions {', '.join(ALLOWED_FUNCTIONS)}"
        )
    _require_unique(data, checked.columns)
    columns = {column: data[column] for column in checked.columns}
    try:
        with np.errstate(all="ignore"):
            result = _evaluate(checked.tree, columns, checked.quoted)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as error:
        raise FormulaError(
            f"cannot evaluate the left side {parsed.response!r} of {parsed.text!r} on the data "
            f"({_plain(error)}); it must give one number per row, e.g. '{{pred != truth}}'"
        ) from error
    values = np.asarray(result)
    if values.ndim == 0:
        values = np.broadcast_to(values, (data.shape[0],))
    if values.shape != (data.shape[0],):
        raise FormulaError(
            f"the left side {parsed.response!r} of {parsed.text!r} gives an array of shape "
            f"{values.shape}; it must give one number per row, e.g. '{{pred != truth}}'"
        )
    if values.dtype == bool:
        values = values.astype(np.int64)
    if values.dtype.kind not in "iufc" and not _all_numbers(values):
        raise FormulaError(
            f"the left side {parsed.response!r} of {parsed.text!r} gives values that are not "
            f"numbers (e.g. {values[0]!r}); compare them to get a 0/1 loss, e.g. "
            "'{pred != truth}'"
        )
    return pd.Series(values, index=data.index, name=parsed.response)
