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

The interpreter is also safe against such a formula's size and spelling: names
are matched exactly as written (Python's parser folds look-alike letters,
``ｌｏｓｓ`` to ``loss``), every function is called with its declared number of
arguments (:data:`FUNCTION_ARITY`), strings take no arithmetic (``'a' * 10**11``
would ask for 100 GB), arithmetic is done in float64 (``uint8`` labels do not
wrap around), and a formula is read in time linear in its length, up to
:data:`MAX_EXPRESSION_LENGTH` characters nested :data:`MAX_NESTING_DEPTH` deep.
"""

from __future__ import annotations

import ast
import operator
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.metrics import resolve_metric
from cvreport.errors import DataError, FormulaError, describe_keys

__all__ = [
    "ALLOWED_FUNCTIONS",
    "DEFAULT_FORMULA",
    "EXPECTED_SHAPES",
    "FUNCTION_ARITY",
    "MAX_EXPRESSION_LENGTH",
    "MAX_NESTING_DEPTH",
    "ParsedFormula",
    "check_expression",
    "evaluate_response",
    "parse_formula",
    "split_cluster_term",
    "with_cluster_term",
]

#: The formula of per-record losses keyed by replication and fold, used as the example.
DEFAULT_FORMULA = "loss ~ model | replication + fold"

_CLUSTER_CALL = re.compile(r"\bcluster\(([^()]*)\)")


def with_cluster_term(formula: str, cluster: str | None) -> str:
    """``formula`` with a ``cluster(COLUMN)`` term among its blocks.

    >>> with_cluster_term("y ~ model | fold", "doc")
    'y ~ model | fold + cluster(doc)'
    >>> with_cluster_term("y ~ model", "doc")
    'y ~ model | cluster(doc)'
    """
    if not cluster:
        return formula
    if "|" not in formula:
        return f"{formula} | cluster({cluster})"
    return f"{formula} + cluster({cluster})"


def split_cluster_term(text: str) -> tuple[str, str | None]:
    """Take a ``cluster(column)`` term out of the blocks of a formula.

    ``"correct ~ model | cluster(passage)"`` names the column of clusters of
    records; the rest of the formula is read as usual. The work is linear in the
    formula's length (no pattern that backtracks over runs of spaces).

    Examples
    --------
    >>> split_cluster_term("loss ~ model | fold + cluster(passage)")
    ('loss ~ model | fold', 'passage')
    >>> split_cluster_term("loss ~ model | cluster(doc)")
    ('loss ~ model', 'doc')
    >>> split_cluster_term("loss ~ model | cluster(doc) + fold")
    ('loss ~ model | fold', 'doc')
    """
    if not isinstance(text, str):
        return text, None
    matches = list(_CLUSTER_CALL.finditer(text))
    if len(matches) > 1:
        raise FormulaError(f"the formula {_shown(text)!r} names more than one cluster(...) column")
    if not matches:
        return text, None
    match = matches[0]
    column = match.group(1).strip()
    if not column:
        raise FormulaError(
            f"the formula {_shown(text)!r} has an empty cluster(); name the column of "
            "clusters, e.g. cluster(passage)"
        )
    before = text[: match.start()].rstrip()
    after = text[match.end() :].lstrip()
    if before.endswith("+"):
        before = before[:-1].rstrip()
    if after.startswith("+"):
        after = after[1:].lstrip()
    if not after:
        rest = before
    elif not before or before.endswith(("|", "~")):
        rest = f"{before} {after}"
    else:
        rest = f"{before} + {after}"
    rest = rest.strip()
    if rest.endswith("|"):
        rest = rest[:-1].rstrip()
    return rest, column


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

FUNCTION_ARITY: dict[str, int] = {
    "abs": 1,
    "exp": 1,
    "log": 1,
    "log1p": 1,
    "log2": 1,
    "log10": 1,
    "sqrt": 1,
    "minimum": 2,
    "maximum": 2,
    "clip": 3,
    "where": 3,
}
"""How many positional arguments each allowed function takes; none takes keywords.

