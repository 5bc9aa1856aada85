"""Tests of one model's error against a target error p0 (docs/methods.md; Alpaydın (2014) §5.4).

* :func:`binomial_test` — X errors out of N records, P{X ≥ e} under Bin(N, p0) (eq. 19.10);
* :func:`normal_test` — z = (X/N − p0) / sqrt(p0(1 − p0)/N) (eq. 19.11; the book's
  typesetting drops the /N inside the square root);
* :func:`ttest_error` — √K (mean − p0) / S ~ t(K − 1) over K fold errors (eq. 19.12).

Alpaydın (2014) tests H0: p ≤ p0 against H1: p > p0, so ``alternative="greater"`` is the
default; "less" tests whether the error is below p0, "two-sided" both.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from scipy import special

from cvreport.errors import CVReportError, DataError, describe_keys
from cvreport.methods._common import (
    NONZERO_OVER_ZERO,
    OK,
    ZERO_OVER_ZERO,
    TKernel,
    as_array,
    finish_result,
    kernel_fields,
    normal_pvalue,
    t_kernel,
    t_result,
)
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.kfold import sample_standard_error
from cvreport.methods.spec import DESIGN_KINDS, TestSpec
from cvreport.option_values import real_option
from cvreport.results import TestResult, TTestResult, check_alternative
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = [
    "BINOMIAL",
    "NORMAL",
    "TTEST_ERROR",
    "OneModelKernel",
    "OneModelTTestResult",
    "OneModelTestResult",
    "binomial_test",
    "binomial_test_array",
    "binomial_test_kernel",
    "normal_test",
    "normal_test_array",
    "normal_test_kernel",
    "ttest_error",
    "ttest_error_array",
    "ttest_error_kernel",
]

REF_ONE_MODEL = (
    "Alpaydın, E. Introduction to Machine Learning, ch. 'Design and analysis of machine "
    "learning experiments', §'Assessing a classification algorithm's performance', "
    "eqs. 19.10–19.12."
)


# ================================================================ kernels
class OneModelKernel(NamedTuple):
    """Statistic and p-value of a one-model test, elementwise over the batch shape."""

    statistic: np.ndarray
    pvalue: np.ndarray
    degenerate: np.ndarray


def _binomial_tails(x: np.ndarray, n: np.ndarray, p0: Any) -> tuple[np.ndarray, np.ndarray]:
    """(P(X ≥ x), P(X ≤ x)) for X ~ Bin(n, p0) via the regularized incomplete beta."""
    p0 = np.asarray(p0, dtype=np.float64)
    upper = np.where(x <= 0, 1.0, special.betainc(np.maximum(x, 1e-300), n - x + 1.0, p0))
    lower = np.where(x >= n, 1.0, special.betainc(np.maximum(n - x, 1e-300), x + 1.0, 1.0 - p0))
    return upper, lower


def binomial_test_kernel(
    errors: Any, n: Any, p0: Any, alternative: str = "greater"
) -> OneModelKernel:
    """Exact binomial test of X = ``errors`` out of ``n`` against error ``p0``, any shape.

    "greater": P{X ≥ e} (Alpaydın (2014) eq. 19.10); "less": P{X ≤ e}; "two-sided":
    min(1, 2·min of the two tails) (the doubling rule).

    >>> k = binomial_test_kernel(15, 100, 0.1)
    >>> float(k.statistic), round(float(k.pvalue), 6)
    (15.0, 0.072573)
    """
    x = np.asarray(errors, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    upper, lower = _binomial_tails(x, n, p0)
    if alternative == "greater":
        pvalue = upper
    elif alternative == "less":
        pvalue = lower
    else:
        check_alternative(alternative)
        pvalue = np.minimum(1.0, 2.0 * np.minimum(upper, lower))
    code = np.zeros(np.broadcast(x, n, np.asarray(p0)).shape, dtype=np.int8) + OK
    return OneModelKernel(x + 0.0 * n, np.clip(pvalue, 0.0, 1.0), code)


def normal_test_kernel(
    errors: Any, n: Any, p0: Any, alternative: str = "greater"
) -> OneModelKernel:
    """Normal approximation z = (X/N − p0) / sqrt(p0 (1 − p0) / N), any shape.

    >>> k = normal_test_kernel(15, 100, 0.1)
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6)
    (1.666667, 0.04779)
    """
    x = np.asarray(errors, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    p0 = np.asarray(p0, dtype=np.float64)
    z = (x / n - p0) / np.sqrt(p0 * (1.0 - p0) / n)
    code = np.zeros(z.shape, dtype=np.int8) + OK
    return OneModelKernel(z, normal_pvalue(z, alternative), code)


def ttest_error_kernel(fold_errors: Any, p0: Any, alternative: str = "greater") -> TKernel:
    """t = √K (mean − p0) / S ~ t(K − 1) over arrays ``(..., K)`` of fold errors.

    ``center`` is the mean error (the interval :meth:`conf_int` is built around);
    the statistic's numerator is mean − p0. K = 1 gives statistic 0, p = 1.

    >>> k = ttest_error_kernel([0.12, 0.15, 0.11, 0.14, 0.13], 0.1)
    >>> round(float(k.statistic), 6), round(float(k.pvalue), 6)
    (4.242641, 0.006618)
    """
    x = np.asarray(fold_errors, dtype=np.float64)
    if x.ndim == 0 or x.shape[-1] < 1:
        raise DataError(f"fold errors must have shape (..., K) with K ≥ 1, got {x.shape}")
    mean, se = sample_standard_error(x)
    p0 = np.asarray(p0, dtype=np.float64)
    same = np.all(x == p0[..., None] if p0.ndim else x == p0, axis=-1)
    numerator = np.where(same, 0.0, mean - p0)
    k = t_kernel(numerator, se, float(x.shape[-1] - 1), alternative)
    return k._replace(center=mean)


# ================================================================ results
@dataclass(frozen=True, kw_only=True, repr=False)
class OneModelTestResult(TestResult):
    """A binomial or normal test of one model's error rate against ``p0``.

    ``estimate`` is the observed error rate X/N (not a difference).
    :meth:`conf_int` gives an interval for the error rate: Clopper–Pearson
    (exact) for the binomial test, Wald p̂ ± z·sqrt(p̂(1 − p̂)/N) for the normal
    test; one-sided for a one-sided alternative.

    Attributes
    ----------
    model : str or None
        The model tested.
    p0 : float
        The target error rate.
    errors, n : float
        X errors among N scored records.
    """

    model: str | None = None
    p0: float = math.nan
    errors: float = 0.0
    n: float = 0.0

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        if self.n <= 0:
            return None
        x, n = self.errors, self.n
        two = self.alternative == "two-sided"
        tail = alpha / 2.0 if two else alpha
        if self.distribution == "binomial":
            low = 0.0 if x <= 0 else float(special.betaincinv(x, n - x + 1.0, tail))
            high = 1.0 if x >= n else float(special.betaincinv(x + 1.0, n - x, 1.0 - tail))
        else:
            p = x / n
            half = float(special.ndtri(1.0 - tail)) * math.sqrt(p * (1.0 - p) / n)
            low, high = p - half, p + half
        if self.alternative == "greater":
            return (low, 1.0 if self.distribution == "binomial" else math.inf)
        if self.alternative == "less":
            return (0.0 if self.distribution == "binomial" else -math.inf, high)
        return (low, high)

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        return _one_model_rows(self, super()._summary_rows(alpha))


def _one_model_rows(result: Any, rows: list[SummaryRow]) -> list[SummaryRow]:
    out = []
    for row in rows:
        if row.label.startswith("estimate"):
            # the target first: the interval that follows is about the estimate
            out.append(SummaryRow("target p0", result.p0, "number"))
            out.append(SummaryRow(f"estimate (mean {result.loss_name})", row.value, "number"))
        else:
            out.append(row)
    if result.model is not None:
        out.insert(0, SummaryRow("model", result.model, "text"))
    return out


@dataclass(frozen=True, kw_only=True, repr=False)
class OneModelTTestResult(TTestResult):
    """The t test of one model's fold errors against ``p0``.

    ``estimate`` and ``center`` are the mean fold error; :meth:`conf_int` is
    mean ± t_{K−1} quantile × S/√K (one-sided for a one-sided alternative).
    """

    model: str | None = None
    p0: float = math.nan

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        return _one_model_rows(self, super()._summary_rows(alpha))


# ================================================================ array level
def _check_p0(p0: Any) -> float:
    value = real_option(p0, "p0", "a number strictly between 0 and 1", finite=False)
    if not 0.0 < value < 1.0:
        raise CVReportError(f"p0 must lie strictly between 0 and 1, got {p0!r}")
    return value


def _check_count_pair(errors: Any, n: Any) -> tuple[float, float]:
    x = float(as_array(errors, "errors"))
    total = float(as_array(n, "n"))
    if total <= 0 or x < 0 or x > total or not float(x).is_integer() or not total.is_integer():
        raise DataError(
            f"errors and n must be whole counts with 0 ≤ errors ≤ n and n > 0, got "
            f"errors = {errors!r}, n = {n!r}"
        )
    return x, total


def _count_test(
    x: float, n: float, p0: float, alternative: str, *, normal: bool = False
) -> OneModelTestResult:
    """The exact binomial test (``normal``: the normal approximation) of X errors of N against p0."""
    p0 = _check_p0(p0)
    spec = NORMAL if normal else BINOMIAL
    notes: tuple[str, ...] = ()
    if normal and (n * p0 < 5 or n * (1 - p0) < 5):
        notes = (
            "the normal approximation needs N·p0 ≥ 5 and N·(1 − p0) ≥ 5; prefer binomial_test.",
        )
    if normal and x in (0.0, n):
        # Wald's p̂ ± z·sqrt(p̂(1 − p̂)/N) has zero width at p̂ = 0 or 1 (Brown, Cai and
        # DasGupta 2001, Statistical Science 16(2):101–133, §2.1): say so, never show it bare
        notes = (
            *notes,
            f"the observed error rate is {x / n:g} ({int(x)} of {int(n)}): the Wald "
            "interval p̂ ± z·sqrt(p̂(1 − p̂)/N) then has zero width and covers nothing "
            "but p̂; use binomial_test's Clopper–Pearson interval instead.",
        )
    return OneModelTestResult(
        **kernel_fields(spec, spec.kernel(x, n, p0, alternative), alternative),
        df=None,
        distribution="normal" if normal else "binomial",
        estimate=x / n,
        nobs=int(n),
        design="one validation set (counts given directly)",
        notes=notes,
        p0=p0,
        errors=x,
        n=n,
    )


@fill_doc
def binomial_test_array(
    errors: int, n: int, p0: float, alternative: str = "greater"
) -> OneModelTestResult:
    """Exact binomial test: ``errors`` misclassified out of ``n`` against error rate ``p0``.

    p = P{X ≥ e} under Bin(n, p0) for the default "greater" (Alpaydın (2014) eq. 19.10),
    P{X ≤ e} for "less", and the doubled smaller tail for "two-sided". The
    statistic is the number of errors.

    Parameters
    ----------
    errors, n : int
        Records the model misclassified, of ``n`` scored.
    {one_model_target}

    {returns}

    {raises_array}

    Examples
    --------
    >>> from cvreport.arrays import binomial_test
    >>> res = binomial_test(15, 100, p0=0.1)
    >>> res.statistic, round(res.pvalue, 6)
    (15.0, 0.072573)
    """
    return BINOMIAL.run_arrays(errors, n, p0=p0, alternative=alternative)


@fill_doc
def normal_test_array(
    errors: int, n: int, p0: float, alternative: str = "greater"
) -> OneModelTestResult:
    """Normal approximation z = (X/N − p0) / sqrt(p0 (1 − p0) / N) (Alpaydın (2014) eq. 19.11).

    Parameters
    ----------
    errors, n : int
        Records the model misclassified, of ``n`` scored.
    {one_model_target}

    {returns}

    {raises_array}

    Examples
    --------
    >>> from cvreport.arrays import normal_test
    >>> res = normal_test(15, 100, p0=0.1)
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (1.666667, 0.04779)
    """
    return NORMAL.run_arrays(errors, n, p0=p0, alternative=alternative)


def _equal_fold_errors(code: int, mean: float, p0: float, folds: int) -> tuple[str, ...]:
    """The warning of a t test whose K fold errors are all equal, about the one model's error.

    The words of :func:`~cvreport.methods._common.describe_degenerate` speak of two
    models and their difference; here one model's error is set against ``p0``.
    """
    if code == ZERO_OVER_ZERO:
        return (
            f"all {folds} fold errors equal p0 = {p0:g}: the model's error never differs "
            "from p0 on any fold, so mean error − p0 is 0 and so is its standard error "
            "S/√K; by convention statistic = 0 and p = 1. Equal fold errors say nothing "
            "about how the model's error varies from fold to fold.",
        )
    if code == NONZERO_OVER_ZERO:
        return (
            f"all {folds} fold errors are equal ({mean:g}), so the model's mean error has "
            f"zero estimated variance (standard error S/√K = 0) while it lies {mean - p0:+g} "
            f"from p0 = {p0:g}; by convention statistic = ±inf and p = 0 (p = 1 for a "
            "one-sided alternative pointing the other way). Equal fold errors say nothing "
            "about how the model's error varies, so do not read the p-value as strong "
            "evidence; binomial_test on the model's error count does not need that variance.",
        )
    return ()


def _ttest_error(e: np.ndarray, p0: float, alternative: str) -> OneModelTTestResult:
    p0 = _check_p0(p0)
    k = ttest_error_kernel(e, p0, alternative)
    result = t_result(
        OneModelTTestResult,
        TTEST_ERROR,
        k,
        alternative,
        numerator="mean error − p0",
        denominator="the standard error S/√K",
        estimate=float(k.center),
        nobs=int(e.size),
        design=f"{e.size} validation folds (errors given directly)",
        p0=p0,
    )
    one_model = _equal_fold_errors(int(k.degenerate), float(k.center), p0, int(e.size))
    return dataclasses.replace(result, warnings=one_model) if one_model else result


def _check_fold_errors(fold_errors: Any) -> np.ndarray:
    e = as_array(fold_errors, "fold_errors")
    if e.ndim != 1:
        raise DataError(f"fold_errors must be a 1-D array of K values, got shape {e.shape}")
    outside = np.flatnonzero((e < 0.0) | (e > 1.0))
    if outside.size:  # a percentage or a score, not an error rate
        raise DataError(
            f"fold_errors are error rates between 0 and 1, got {e[outside[0]]:g} at position "
            f"{outside[0]}; give percentages divided by 100, or 1 − accuracy for an accuracy"
        )
    return e


@fill_doc
def ttest_error_array(
    fold_errors: Any, p0: float, alternative: str = "greater"
) -> OneModelTTestResult:
    """t = √K (mean − p0) / S ~ t(K − 1) over K fold error rates (Alpaydın (2014) eq. 19.12).

    Parameters
    ----------
    fold_errors : array_like, shape (K,)
        The model's error rate on each validation fold.
    {one_model_target}

    {returns}

    {raises_array}

    Examples
    --------
    >>> from cvreport.arrays import ttest_error
    >>> res = ttest_error([0.12, 0.15, 0.11, 0.14, 0.13], p0=0.1)
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (4.242641, 0.006618, 4.0)
    """
    return TTEST_ERROR.run_arrays(fold_errors, p0=p0, alternative=alternative)


# ================================================================ table level
def _resolve_model(table: ResultsTable, model: Any) -> Any:
    models = tuple(table.models)
    if model is None:
        if len(models) == 1:
            return models[0]
        raise DataError(
            f"the table holds {len(models)} models ({describe_keys(models)}); name one with model="
        )
    if model not in models:
        matches = [m for m in models if str(m) == str(model)]
        if len(matches) == 1:
            return matches[0]
        raise DataError(f"unknown model {model!r}; the table holds {describe_keys(models)}")
    return model


def _model_folds(table: ResultsTable, model: Any) -> pd.DataFrame:
    errors = table.fold_errors()
    own = errors[errors["model"] == model]
    return own.sort_values(["replication", "fold"], kind="stable")


def _error_counts(table: ResultsTable, model: Any, test: str) -> tuple[Any, float, float]:
    """The model and its errors X out of N records, from per-record 0/1 losses."""
    table.require_per_record(test)
    table.require_binary(test)
    model = _resolve_model(table, model)
    folds = _model_folds(table, model)
    n = float(folds["n"].sum())
    return model, float(np.round((folds["loss"] * folds["n"]).sum())), n


def _required_p0(options: dict[str, Any]) -> dict[str, Any]:
    if options.get("p0") is None:
        raise CVReportError("p0= is required: the target error rate, strictly between 0 and 1")
    return {**options, "p0": _check_p0(options["p0"])}


def _count_inputs(
    spec: TestSpec, table: ResultsTable, model: Any, _: None, options: dict[str, Any]
) -> tuple[Any, tuple[float, float], dict[str, Any]]:
    """The model and its errors X out of N records (the binomial and normal tests)."""
    options = _required_p0(options)
    model, x, n = _error_counts(table, model, spec.name)
    return model, (x, n), options


def _fold_error_inputs(
    spec: TestSpec, table: ResultsTable, model: Any, _: None, options: dict[str, Any]
) -> tuple[Any, tuple[np.ndarray], dict[str, Any]]:
    """The model and its K fold error rates (the t test)."""
    options = _required_p0(options)
    if table.higher_is_better and not table.is_binary:
        raise DataError(
            f"ttest_error tests a model's mean fold loss against p0, but {table.loss_name!r} is "
            "a score (higher is better); give the table a loss column instead (e.g. 1 − "
            "accuracy, with direction='lower')"
        )
    model = _resolve_model(table, model)
    return model, (_model_folds(table, model)["loss"].to_numpy(dtype=np.float64),), options


def _finish(result: Any, table: ResultsTable, model: Any, *_: Any) -> Any:
    """The result with the model's name and a note on what repeated replications do to it."""
    m, notes = table.design.m, ()
    if m > 1 and isinstance(result, OneModelTTestResult):
        notes = (
            f"the {result.nobs} folds come from {m} replications whose training "
            "sets overlap; the t(K − 1) reference ignores that correlation (anti-conservative).",
        )
    elif m > 1:
        notes = (
            f"each record is scored in all {m} replications; pooling treats the repeats as "
            "independent, which overstates the evidence.",
        )
    result = finish_result(result, table, None, extra_notes=notes)
    return dataclasses.replace(result, model=str(model))


