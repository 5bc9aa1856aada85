"""Read an R-style formula naming the columns of a results table.

The formula follows R's blocked-design convention (``friedman.test(y ~ treatment
| block)``)::

    loss ~ model | replication + fold        # m replications of K-fold CV
    {pred != truth} ~ model | replication + fold
    loss ~ model | fold                      # one run of K-fold CV (see below)
    loss ~ model                             # one hold-out split

formulaic parses it (multi-part ``|``, no intercept) and evaluates a left side
that is an expression; it is used only as a parser and evaluator, never to
build model matrices of the keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cvreport.errors import FormulaError, describe_keys

__all__ = [
    "DEFAULT_FORMULA",
    "EXPECTED_SHAPES",
    "ParsedFormula",
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


def evaluate_response(parsed: ParsedFormula, data: pd.DataFrame) -> pd.Series:
    """The left side of the formula as a Series aligned with ``data``'s rows.

    A plain column is returned as it is (no copy); an expression is evaluated
    by formulaic, keeping rows with missing values so they can be reported.

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
        return data[parsed.response]
    from formulaic import model_matrix

    try:
        matrix = model_matrix(f"{{{parsed.response}}} - 1", data, na_action="ignore")
    except Exception as error:  # formulaic wraps evaluation errors in several types
        raise FormulaError(
            f"cannot evaluate the left side {parsed.response!r} of {parsed.text!r} on the data "
            f"({_plain(error)}); it must be an expression of the data's columns "
            f"({describe_keys(data.columns, 12)})"
        ) from error
    if matrix.shape[1] != 1:
        raise FormulaError(
            f"the left side {parsed.response!r} of {parsed.text!r} evaluates to "
            f"{matrix.shape[1]} columns ({describe_keys(list(matrix.columns))}); it must give "
            "one number per row, e.g. '{pred != truth}'"
        )
    values = np.asarray(matrix.iloc[:, 0].to_numpy())
    return pd.Series(values, index=data.index, name=parsed.response)