An extra argument is refused, not passed on: numpy would take it as the output
buffer (``abs(x, y)`` would write into the column ``y``)."""

_FUNCTION_USAGE = {
    "minimum": "minimum(x, y)",
    "maximum": "maximum(x, y)",
    "clip": "clip(x, lower, upper)",
    "where": "where(condition, if_true, if_false)",
}

MAX_EXPRESSION_LENGTH = 20_000
"""The longest formula or left side read, in characters; a longer one is refused."""

MAX_NESTING_DEPTH = 100
"""The deepest nesting of operations and calls in a left side; a deeper one is refused."""

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY_ARITHMETIC: dict[type, Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_UNARY_LOGICAL: dict[type, Callable[[Any], Any]] = {
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
_METRIC_CALL = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")
_NUMPY_MODULES = ("np", "numpy")
ALLOWED_SYNTAX = (
    "columns, numbers and strings; + - * / // % ** (on numbers, in float64); "
    "== != < <= > >=; and, or, not (also & | ^ ~, elementwise); and the functions "
    + ", ".join(_FUNCTION_USAGE.get(name, f"{name}(x)") for name in FUNCTION_ARITY)
)


@dataclass(frozen=True)
class _Checked:
    """A checked left side.

    ``tree`` holds each column as written (``Name.id`` is the exact text, or a
    placeholder of ``quoted`` for a back-quoted column); ``text`` is the
    expression formatted as formulaic formats it.
    """

    tree: ast.expr
    columns: tuple[str, ...]
    quoted: dict[str, str]
    text: str


def _refuse(expression: str, part: str, why: str) -> FormulaError:
    return FormulaError(
        f"the left side {_shown(expression)!r} is refused: {part} {why}. A left side is data, "
        f"not code: it may use {ALLOWED_SYNTAX}"
    )


def _shown(text: str, limit: int = 200) -> str:
    """``text``, cut to ``limit`` characters for a message."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _fresh_prefix(expression: str) -> str:
    """A prefix for the names of back-quoted columns that the expression itself never holds.

    No name the user wrote, and no column of any name, can then be taken for one.
    """
    prefix = "_cvq"
    while prefix in expression:
        prefix += "_"
    return prefix + "_"


class _Source:
    """The exact text of each node of a parsed expression, by its UTF-8 byte offsets."""

    def __init__(self, source: str) -> None:
        self.lines = source.encode("utf-8").split(b"\n")

    def of(self, node: ast.AST) -> str:
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        start, end = node.col_offset, node.end_col_offset or 0
        if first == last:
            raw = self.lines[first][start:end]
        else:
            raw = b"\n".join(
                [self.lines[first][start:], *self.lines[first + 1 : last], self.lines[last][:end]]
            )
        return raw.decode("utf-8", "replace")