@fill_doc
def binomial_test(
    table: ResultsTable | str,
    model: Any = None,
    *,
    p0: float,
    alternative: str = "greater",
    data: pd.DataFrame | None = None,
) -> OneModelTestResult:
    """Exact binomial test of one model's error rate against ``p0`` (Alpaydın (2014) eq. 19.10).

    X = number of misclassified records scored for ``model`` (every fold of every
    replication), N = their count; p = P{X ≥ X_obs} under Bin(N, p0) for the
    default ``alternative="greater"`` (H1: error > p0). Needs per-record 0/1 losses.

    {parameters_one_model_data}

    {returns}

    {raises_one_model_count}

    {examples_holdout}
    >>> res = cvreport.binomial_test("loss ~ model", "A", p0=0.2, data=df)
    >>> res.model, res.nobs, res.alternative
    ('A', 60, 'greater')
    """
    return BINOMIAL.run(table, model, alternative=alternative, data=data, p0=p0)


@fill_doc
def normal_test(
    table: ResultsTable | str,
    model: Any = None,
    *,
    p0: float,
    alternative: str = "greater",
    data: pd.DataFrame | None = None,
) -> OneModelTestResult:
    """Normal-approximation test of one model's error rate against ``p0`` (Alpaydın (2014) eq. 19.11).

    z = (X/N − p0) / sqrt(p0 (1 − p0) / N) over all records scored for
    ``model``; upper tail for the default ``alternative="greater"``. Needs
    per-record 0/1 losses.

    {parameters_one_model_data}

    {returns}

    {raises_one_model_count}

    {examples_holdout}
    >>> res = cvreport.normal_test("loss ~ model", "A", p0=0.2, data=df)
    >>> res.model, res.distribution
    ('A', 'normal')
    """
    return NORMAL.run(table, model, alternative=alternative, data=data, p0=p0)


