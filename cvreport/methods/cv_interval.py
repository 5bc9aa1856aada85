"""Cross-validation confidence interval and test for the loss difference (Bayle et al. 2020).

From one K-fold CV with per-record loss differences ``h_i`` (A − B, each record
scored once, by the models trained without its fold)::

    R̂ = (1/n) Σ h_i
    σ̂²_out = (1/n) Σ (h_i − R̂)²                        ("out": all records)
    σ̂²_in  = Σ_j Σ_{i ∈ B_j} (h_i − h̄_j)² / (n − K)     ("in": pooled within folds)
    interval R̂ ± z_{1−α/2} · σ̂ / √n,   statistic z = √n · R̂ / σ̂ ~ N(0, 1)

Bayle, Bayle, Janson and Mackey prove a central limit theorem for the K-fold
CV estimate under algorithmic stability, which makes the interval asymptotically
exact for the K-fold test error difference, and both variance estimators
consistent. The paper's test is one-sided, H1: A has the smaller K-fold test
error (``alternative="less"``, p = Φ(z)); two-sided and "greater" are offered too.

Repeated K-fold CV is not covered by the paper. With ``repeated="average"``
cvreport uses a labelled **extension**: the estimate and the variance are the
averages of the per-replication ones, and n is the number of records. Each
replication's estimate has the same asymptotic linear expansion, so their
average has the same asymptotic variance σ²/n; the interval is therefore of the
same width, centred on a less partition-dependent estimate. By default a
repeated design raises :class:`~cvreport.errors.DesignError`.

:meth:`CVIntervalResult.conf_int` always returns the paper's two-sided
interval, whatever the ``alternative`` of the test. A one-sided test's
``summary()`` and ``to_frame()`` show, beside it, the one-sided bound that
matches the test at the same α (``one_sided_low``/``one_sided_high``), and
the summary says that the test is one-sided and which H1 it takes.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from cvreport.data.metrics import reader_name
from cvreport.distributions import normal_interval
from cvreport.errors import CVReportError, DataError, DesignError, describe_keys
from cvreport.methods._common import (
    ZERO_OVER_ZERO,
    as_array,
    kernel_fields,
    normal_pvalue,
    safe_ratio,
)
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.equivalence import margin_or_base
from cvreport.methods.spec import TestSpec, kfold_record_differences
from cvreport.option_values import check_alpha
from cvreport.results import TestResult, check_alternative, level_text
from cvreport.summary_data import SummaryRow

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "CV_INTERVAL",
    "CVIntervalKernel",
    "CVIntervalResult",
    "cv_confidence_interval",
    "cv_confidence_interval_array",
    "cv_confidence_interval_kernel",
]

REFERENCE = (
    "Bayle, P., Bayle, A., Janson, L. and Mackey, L. (2020). Cross-validation confidence "
    "intervals for test error. Advances in Neural Information Processing Systems 33 "
    "(NeurIPS 2020)."
)
VARIANCES = ("out", "in")
REPEATED = ("raise", "average")
NOTE_EXTENSION = (
    "an extension: repeated K-fold CV is not covered by Bayle et al. (2020); the estimate and "
    "the variance are averages of the per-replication ones and n is the number of records."
)


class CVIntervalKernel(NamedTuple):
    """Elementwise output of :func:`cv_confidence_interval_kernel` (batch shape ``...``)."""

    statistic: NDArray[np.float64]
    pvalue: NDArray[np.float64]
    estimate: NDArray[np.float64]
    std_dev: NDArray[np.float64]
    n: int
    degenerate: NDArray[np.int8]


def _refuse_missing_labels(labels: np.ndarray, role: str) -> None:
    """A NaN or None label would make a fold (or replication) of its own: refuse it."""
    missing = np.flatnonzero(pd.isna(pd.Series(labels.ravel(), dtype=object)).to_numpy())
    if missing.size:
        raise DataError(
            f"the {role} labels hold {missing.size} missing value(s) (positions "
            f"{describe_keys(missing.tolist())}); give every record difference its {role}"
        )


def _check_variance(variance: str) -> str:
    if variance not in VARIANCES:
        raise CVReportError(
            f"variance must be 'out' (all records about the overall mean) or 'in' (pooled "
            f"within-fold), got {variance!r}"
        )
    return variance


def cv_variance(
    differences: ArrayLike, folds: ArrayLike, variance: str = "out"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(R̂, σ̂²)`` on the last axis; ``folds`` holds integer fold codes 0..K−1 of shape (n,).

    σ̂² is exactly 0 when the differences are constant (within every fold for "in"),
    so that rounding noise never poses as variability.

    Examples
    --------
    >>> h = [1, 0, 0, -1, 0, 1, 1, 0, 0, 0, -1, 1]
    >>> folds = [0] * 4 + [1] * 4 + [2] * 4
    >>> [round(float(v), 6) for v in cv_variance(h, folds, "in")]
    [0.166667, 0.555556]
    """
    _check_variance(variance)
    h = np.asarray(differences, dtype=np.float64)
    codes = np.asarray(folds, dtype=np.intp)
    n = h.shape[-1]
    estimate = h.mean(axis=-1)
    if variance == "out":
        constant = np.all(h == h[..., :1], axis=-1)
        spread = np.mean((h - estimate[..., np.newaxis]) ** 2, axis=-1)
        return estimate, np.where(constant, 0.0, spread)
    n_folds = int(codes.max()) + 1
    member = codes[:, np.newaxis] == np.arange(n_folds)  # (n, K)
    sizes = member.sum(axis=0)
    used = int(np.count_nonzero(sizes))
    fold_mean = (h @ member) / np.maximum(sizes, 1)
    deviation = h - fold_mean[..., codes]
    first = np.argmax(member, axis=0)  # first record of every fold
    constant = np.all(h == h[..., first[codes]], axis=-1)
    dof = n - used
    pooled = np.sum(deviation**2, axis=-1) / max(dof, 1)
    return estimate, np.where(constant | (dof == 0), 0.0, pooled)