def _depth(tree: ast.AST) -> int:
    """The nesting depth of a tree, without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_NESTING_DEPTH:
            break
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def check_expression(expression: str) -> _Checked:
    """Parse a left-side expression and check every node against the allow-list.

    Names are matched exactly as written: Python folds look-alike letters of an
    identifier to one form (NFKC, e.g. ``ｌｏｓｓ`` to ``loss``), so each name is
    read back from the text instead. Work is linear in the expression's length,
    which is at most :data:`MAX_EXPRESSION_LENGTH` characters, nested at most
    :data:`MAX_NESTING_DEPTH` deep.

    Raises
    ------
    FormulaError
        Naming the first refused part (an attribute, a call outside
        :data:`ALLOWED_FUNCTIONS` or with other than its :data:`FUNCTION_ARITY`
        arguments, a subscript, a lambda, a string in arithmetic, ...).

    Examples
    --------
    >>> check_expression("pred != truth").columns
    ('pred', 'truth')
    >>> check_expression("ｌｏｓｓ * 2").columns
    ('ｌｏｓｓ',)
    >>> check_expression("__import__('os').system('id')")
    Traceback (most recent call last):
    ...
    cvreport.errors.FormulaError: the left side "__import__('os').system('id')" is refused: ...
    """
    if not isinstance(expression, str):
        raise FormulaError(f"the left side must be text, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise _refuse(
            expression,
            "the text",
            f"is {len(expression):,} characters long; at most {MAX_EXPRESSION_LENGTH:,} are read",
        )
    quoted: dict[str, str] = {}
    prefix = _fresh_prefix(expression)

    def placeholder(match: re.Match[str]) -> str:
        name = f"{prefix}{len(quoted)}"
        quoted[name] = match.group(1)
        return f" {name} "

    source = _QUOTED_NAME.sub(placeholder, expression.replace("\r\n", "\n").replace("\r", "\n"))
    source = source.strip()
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as error:
        raise _refuse(expression, "the text", f"is not an expression ({error.msg})") from None
    except (RecursionError, MemoryError):
        raise _refuse(
            expression, "the text", f"nests too deeply (at most {MAX_NESTING_DEPTH} levels)"
        ) from None
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise _refuse(expression, "the text", f"is not an expression ({error})") from None
    if _depth(tree) > MAX_NESTING_DEPTH:
        raise _refuse(
            expression,
            "the expression",
            f"nests operations more than {MAX_NESTING_DEPTH} levels deep; split it or "
            "compute the column beforehand",
        )
    text = _Source(source)
    columns: dict[str, None] = {}

    def segment(node: ast.AST) -> str:
        shown = text.of(node) or type(node).__name__
        for name, column in quoted.items():
            shown = shown.replace(name, f"`{column}`")
        return _shown(" ".join(shown.split()), 120)

    def visit(node: ast.expr) -> bool:
        """Check ``node``; whether it is made of constants only."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float, str)):
                return True
            raise _refuse(
                expression, f"the constant {segment(node)!r}", "is not a number or string"
            )
        if isinstance(node, ast.Name):
            node.id = text.of(node)  # as written: no folding of look-alike letters
            columns.setdefault(quoted.get(node.id, node.id), None)
            return False
        if isinstance(node, ast.BinOp) and type(node.op) in {**_BINARY, **_BINARY_BOOLEAN}:
            if type(node.op) in _BINARY and (_is_string(node.left) or _is_string(node.right)):
                raise _refuse(
                    expression,
                    f"the string arithmetic {segment(node)!r}",
                    "is not allowed (strings may only be compared, e.g. pred == 'cat')",
                )
            left = visit(node.left)
            right = visit(node.right)
            if isinstance(node.op, ast.Pow) and left and right:
                raise _refuse(
                    expression, f"the power {segment(node)!r}", "of two constants is not allowed"
                )
            return left and right
        if isinstance(node, ast.UnaryOp) and type(node.op) in {
            **_UNARY_ARITHMETIC,
            **_UNARY_LOGICAL,
        }:
            if type(node.op) in _UNARY_ARITHMETIC and _is_string(node.operand):
                raise _refuse(
                    expression, f"the string arithmetic {segment(node)!r}", "is not allowed"
                )
            return visit(node.operand)
        if isinstance(node, ast.BoolOp) and type(node.op) in _BOOLEAN:
            for value in node.values:
                visit(value)
            return False
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            for value in (node.left, *node.comparators):
                visit(value)
            return False
        if isinstance(node, ast.Call):
            name = _function_name(node.func, text)
            if name is None:
                callee = segment(node.func)
                if not isinstance(node.func, (ast.Name, ast.Attribute)):
                    callee = f"({callee})"
                raise _refuse(
                    expression,
                    f"the call {callee}(...)",
                    "is not one of the allowed functions " + ", ".join(ALLOWED_FUNCTIONS),
                )
            if node.keywords:
                raise _refuse(expression, f"the call {segment(node)!r}", "has keyword arguments")
            if any(isinstance(argument, ast.Starred) for argument in node.args):
                raise _refuse(expression, f"the call {segment(node)!r}", "unpacks arguments")
            wanted = FUNCTION_ARITY[name]
            if len(node.args) != wanted:
                usage = _FUNCTION_USAGE.get(name, f"{name}(x)")
                raise _refuse(
                    expression,
                    f"the call {segment(node)!r}",
                    f"gives {len(node.args)} argument{'s' if len(node.args) != 1 else ''}; "
                    f"{name} takes {wanted}: {usage}",
                )
            for argument in node.args:
                visit(argument)
            return False
        kinds = {
            ast.Attribute: "attribute access",
            ast.Subscript: "a subscript",
            ast.Lambda: "a lambda",
            ast.NamedExpr: "an assignment",
        }
        kind_name = type(node).__name__
        kind = kinds.get(
            type(node), f"{'an' if kind_name[0] in 'AEIOU' else 'a'} {kind_name} expression"
        )
        raise _refuse(expression, f"{kind} {segment(node)!r}", "is not allowed")

    visit(tree)
    formatted = ast.unparse(tree).replace("\n", " ")
    for name, column in quoted.items():
        formatted = formatted.replace(name, f"`{column}`")
    return _Checked(tree=tree, columns=tuple(columns), quoted=quoted, text=formatted)