@fill_doc
def ttest_error(
    table: ResultsTable | str,
    model: Any = None,
    *,
    p0: float,
    alternative: str = "greater",
    data: pd.DataFrame | None = None,
) -> OneModelTTestResult:
    """t test of one model's mean fold loss against ``p0`` (Alpaydın (2014) eq. 19.12).

    t = √K (mean − p0) / S ~ t(K − 1) over the K validation folds (all m·K folds
    of a repeated design, whose overlap makes the test anti-conservative — said
    in the notes). A single fold gives statistic 0, p = 1 with a warning.

    {parameters_one_model_data}

    {returns}

    Raises
    ------
    DataError
        When ``model`` is ambiguous or unknown, a fold error is missing, or the
        table holds a score other than 0/1 hits (there is no error rate to test).

    {examples_kfold}
    >>> res = cvreport.ttest_error("loss ~ model | replication + fold", "B", p0=0.2, data=df)
    >>> res.model, res.df
    ('B', 4.0)
    """
    return TTEST_ERROR.run(table, model, alternative=alternative, data=data, p0=p0)


def _one_model_spec(**facts: Any) -> TestSpec:
    """The spec of a test of one model against a target: any design, not in the report."""
    return TestSpec(
        reference=REF_ONE_MODEL,
        designs=DESIGN_KINDS,
        requirement="any design of one model's losses",
        models=1,
        in_report=False,
        default_alternative="greater",
        finish=_finish,
        **facts,
    )