def cv_confidence_interval_kernel(
    differences: ArrayLike,
    folds: ArrayLike,
    variance: str = "out",
    alternative: str = "less",
) -> CVIntervalKernel:
    """Bayle et al.'s CV test statistic on the last axis of ``differences``.

    Parameters
    ----------
    differences : array_like, shape (..., n)
        Per-record loss differences A − B of one K-fold CV.
    folds : array_like of int, shape (n,)
        Fold code 0..K−1 of every record (shared by the batch).
    variance : {"out", "in"}
    alternative : {"less", "two-sided", "greater"}
        "less" (the paper's test) means H1: A has lower loss.

    Examples
    --------
    >>> h = [1, 0, 0, -1, 0, 1, 1, 0, 0, 0, -1, 1]
    >>> k = cv_confidence_interval_kernel(h, [0] * 4 + [1] * 4 + [2] * 4)
    >>> round(float(k.std_dev), 6), round(float(k.statistic), 6), round(float(k.pvalue), 6)
    (0.687184, 0.840168, 0.799593)
    """
    check_alternative(alternative)
    h = np.asarray(differences, dtype=np.float64)
    estimate, var = cv_variance(h, folds, variance)
    return _z_test(estimate, np.sqrt(var), h.shape[-1], alternative)


def _z_test(estimate: Any, std_dev: Any, n: int, alternative: str) -> CVIntervalKernel:
    """z = √n · R̂ / σ̂ against N(0, 1), elementwise, with docs/methods.md's zero-variance codes."""
    statistic, code = safe_ratio(math.sqrt(n) * np.asarray(estimate), std_dev)
    pvalue = np.where(code == ZERO_OVER_ZERO, 1.0, normal_pvalue(statistic, alternative))
    return CVIntervalKernel(
        statistic=np.asarray(statistic, dtype=np.float64),
        pvalue=np.asarray(pvalue, dtype=np.float64),
        estimate=np.asarray(estimate, dtype=np.float64),
        std_dev=np.asarray(std_dev, dtype=np.float64),
        n=n,
        degenerate=np.asarray(code, dtype=np.int8),
    )


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class CVIntervalResult(TestResult):
    """Result of :func:`cv_confidence_interval`.

    Attributes
    ----------
    std_dev : float
        σ̂, the estimated standard deviation of a record's loss difference.
    variance : str
        "out" or "in".
    n_records, n_folds, n_replications : int
        n, K and m (m > 1 only under ``repeated="average"``).

    Notes
    -----
    :meth:`conf_int` returns the two-sided interval ``R̂ ± z_{1−α/2} σ̂/√n`` of the
    paper whatever the ``alternative`` (at ``1 − 2α`` against a margin); the one-sided test at level α rejects
    exactly when the upper end of the two-sided ``1 − 2α`` interval is below 0, that is
    when the one-sided bound :meth:`one_sided_interval` excludes 0. A one-sided
    result's ``summary(alpha)`` and ``to_frame(alpha)`` show that bound beside the
    two-sided interval, and the summary names the test's H1.

    Examples
    --------
    >>> h = [1, 0, 0, -1, 0, 1, 1, 0, 0, 0, -1, 1]
    >>> res = cv_confidence_interval_array(h, [1] * 4 + [2] * 4 + [3] * 4)
    >>> res.alternative, [round(x, 4) for x in res.one_sided_interval(0.05)]
    ('less', [-inf, 0.493])
    >>> print(res.summary().as_text())  # doctest: +ELLIPSIS
    =...
    alternative ... less: one-sided, H1: A − B < 0 (A has the lower loss, A better)
    ...
    95% interval ... (-0.2221, 0.5555)
    95% one-sided bound (the test's) ... (-inf, 0.4930)
    ...
    """

    std_dev: float = math.nan
    variance: str = "out"
    n_records: int = 0
    n_folds: int = 0
    n_replications: int = 1

    @property
    def std_error(self) -> float:
        """σ̂ / √n."""
        return self.std_dev / math.sqrt(self.n_records) if self.n_records else math.nan

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        if self.estimate is None:
            return None
        half = float(special.ndtri(1.0 - alpha / 2.0)) * self.std_error
        return (self.estimate - half, self.estimate + half)

    @property
    def one_sided(self) -> bool:
        """Whether the test is one-sided (the paper's default, or "less"/"greater" given)."""
        return self.alternative in ("less", "greater")

    def one_sided_interval(self, alpha: float = 0.05) -> tuple[float, float] | None:
        """The one-sided ``1 − alpha`` bound that matches a one-sided test at ``alpha``.

        ``(−inf, R̂ + z_{1−α} σ̂/√n)`` for "less", ``(R̂ − z_{1−α} σ̂/√n, inf)`` for
        "greater": the test rejects exactly when it excludes 0. None for a two-sided
        test or a test against a margin (their interval is :meth:`conf_int`).
        """
        if not self.one_sided or self.estimate is None:
            return None
        return normal_interval(self.estimate, self.std_error, check_alpha(alpha), self.alternative)

    def _h1_words(self) -> str:
        """The one-sided H1 in words: ``A − B < 0 (A has the lower error rate, A better)``."""
        lower = self.alternative == "less"
        better = lower == (self.direction == "lower")
        return (
            f"A − B {'<' if lower else '>'} 0 (A has the {'lower' if lower else 'higher'} "
            f"{reader_name(self.loss_name)}, A {'better' if better else 'worse'})"
        )

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = super()._summary_rows(alpha)
        bound = self.one_sided_interval(alpha)
        if bound is None:
            return rows
        level = level_text(1.0 - alpha)
        shown: list[SummaryRow] = []
        for row in rows:
            if row.label == "alternative":
                row = SummaryRow(
                    "alternative", f"{self.alternative}: one-sided, H1: {self._h1_words()}", "text"
                )
            shown.append(row)
            if row.label == f"{level} interval":  # the paper's two-sided, then the test's bound
                shown.append(SummaryRow(f"{level} one-sided bound (the test's)", bound, "value"))
        return shown

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        row = super()._frame_row(alpha)
        bound = self.one_sided_interval(alpha)
        low, high = bound if bound is not None else (math.nan, math.nan)
        row["one_sided_low"], row["one_sided_high"] = low, high
        return row

    def _summary_notes(self, alpha: float = 0.05) -> tuple[str, ...]:
        """The notes, and for a one-sided test a note saying so and which bound decides."""
        if not self.one_sided or self.estimate is None:
            return self.notes
        level = level_text(1.0 - alpha)
        note = (
            f"One-sided test, H1: {self._h1_words()}; Bayle et al.'s test by default. It "
            f"rejects at α = {alpha:g} exactly when the {level} one-sided bound excludes 0; "
            f"the {level} interval above it is the paper's two-sided interval. With the models in "
            "the other order it tests the other direction; pass alternative='two-sided' for a "
            "test of any difference."
        )
        return (*self.notes, note)

    def _extra_rows(self) -> list[SummaryRow]:
        extra = [
            SummaryRow(f"σ̂ (variance = {self.variance!r})", self.std_dev, "number"),
            SummaryRow("records n", self.n_records, "value"),
            SummaryRow("folds K", self.n_folds, "value"),
        ]
        if self.n_replications > 1:
            extra.append(SummaryRow("replications averaged", self.n_replications, "value"))
        return extra