def _function_name(node: ast.expr, text: _Source) -> str | None:
    """The allowed function a call names exactly as written (``abs``, ``np.abs``), or ``None``."""
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    written = "".join(text.of(node).split())
    module, _, name = written.rpartition(".")
    if module not in ("", *_NUMPY_MODULES) or name not in ALLOWED_FUNCTIONS:
        return None
    return name


def _describe(node: ast.expr, quoted: Mapping[str, str]) -> str:
    if isinstance(node, ast.Name):
        return f"column {quoted.get(node.id, node.id)!r}"
    shown = ast.unparse(node)
    for name, column in quoted.items():
        shown = shown.replace(name, f"`{column}`")
    return repr(_shown(shown, 80))


def _numbers(value: Any, node: ast.expr, quoted: Mapping[str, str]) -> Any:
    """``value`` as float64 (a scalar or an array) for arithmetic, or a FormulaError.

    Arithmetic in float64 has one meaning whatever the columns' integer types:
    ``abs(pred - truth)`` of ``uint8`` labels is 1 for a miss, not 255.
    """
    if isinstance(value, (bool, int, float, np.bool_, np.number)) and not isinstance(
        value, (complex, np.complexfloating)
    ):
        return np.float64(value)
    if isinstance(value, pd.Series):
        dtype = value.dtype
        if pd.api.types.is_bool_dtype(dtype) or (
            pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
        ):
            return value.to_numpy(dtype=np.float64, na_value=np.nan)
        value = value.to_numpy()
    array = np.asarray(value)
    if array.dtype.kind in "biuf":
        return array.astype(np.float64)
    if array.dtype.kind == "O" and _all_numbers(array, decimals=True):
        return np.array(
            [np.nan if v is None or v is pd.NA else float(v) for v in array.tolist()],
            dtype=np.float64,
        )
    example = array.flat[0] if array.size else value
    raise FormulaError(
        f"arithmetic needs numbers, but {_describe(node, quoted)} holds "
        f"{'text' if isinstance(example, str) else array.dtype} (e.g. {_shown(repr(example), 40)}); "
        "compare labels instead, e.g. '{pred != truth}'"
    )


def _evaluate(node: ast.expr, values: Mapping[str, Any], quoted: Mapping[str, str]) -> Any:
    """Evaluate a checked expression over the columns: arithmetic in float64."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[quoted.get(node.id, node.id)]
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, values, quoted)
        right = _evaluate(node.right, values, quoted)
        if type(node.op) in _BINARY_BOOLEAN:
            return _BINARY_BOOLEAN[type(node.op)](left, right)
        left = _numbers(left, node.left, quoted)
        right = _numbers(right, node.right, quoted)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values, quoted)
        if type(node.op) in _UNARY_LOGICAL:
            return _UNARY_LOGICAL[type(node.op)](operand)
        return _UNARY_ARITHMETIC[type(node.op)](_numbers(operand, node.operand, quoted))
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
    name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr  # type: ignore[attr-defined]
    arguments = [
        _numbers(_evaluate(argument, values, quoted), argument, quoted) for argument in node.args
    ]
    if name == "where":
        arguments[0] = np.asarray(arguments[0]) != 0
    return ALLOWED_FUNCTIONS[name](*arguments)


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


def _raw_tokens(text: str) -> list[Any] | None:
    """formulaic's tokens of the formula as written (before it reformats Python parts)."""
    from formulaic.parser.algos.tokenize import tokenize

    try:
        return list(tokenize(text))
    except Exception:  # formulaic's own parse reports the problem
        return None