def _count_spec(**facts: Any) -> TestSpec:
    """The spec of a test of X errors out of N records: per-record 0/1 losses."""
    return _one_model_spec(
        result=OneModelTestResult,
        check_inputs=_check_count_pair,
        prepare=_count_inputs,
        needs_binary=True,
        needs_per_record=True,
        **facts,
    )


BINOMIAL = _count_spec(
    label="Binomial test of the error rate",
    method="Binomial test of the error rate against p0",
    function=binomial_test,
    statistic="X errors of N",
    distribution="Bin(N, p0)",
    array_function=binomial_test_array,
    kernel=binomial_test_kernel,
    build=_count_test,
)
NORMAL = _count_spec(
    label="Normal test of the error rate",
    method="Normal approximation test of the error rate against p0",
    function=normal_test,
    statistic="(X/N − p0) / sqrt(p0(1 − p0)/N)",
    distribution="N(0, 1)",
    array_function=normal_test_array,
    kernel=normal_test_kernel,
    build=partial(_count_test, normal=True),
)
TTEST_ERROR = _one_model_spec(
    label="t test of the fold error",
    method="t test of the mean fold error against p0",
    function=ttest_error,
    result=OneModelTTestResult,
    statistic="√K (mean − p0) / S",
    distribution="t(K − 1)",
    array_function=ttest_error_array,
    kernel=ttest_error_kernel,
    build=_ttest_error,
    check_inputs=_check_fold_errors,
    prepare=_fold_error_inputs,
)