def _one_cv(
    h: NDArray[np.float64], folds: NDArray[np.generic], variance: str
) -> tuple[float, float, int, int]:
    _, inverse = np.unique(folds, return_inverse=True)
    codes = np.asarray(inverse, dtype=np.intp).reshape(h.size)
    n_folds = int(codes.max()) + 1
    if n_folds < 2:
        raise DesignError(
            "cv_confidence_interval needs K-fold CV with K >= 2 folds; the records fall in one fold"
        )
    if variance == "in" and h.size - n_folds == 0:
        raise DesignError(
            "variance='in' needs a fold with at least two records (with one record per fold, "
            "as in leave-one-out, there is no within-fold spread); use variance='out'"
        )
    estimate, var = cv_variance(h, codes, variance)
    return float(estimate), float(var), h.size, n_folds


def _cv_interval(
    differences: ArrayLike,
    folds: ArrayLike,
    replications: ArrayLike | None = None,
    variance: str = "out",
    alternative: str = "less",
    repeated: str = "raise",
    margin: float | None = None,
) -> CVIntervalResult:
    """The test on internal loss differences; under a margin, the two one-sided z tests."""
    return margin_or_base(
        lambda base: _cv_interval_test(differences, folds, replications, variance, base, repeated),
        alternative,
        margin,
        standard_error=lambda result: result.std_error,
    )