def _check_tokens(text: str, tokens: list[Any] | None) -> None:
    """Catch what formulaic would silently accept or report obscurely.

    formulaic drops a repeated term (``replication + replication`` is one
    block) and fails on ``.`` with an internal key error; both get a
    :class:`FormulaError` that says what to write instead.
    """
    if tokens is None:
        return
    if any(str(token) == "." and token.kind.value != "python" for token in tokens):
        raise _malformed(
            text, "'.' (every other column) is not supported; name the model and block columns"
        )
    counts = Counter(
        str(token) for token in tokens if token.kind.value == "name" and str(token) != "."
    )
    repeated = sorted(name for name, count in counts.items() if count > 1)
    if repeated:
        raise _malformed(
            text,
            f"column {describe_keys(repeated)} is named more than once; each column may appear "
            "only once",
        )


def _written_left_side(tokens: list[Any] | None) -> str | None:
    """The left side's Python expression exactly as written, when it is one."""
    if tokens is None:
        return None
    left = []
    for token in tokens:
        if token.kind.value == "operator" and str(token) == "~":
            break
        left.append(token)
    if len(left) != 1 or left[0].kind.value != "python":
        return None
    return str(left[0].token).strip()


def _unknown_metric_call(expression: str) -> None:
    """Refuse ``name(truth, predictions)`` on the left when ``name`` is no metric.

    A call of two arguments to a name that is neither an allowed function nor a
    metric is read as a misspelt metric: :func:`~cvreport.data.metrics.resolve_metric`
    raises its :class:`~cvreport.errors.DataError` listing the known metrics.
    """
    match = _METRIC_CALL.match(expression)
    if match is None or match.group(1) in ALLOWED_FUNCTIONS:
        return
    try:
        call = ast.parse(expression, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    if isinstance(call, ast.Call) and len(call.args) == 2 and not call.keywords:
        resolve_metric(match.group(1))


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
        # a frame where the formula belongs: the arguments were given the other way round
        order = " (the formula comes first, the data second)" if hasattr(text, "columns") else ""
        raise FormulaError(
            f"the formula must be a string, got {type(text).__name__}{order}; "
            f"expected {EXPECTED_SHAPES}"
        )
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise FormulaError(
            f"the formula {_shown(text)!r} is {len(text):,} characters long; at most "
            f"{MAX_EXPRESSION_LENGTH:,} are read. Compute a long left side as a column first"
        )
    if "~" not in text:
        raise _malformed(text, "there is no '~' separating the loss from the model")
    from formulaic import Formula
    from formulaic.parser import DefaultFormulaParser

    parser = DefaultFormulaParser(include_intercept=False)
    tokens = _raw_tokens(text)
    _check_tokens(text, tokens)
    written = _written_left_side(tokens)
    checked = None
    if written is not None:
        _unknown_metric_call(written)
        checked = check_expression(written)  # before formulaic reformats (and folds) it
    try:
        formula = Formula(text, _parser=parser)
    except (RecursionError, MemoryError):
        raise _malformed(
            text, f"it nests too deeply (at most {MAX_NESTING_DEPTH} levels)"
        ) from None
    except Exception as error:  # formulaic raises several exception types
        raise _malformed(text, f"formulaic could not parse it ({_plain(error)})") from error
    lhs = getattr(formula, "lhs", None)
    rhs = getattr(formula, "rhs", None)
    if lhs is None or rhs is None:
        raise _malformed(text, "a loss is needed on the left of '~'")
    parts = list(rhs) if isinstance(rhs, tuple) else [rhs]
    if len(parts) > 2:
        many = (
            " (a third part, '| dataset', names the data sets: read such a formula with "
            "DatasetsTable.from_formula)"
            if len(parts) == 3
            else ""
        )
        raise _malformed(
            text, f"found {len(parts)} parts separated by '|', at most 2 are allowed{many}"
        )
    response_terms = list(lhs)
    if len(response_terms) != 1 or len(response_terms[0].factors) != 1:
        raise _malformed(text, f"the left side must be one loss, got {str(lhs)!r}")
    response_factor = response_terms[0].factors[0]
    if response_factor.eval_method.value == "literal":
        raise _malformed(text, f"the left side is a constant ({response_factor.expr!r})")
    response = str(response_factor.expr)
    if response_factor.eval_method.value == "python":
        if checked is None:
            checked = check_expression(response)
        if not checked.columns:
            raise _malformed(
                text, f"the left side is a constant ({response_factor.expr!r}); name a column"
            )
        response = checked.text  # each name as written
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
    if model in blocks or response in (model, *blocks):
        raise _malformed(text, "each column may appear only once")
    return ParsedFormula(
        text=text,
        response=response,
        response_is_column=response_factor.eval_method.value == "lookup",
        model=model,
        blocks=blocks,
    )


def _require_unique(data: pd.DataFrame, columns: Sequence[str]) -> None:
    repeated = [column for column in columns if not isinstance(data[column], pd.Series)]
    if repeated:
        raise DataError(
            f"the data has several columns named {describe_keys(repeated)}; rename them so "
            "that each name is unique"
        )


def _all_numbers(values: np.ndarray, *, decimals: bool = False) -> bool:
    kinds: tuple[type, ...] = (int, float, np.number) + ((Decimal,) if decimals else ())
    return all(
        value is None
        or (decimals and value is pd.NA)
        or (isinstance(value, kinds) and not isinstance(value, str))
        for value in values.tolist()
    )


def _look_alikes(names: Sequence[str], columns: Sequence[Any]) -> str:
    """A sentence naming the columns that differ from ``names`` only by Unicode look-alikes."""
    folded: dict[str, list[str]] = {}
    for column in columns:
        if isinstance(column, str):
            folded.setdefault(unicodedata.normalize("NFKC", column), []).append(column)
    pairs = [
        f"{name!r} is written differently from {describe_keys(folded[key])}"
        for name in names
        if (key := unicodedata.normalize("NFKC", name)) in folded
    ]
    if not pairs:
        return ""
    return (
        f"; names are matched exactly as written and {'; '.join(pairs)} (Unicode "
        "look-alike letters): write the name as the data spells it, in back quotes if needed"
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
            f"the left side {parsed.response!r} of {_shown(parsed.text)!r} names "
            f"{describe_keys(missing)}, which {'is' if len(missing) == 1 else 'are'} not "
            f"a column of the data (columns {describe_keys(data.columns, 12)}) nor one of the "
            f"allowed functions {', '.join(ALLOWED_FUNCTIONS)}{_look_alikes(missing, data.columns)}"
        )
    _require_unique(data, checked.columns)
    # numpy arrays where the dtype is numpy's (no per-operation pandas overhead, so a
    # long comparison chain stays fast); pandas' own dtypes keep their missing values
    columns = {
        column: data[column].to_numpy()
        if isinstance(data[column].dtype, np.dtype)
        else data[column]
        for column in checked.columns
    }
    try:
        with np.errstate(all="ignore"):
            result = _evaluate(checked.tree, columns, checked.quoted)
    except (TypeError, ValueError, ArithmeticError, AttributeError) as error:
        raise FormulaError(
            f"cannot evaluate the left side {parsed.response!r} of {parsed.text!r} on the data "
            f"({_plain(error)}); it must give one number per row, e.g. '{{pred != truth}}'"
        ) from error
    if (
        isinstance(result, pd.Series)
        and not isinstance(result.dtype, np.dtype)
        and (
            pd.api.types.is_bool_dtype(result.dtype) or pd.api.types.is_numeric_dtype(result.dtype)
        )
        and result.isna().any()
    ):  # pandas' nullable numbers and booleans: missing values as NaN, reported later
        result = result.to_numpy(dtype=np.float64, na_value=np.nan)
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
