"""The paired bootstrap tested against a margin: equivalence and non-inferiority.

:func:`~cvreport.methods.resampling.paired_bootstrap_test` runs as it is, with
the confidence level ``1 − 2α``; its interval is then compared with the margin by
:func:`~cvreport.methods.equivalence.bootstrap_with_margin` (two one-sided tests,
Schuirmann 1987). The functions here add no resampling of their own.

References
----------
Schuirmann, D. J. (1987). Journal of Pharmacokinetics and Biopharmaceutics
15(6):657–680; Koehn, P. (2004). EMNLP 2004:388–395; Efron, B. (1987). JASA
82(397):171–185.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike

from cvreport.errors import CVReportError
from cvreport.methods.equivalence import bootstrap_with_margin, check_margin
from cvreport.methods.hypothesis_note import alternative_note
from cvreport.methods.resampling import paired_bootstrap_test, paired_bootstrap_test_array
from cvreport.methods.resampling_results import BootstrapTestResult
from cvreport.option_values import check_alpha
from cvreport.results import MARGIN_ALTERNATIVES

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = ["paired_bootstrap_equivalence_test", "paired_bootstrap_equivalence_test_array"]


def _bootstrap_options(
    alternative: str, margin: Any, alpha: float, options: dict[str, Any]
) -> float:
    if "alternative" in options or "confidence_level" in options:
        raise CVReportError(
            "paired_bootstrap_equivalence_test sets the bootstrap's alternative and "
            "confidence_level itself (1 − 2α); pass alpha= instead"
        )
    if alternative not in MARGIN_ALTERNATIVES:
        raise CVReportError(
            f"alternative must be 'equivalent' or 'non-inferior', got {alternative!r}; for "
            "the other alternatives use paired_bootstrap_test"
        )
    value = check_margin(alternative, margin)
    if not check_alpha(alpha) < 0.5:
        raise CVReportError(f"alpha must lie strictly between 0 and 0.5, got {alpha!r}")
    options["alternative"] = "two-sided"
    options["confidence_level"] = 1.0 - 2.0 * float(alpha)
    assert value is not None
    return value


def _with_margin(
    result: BootstrapTestResult, alternative: str, margin: float
) -> BootstrapTestResult:
    """The two-sided bootstrap tested against ``margin``, with the note naming its H1."""
    tested = bootstrap_with_margin(result, alternative, margin)
    note = alternative_note(
        alternative, tested.loss_name, margin=margin, higher_is_better=tested.direction == "higher"
    )
    return dataclasses.replace(tested, notes=(*note, *tested.notes))


def paired_bootstrap_equivalence_test_array(
    truth: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    *,
    margin: float,
    alternative: str = "equivalent",
    alpha: float = 0.05,
    **options: Any,
) -> BootstrapTestResult:
    """The paired bootstrap of metric(A) − metric(B) tested against a margin.

    Runs :func:`~cvreport.methods.resampling.paired_bootstrap_test_array` with the
    confidence level ``1 − 2α`` and tests its interval against the margin
    (:func:`bootstrap_with_margin`).

    Parameters
    ----------
    truth, a, b : array_like
        As for :func:`~cvreport.methods.resampling.paired_bootstrap_test_array`.
    margin : float
        Positive, in the metric's units.
    alternative : {"equivalent", "non-inferior"}
        "non-inferior": H1 A is not worse than B by ``margin`` or more, in the
        metric's direction.
    alpha : float
        The level whose ``1 − 2α`` interval is computed (default 0.05: 90 %).
    **options
        ``metric``, ``n_resamples``, ``method``, ``random_state`` ... of the bootstrap.

    Returns
    -------
    BootstrapTestResult

    Raises
    ------
    CVReportError
        A missing, non-positive or NaN margin, another alternative, or
        ``alternative``/``confidence_level`` among the options.

    References
    ----------
    Schuirmann (1987); Koehn (2004); Efron (1987).

    Examples
    --------
    >>> y = [0, 1] * 100
    >>> a = [1, 0] * 10 + [0, 1] * 90            # wrong on records 0–19
    >>> b = [0, 1] * 5 + [1, 0] * 8 + [0, 1] * 87  # wrong on records 10–25
    >>> res = paired_bootstrap_equivalence_test_array(
    ...     y, a, b, margin=0.1, alternative="non-inferior", metric="accuracy",
    ...     n_resamples=999, random_state=0)
    >>> round(res.estimate, 4), res.reject(0.05)
    (-0.02, True)
    """
    value = _bootstrap_options(alternative, margin, alpha, options)
    result = paired_bootstrap_test_array(truth, a, b, **options)
    return _with_margin(result, alternative, value)


def paired_bootstrap_equivalence_test(
    table: ResultsTable,
    a: Any = None,
    b: Any = None,
    *,
    margin: float,
    alternative: str = "equivalent",
    alpha: float = 0.05,
    **options: Any,
) -> BootstrapTestResult:
    """The paired bootstrap of two models of a table, tested against a margin.

    Runs :func:`~cvreport.methods.resampling.paired_bootstrap_test` with the
    confidence level ``1 − 2α`` and tests its interval against the margin
    (:func:`bootstrap_with_margin`).

    Parameters
    ----------
    table : ResultsTable
        Built with ``ResultsTable.from_predictions(..., metric=...)``.
    a, b : model labels, optional
    margin : float
        Positive, in the metric's units.
    alternative : {"equivalent", "non-inferior"}
    alpha : float
        The level whose ``1 − 2α`` interval is computed (default 0.05: 90 %).
    **options
        ``metric``, ``clusters``, ``n_resamples``, ``method``, ``random_state`` ...
        of :func:`~cvreport.methods.resampling.paired_bootstrap_test`.

    Returns
    -------
    BootstrapTestResult

    Raises
    ------
    CVReportError
        A missing, non-positive or NaN margin, or another alternative.

    References
    ----------
    Schuirmann (1987); Koehn (2004); Efron (1987).

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> df = pd.DataFrame({"model": ["A"] * 200 + ["B"] * 200, "record": list(range(200)) * 2,
    ...                    "y": [0, 1] * 200,
    ...                    "yhat": [1, 0] * 10 + [0, 1] * 90 + [0, 1] * 5 + [1, 0] * 8 + [0, 1] * 87})
    >>> t = ResultsTable.from_predictions(df, truth="y", prediction="yhat", metric="accuracy",
    ...                                   replication=None, fold=None)
    >>> res = paired_bootstrap_equivalence_test(t, margin=0.1, n_resamples=999, random_state=0)
    >>> res.alternative, res.margin, res.reject(0.05)
    ('equivalent', 0.1, True)
    """
    value = _bootstrap_options(alternative, margin, alpha, options)
    result = paired_bootstrap_test(table, a, b, **options)
    return _with_margin(result, alternative, value)