def _cv_interval_test(
    differences: ArrayLike,
    folds: ArrayLike,
    replications: ArrayLike | None,
    variance: str,
    alternative: str,
    repeated: str,
) -> CVIntervalResult:
    check_alternative(alternative)
    _check_variance(variance)
    if repeated not in REPEATED:
        raise CVReportError(f"repeated must be 'raise' or 'average', got {repeated!r}")
    h = as_array(differences, "differences", ndim=1, min_size=2)
    labels = np.asarray(folds)
    if labels.shape != h.shape:
        raise DataError(
            "folds must give one fold label per record difference: expected shape "
            f"{h.shape}, got {labels.shape}"
        )
    _refuse_missing_labels(labels, "fold")
    groups = [np.arange(h.size)]
    if replications is not None:
        reps = np.asarray(replications)
        if reps.shape != h.shape:
            raise DataError(
                "replications must give one label per record difference: expected shape "
                f"{h.shape}, got {reps.shape}"
            )
        _refuse_missing_labels(reps, "replication")
        _, rep_codes = np.unique(reps, return_inverse=True)
        rep_codes = rep_codes.reshape(h.shape)
        groups = [np.flatnonzero(rep_codes == i) for i in range(int(rep_codes.max()) + 1)]
    if len(groups) > 1 and repeated != "average":
        raise DesignError(
            f"cv_confidence_interval is defined for one K-fold CV, but the data hold "
            f"{len(groups)} replications; pass repeated='average' for the labelled extension "
            "(averaged estimate and variance) or select one replication"
        )
    parts = [_one_cv(h[g], labels[g], variance) for g in groups]
    sizes = {n for _, _, n, _ in parts}
    if len(sizes) > 1:
        raise DataError(
            f"the replications hold different numbers of records ({sorted(sizes)}); the "
            "averaged interval needs every replication to partition the same records"
        )
    n = parts[0][2]
    estimate = float(np.mean([e for e, _, _, _ in parts]))
    var = float(np.mean([v for _, v, _, _ in parts]))
    std_dev = math.sqrt(var)
    notes = (NOTE_EXTENSION,) if len(parts) > 1 else ()
    return CVIntervalResult(
        **kernel_fields(
            CV_INTERVAL,
            _z_test(estimate, std_dev, n, alternative),
            alternative,
            numerator="the mean record difference",
            denominator=(
                "the out-of-fold variance of the record differences"
                if variance == "out"
                else "the pooled within-fold variance of the record differences"
            ),
        ),
        distribution="normal",
        estimate=estimate,
        nobs=n,
        notes=notes,
        std_dev=std_dev,
        variance=variance,
        n_records=n,
        n_folds=max(k for _, _, _, k in parts),
        n_replications=len(parts),
    )


@fill_doc
def cv_confidence_interval_array(
    differences: ArrayLike,
    folds: ArrayLike,
    *,
    variance: str = "out",
    alternative: str = "less",
    replications: ArrayLike | None = None,
    repeated: str = "raise",
    margin: float | None = None,
) -> CVIntervalResult:
    """Bayle et al.'s confidence interval and test for the K-fold CV loss difference.

    Against a margin m (``alternative="equivalent"`` or ``"non-inferior"``), the two
    one-sided z tests ``√n (R̂ ± m) / σ̂`` (Schuirmann 1987), with the interval at
    ``1 − 2α``.

    Parameters
    ----------
    differences : array_like, shape (n,)
        Per-record loss differences A − B.
    folds : array_like, shape (n,)
        The fold (any labels) in which each record was scored.
    variance : {"out", "in"}
        ``"out"``: ``(1/n) Σ (h_i − R̂)²``; ``"in"``: pooled within-fold variance
        with divisor ``n − K``.
    alternative : {"less", "two-sided", "greater", "equivalent", "non-inferior"}
        "less" (default, the paper's test) means H1: A has lower loss (A − B < 0);
        "equivalent": H1 −margin < A − B < margin; "non-inferior": H1 A − B < margin.
    replications : array_like, optional
        Replication label per difference, for repeated K-fold CV.
    repeated : {"raise", "average"}
        With several replications: raise :class:`DesignError` (default) or use the
        labelled extension that averages estimate and variance over replications.
    margin : float, optional
        With "equivalent" or "non-inferior" only: a positive loss difference.

    {returns}

    {raises_array}

    References
    ----------
    Bayle, Bayle, Janson & Mackey (2020), NeurIPS 33.

    Examples
    --------
    >>> h = [1, 0, 0, -1, 0, 1, 1, 0, 0, 0, -1, 1]
    >>> res = cv_confidence_interval_array(h, [1] * 4 + [2] * 4 + [3] * 4)
    >>> round(res.estimate, 6), round(res.std_dev, 6), round(res.statistic, 6)
    (0.166667, 0.687184, 0.840168)
    >>> round(res.pvalue, 6)
    0.799593
    >>> [round(x, 4) for x in res.conf_int()]
    [-0.2221, 0.5555]
    """
    return CV_INTERVAL.run_arrays(
        differences,
        folds,
        replications,
        variance=variance,
        alternative=alternative,
        repeated=repeated,
        margin=margin,
    )


def _record_differences(
    spec: TestSpec, tbl: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[Any, Any, Any], dict[str, Any]]:
    """The per-record differences with their folds and replications, once the design fits."""
    a, b = pair
    repeated = options.get("repeated", "raise")
    tbl.require_per_record("cv_confidence_interval")
    design = tbl.design
    if design.K < 2:
        raise DesignError(
            "cv_confidence_interval needs K-fold CV (K >= 2 folds per replication), but the "
            f"table holds {design.describe()}; for hold-out splits use mcnemar or "
            "corrected_resampled_ttest"
        )
    if design.m > 1 and repeated != "average":
        raise DesignError(
            "cv_confidence_interval is defined for one K-fold CV (Bayle et al. 2020), but the "
            f"table holds {design.describe()}; pass repeated='average' for the labelled "
            "extension (estimate and variance averaged over replications) or select one "
            "replication"
        )
    if not design.complete:
        raise DesignError(
            "cv_confidence_interval needs every replication's folds to partition the same "
            "records (each record scored exactly once per replication); the table's folds do "
            "not: check for missing or duplicated records"
        )
    frame = tbl.record_loss_differences(a, b)
    inputs = (
        frame["difference"].to_numpy(dtype=np.float64),
        frame["fold"].to_numpy(),
        frame["replication"].to_numpy(),
    )
    return inputs, options


@fill_doc
def cv_confidence_interval(
    table: ResultsTable | str,
    a: object = None,
    b: object = None,
    *,
    variance: str = "out",
    alternative: str | None = None,
    repeated: str = "raise",
    margin: float | None = None,
    data: pd.DataFrame | None = None,
) -> CVIntervalResult:
    """Bayle et al.'s CV confidence interval for the difference A − B, and its one-sided test.

    ``conf_int()`` returns the interval ``R̂ ± z_{1−α/2} σ̂/√n`` of metric(A) −
    metric(B); the test statistic is ``z = √n R̂ / σ̂``, by default one-sided for the
    paper's H1 "A is better than B".

    {parameters_pair}
    variance : {"out", "in"}
        Variance estimator: over all records ("out") or pooled within folds ("in").
    alternative : {None, "two-sided", "less", "greater", "equivalent", "non-inferior"}
        About metric(A) − metric(B). None (default): the paper's one-sided test, H1
        "A is better", which is "less" for a loss and "greater" for a score.
        "equivalent": H1 −margin < A − B < margin (two one-sided tests, Schuirmann
        1987); "non-inferior": H1 A is not worse than B by margin or more.
    repeated : {"raise", "average"}
        For repeated K-fold CV: raise :class:`DesignError` (default) or use the
        labelled extension averaging estimate and variance over replications.
    margin : float, optional
        With "equivalent" or "non-inferior" only: a positive difference in the
        metric's units; the interval is then the two-sided ``1 − 2α`` one.
    {data}

    {returns}

    Raises
    ------
    DesignError
        For per-fold score tables (the method needs per-record losses), hold-out
        designs, repeated K-fold without ``repeated="average"``, or folds that do
        not partition the records.
    {margin_raises}

    References
    ----------
    Bayle, Bayle, Janson & Mackey (2020), NeurIPS 33.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvreport.data.table import ResultsTable
    >>> h = [1, 0, 0, -1, 0, 1, 1, 0, 0, 0, -1, 1]
    >>> rows = [{"model": "A", "record": i, "fold": i // 4, "loss": max(d, 0)} for i, d in enumerate(h)]
    >>> rows += [{"model": "B", "record": i, "fold": i // 4, "loss": max(-d, 0)} for i, d in enumerate(h)]
    >>> df = pd.DataFrame(rows).assign(replication=1)
    >>> res = cv_confidence_interval(ResultsTable(df), "A", "B")
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (0.840168, 0.799593)
    """
    return CV_INTERVAL.run(
        table,
        a,
        b,
        alternative=alternative,
        data=data,
        variance=variance,
        repeated=repeated,
        margin=margin,
    )


CV_INTERVAL = TestSpec(
    build=_cv_interval,
    prepare=_record_differences,
    accepts=lambda design: design.K >= 2,
    default_alternative="less",
    label="CV confidence interval test",
    method="Cross-validation confidence interval and test",
    reference=REFERENCE,
    designs=("kfold",),
    requirement=(
        "K-fold CV (K >= 2 folds per replication; repeated K-fold with repeated='average')"
    ),
    function=cv_confidence_interval,
    result=CVIntervalResult,
    statistic="√n R̂ / σ̂ over the n per-record differences",
    distribution="N(0, 1)",
    array_function=cv_confidence_interval_array,
    kernel=cv_confidence_interval_kernel,
    inputs=kfold_record_differences,
    needs_per_record=True,
    takes_margin=True,
)
