"""The block-regularized 5×2 CV McNemar test (Yang, Wang, Song and Li; docs/methods.md).

The 2m fold tables of an m×2 BCV are compressed into one effective 2×2 table
C_e = t·n̄ (eq. 11), tested with a continuity-corrected McNemar statistic ~ χ²(1)
(eqs. 14–15) and read through the Beta posteriors of
:mod:`cvreport.methods.contingency_posterior`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from cvreport.errors import CVReportError, DataError
from cvreport.methods._common import (
    NO_DISCORDANT,
    OK,
    check_counts,
    chi2_sf,
    kernel_fields,
    sorted_contingency,
)
from cvreport.methods.contingency_posterior import BetaPosterior, contingency_posteriors
from cvreport.methods.docstrings import fill_doc
from cvreport.methods.mx2_differences import balance_warning, finish_balanced, mx2_spec
from cvreport.methods.spec import TestSpec, mx2_tables
from cvreport.option_values import real_option
from cvreport.results import TestResult
from cvreport.summary_data import SummaryRow, SummaryTable

if TYPE_CHECKING:
    import pandas as pd

    from cvreport.data.table import ResultsTable

__all__ = [
    "MCNEMAR_5X2BCV",
    "BCVMcNemarKernel",
    "BCVMcNemarResult",
    "bcv_factor",
    "mcnemar_5x2bcv",
    "mcnemar_5x2bcv_array",
    "mcnemar_5x2bcv_kernel",
]


REF_BCV = (
    "Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's "
    "test for comparing two classification algorithms, eqs. 6–15 and Lemma 2."
)


def bcv_factor(rho1: float = 0.5, rho2: float = 0.5, m: int = 5) -> float:
    """The BCV compression factor t = 2m / (1 + ρ1 + 2(m − 1) ρ2); 20/11 at the defaults.

    For m = 5, t = 10 / (1 + ρ1 + 8 ρ2) (Yang et al. eq. 11); other m is an extension.

    >>> round(bcv_factor(), 6)
    1.818182
    """
    return 2.0 * m / (1.0 + rho1 + 2.0 * (m - 1) * rho2)


class BCVMcNemarKernel(NamedTuple):
    """The 5×2 BCV McNemar statistic, its p-value, the mean and effective tables."""

    statistic: np.ndarray
    pvalue: np.ndarray
    factor: float
    mean_table: np.ndarray
    effective_table: np.ndarray
    n_effective: np.ndarray
    degenerate: np.ndarray


def mcnemar_5x2bcv_kernel(tables: Any, rho1: float = 0.5, rho2: float = 0.5) -> BCVMcNemarKernel:
    """M = t (max(|n̄01 − n̄10| − 1/t, 0))² / (n̄01 + n̄10) ~ χ²(1) over ``(..., m, 2, 4)``.

    ``tables[..., i, j, :]`` = (n00, n01, n10, n11) of fold j of replication i;
    n̄ is the mean over the 2m tables (Yang et al. eq. 6), t = :func:`bcv_factor`,
    the effective table C_e = t·n̄ (eq. 11), n_e = its total (eq. 12) and the
    statistic eq. 14 (eq. 15 at ρ1 = ρ2 = ½). n̄01 + n̄10 = 0 gives statistic 0, p = 1.

    >>> tables = [[[10, 12, 4, 74], [8, 9, 6, 77]]] * 5
    >>> k = mcnemar_5x2bcv_kernel(tables)
    >>> round(float(k.statistic), 6), k.mean_table.tolist()
    (2.874194, [9.0, 10.5, 5.0, 75.5])
    """
    t = np.asarray(tables, dtype=np.float64)
    if t.ndim < 3 or t.shape[-1] != 4 or t.shape[-2] != 2:
        raise DataError(
            "BCV tables must have shape (..., m, 2, 4): replication, fold, "
            f"(n00, n01, n10, n11); got {t.shape}"
        )
    m = t.shape[-3]
    factor = bcv_factor(rho1, rho2, m)
    mean = t.mean(axis=(-3, -2))
    n01 = mean[..., 1]
    n10 = mean[..., 2]
    discordant = n01 + n10
    empty = discordant == 0
    diff = np.maximum(np.abs(n01 - n10) - 1.0 / factor, 0.0)
    statistic = np.where(empty, 0.0, factor * diff**2 / np.where(empty, 1.0, discordant))
    pvalue = np.where(empty, 1.0, chi2_sf(statistic, 1))
    effective = factor * mean
    code = np.where(empty, NO_DISCORDANT, OK).astype(np.int8)
    return BCVMcNemarKernel(
        statistic, pvalue, factor, mean, effective, effective.sum(axis=-1), code
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class BCVMcNemarResult(TestResult):
    """The 5×2 BCV McNemar test with its effective table and Bayesian reading.

    Attributes
    ----------
    rho1, rho2 : float
        Correlations used in the compression factor (½ and ½ by default, the
        conservative choice of Yang et al.).
    factor : float
        t = 2m / (1 + ρ1 + 2(m − 1)ρ2) (20/11 for 5×2 at the defaults).
    mean_table : tuple of float
        n̄00, n̄01, n̄10, n̄11: the mean of the 2m fold tables.
    effective_table : tuple of float
        t·n̄ (Yang et al. eq. 11).
    n_effective : float
        The effective validation size n_e, the total of the effective table (eq. 12).
    prior : float
        λ of the Beta(λ, λ) prior.
    posteriors : tuple of BetaPosterior
        Posteriors of e, r, q_a and q_b given the effective table (Lemma 2).
    """

    distribution: str = "chi2"
    rho1: float = 0.5
    rho2: float = 0.5
    factor: float = 20.0 / 11.0
    mean_table: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    effective_table: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    n_effective: float = 0.0
    prior: float = 1.0
    posteriors: tuple[BetaPosterior, ...] = ()
    balanced: bool | None = None

    def posterior(self, name: str) -> BetaPosterior:
        """The posterior of ``"e"``, ``"r"``, ``"q_a"`` or ``"q_b"``."""
        for post in self.posteriors:
            if post.name == name:
                return post
        raise CVReportError(
            f"no posterior named {name!r}; choose from {[p.name for p in self.posteriors]}"
        )

    @property
    def prob_a_more_unique_errors(self) -> float:
        """P(r > ½ | C_e): the posterior probability that A makes more of the unique errors."""
        return self.posterior("r").prob_above_half

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = super()._summary_rows(alpha)
        rows.append(SummaryRow("ρ1, ρ2", (self.rho1, self.rho2), "value"))
        rows.append(SummaryRow("compression factor t", self.factor, "number"))
        rows.append(SummaryRow("effective validation size n_e", self.n_effective, "number"))
        rows.append(
            SummaryRow(
                "P(r > ½): A makes more unique errors", self.prob_a_more_unique_errors, "number"
            )
        )
        return rows

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        tables = [
            SummaryTable(
                caption="Mean and effective 2×2 tables (n00 both wrong, n01 only A wrong, "
                "n10 only B wrong, n11 both right)",
                columns=("table", "n00", "n01", "n10", "n11"),
                rows=(("mean n̄", *self.mean_table), ("effective t·n̄", *self.effective_table)),
                kinds=("text", "number", "number", "number", "number"),
            )
        ]
        if self.posteriors:
            level = self.posteriors[0].level
            tables.append(
                SummaryTable(
                    caption=f"Beta posteriors given the effective table (Beta({self.prior:g}, "
                    f"{self.prior:g}) prior; {level:.0%} equal-tailed intervals)",
                    columns=("quantity", "mode", "low", "high", "P(> ½)"),
                    rows=tuple(
                        (p.name, p.mode, p.interval[0], p.interval[1], p.prob_above_half)
                        for p in self.posteriors
                    ),
                    kinds=("text", "number", "number", "number", "number"),
                )
            )
        return tables


def _four(values: np.ndarray) -> tuple[float, float, float, float]:
    n00, n01, n10, n11 = (float(x) for x in values)
    return (n00, n01, n10, n11)


def _mcnemar_5x2bcv(
    tables: np.ndarray,
    *,
    rho1: float = 0.5,
    rho2: float = 0.5,
    prior: float = 1.0,
    level: float = 0.95,
) -> BCVMcNemarResult:
    rho1 = real_option(rho1, "rho1", "a number in [0, 1]", finite=False)
    rho2 = real_option(rho2, "rho2", "a number in [0, 1]", finite=False)
    prior = real_option(prior, "prior", "a positive number (λ of the Beta(λ, λ) prior)")
    level = real_option(level, "level", "a number strictly between 0 and 1 (e.g. 0.95)")
    if not 0.0 <= rho1 <= 1.0 or not 0.0 <= rho2 <= 1.0:
        raise CVReportError(f"rho1 and rho2 must lie in [0, 1], got {rho1!r} and {rho2!r}")
    m = tables.shape[0]
    k = mcnemar_5x2bcv_kernel(tables, rho1, rho2)
    mean = _four(k.mean_table)
    effective = _four(k.effective_table)
    total = sum(mean)
    posteriors = contingency_posteriors(*effective, prior=prior, level=level)  # checks both
    warnings: tuple[str, ...] = ()
    if int(k.degenerate) == NO_DISCORDANT:
        warnings = (
            "no discordant records on average (n̄01 + n̄10 = 0): the models err on exactly "
            "the same records in every fold; by convention statistic = 0 and p = 1.",
        )
    notes: tuple[str, ...] = ()
    if m != 5:
        notes = (f"extension to m×2 BCV (m = {m}): t = 2m / (1 + ρ1 + 2(m − 1)ρ2).",)
    if (rho1, rho2) != (0.5, 0.5):
        notes += (
            "ρ1, ρ2 differ from the conservative ½, ½ of Yang et al.; smaller values make the "
            "test more liberal.",
        )
    return BCVMcNemarResult(
        **(kernel_fields(MCNEMAR_5X2BCV, k, "two-sided") | {"method": f"{m}×2 BCV McNemar test"}),
        df=1.0,
        estimate=None if total == 0 else (mean[1] - mean[2]) / total,
        nobs=round(2.0 * total),
        design=f"{m}×2 block-regularized cross-validation (tables given directly)",
        warnings=warnings,
        notes=notes,
        rho1=float(rho1),
        rho2=float(rho2),
        factor=k.factor,
        mean_table=mean,
        effective_table=effective,
        n_effective=float(k.n_effective),
        prior=float(prior),
        posteriors=posteriors,
    )


def _check_tables(tables: Any) -> np.ndarray:
    """The fold tables as counts of shape (m, 2, 4)."""
    t = check_counts(tables, "tables")
    if t.ndim == 2 and t.shape[1] == 4 and t.shape[0] % 2 == 0:
        t = t.reshape(-1, 2, 4)
    if t.ndim != 3 or t.shape[1:] != (2, 4):
        raise DataError(
            "tables must have shape (m, 2, 4) or (2m, 4) with columns (n00, n01, n10, n11), "
            f"got {t.shape}"
        )
    return t


def _fold_tables(
    spec: TestSpec, table: ResultsTable, pair: Any, stats: Any, options: dict[str, Any]
) -> tuple[tuple[np.ndarray], dict[str, Any]]:
    """The (m, 2, 4) per-record 2×2 counts of every fold."""
    frame = sorted_contingency(table, *pair, spec.name)
    m, n_folds = table.design.m, 2
    if len(frame) != m * n_folds:
        raise DataError(
            f"{spec.name} needs a 2×2 table on both folds of all {m} replications, "
            f"got {len(frame)} tables"
        )
    tables = frame[["n00", "n01", "n10", "n11"]].to_numpy(dtype=np.float64).reshape(m, 2, 4)
    return (tables,), options


def _finish(
    result: BCVMcNemarResult, table: ResultsTable, pair: Any, *partition: tuple[str, ...]
) -> BCVMcNemarResult:
    return finish_balanced(result, table, pair, *partition, nobs=table.design.n_records)


@fill_doc
def mcnemar_5x2bcv_array(
    tables: Any,
    rho1: float = 0.5,
    rho2: float = 0.5,
    *,
    prior: float = 1.0,
    level: float = 0.95,
) -> BCVMcNemarResult:
    """The 5×2 BCV McNemar test from the 2m fold tables of an m×2 BCV.

    n̄ = mean of the 2m tables (Yang et al. eq. 6), t = 10 / (1 + ρ1 + 8ρ2)
    (2m / (1 + ρ1 + 2(m − 1)ρ2) for m×2, an extension), C_e = t·n̄ (eq. 11),
    n_e = total of C_e (eq. 12), M = t (max(|n̄01 − n̄10| − 1/t, 0))² / (n̄01 + n̄10)
    ~ χ²(1) (eq. 14; eq. 15 at ρ1 = ρ2 = ½). The result carries the Beta
    posteriors of e, r, q_a and q_b given C_e (Lemma 2).

    Parameters
    ----------
    tables : array_like, shape (m, 2, 4) or (2m, 4)
        (n00, n01, n10, n11) per fold; rows of a (2m, 4) array are read as
        replication 1 fold 1, replication 1 fold 2, …
    rho1, rho2 : float
        Correlations; ½ and ½ (the paper's conservative choice) by default.
    prior : float
        λ of the Beta(λ, λ) prior (1: uniform).
    level : float
        Level of the credible intervals.

    {returns}

    {raises_array}

    {bcv_mcnemar_references}

    Examples
    --------
    >>> from cvreport.arrays import mcnemar_5x2bcv
    >>> res = mcnemar_5x2bcv([[[10, 12, 4, 74], [8, 9, 6, 77]]] * 5)
    >>> round(res.statistic, 6), res.mean_table, round(res.n_effective, 4)
    (2.874194, (9.0, 10.5, 5.0, 75.5), 181.8182)
    """
    return MCNEMAR_5X2BCV.run_arrays(tables, rho1=rho1, rho2=rho2, prior=prior, level=level)


@fill_doc
def mcnemar_5x2bcv(
    table: ResultsTable | str,
    a: Any = None,
    b: Any = None,
    *,
    rho1: float = 0.5,
    rho2: float = 0.5,
    prior: float = 1.0,
    level: float = 0.95,
    data: pd.DataFrame | None = None,
) -> BCVMcNemarResult:
    """The 5×2 BCV McNemar test on the effective contingency table (Yang et al. §4.4–4.5).

    M = 20 (max(|n̄01 − n̄10| − 11/20, 0))² / (11 (n̄01 + n̄10)) ~ χ²(1) at the
    default ρ1 = ρ2 = ½; in general t (max(|n̄01 − n̄10| − 1/t, 0))² / (n̄01 + n̄10)
    with t = 10 / (1 + ρ1 + 8ρ2). The result carries the mean and effective
    tables, n_e and the Beta posteriors of e, r, q_a, q_b (mode, equal-tailed
    credible interval, P(· > ½)). Other m×2 designs use the labelled extension
    t = 2m / (1 + ρ1 + 2(m − 1)ρ2). Warns
    (:class:`~cvreport.errors.PartitionWarning`) when the partitions are not
    block-regularized (training-set overlaps not all n/4).

    {parameters_pair}
    rho1, rho2 : float
        Correlations in the compression factor; ½ and ½ (the paper's conservative choice).
    prior : float
        λ of the Beta(λ, λ) prior of the posteriors (1: uniform).
    level : float
        Level of the credible intervals.
    {data}

    {returns}

    Raises
    ------
    DesignError
        Unless the table is an m×2 design with per-record losses.
    DataError
        When the losses are not 0/1.

    {bcv_mcnemar_references}

    {examples_5x2bcv}
    >>> res = cvreport.mcnemar_5x2bcv("loss ~ model | replication + fold", data=df)
    >>> round(res.factor, 6), round(res.n_effective, 4), res.balanced
    (1.818182, 72.7273, True)
    >>> [p.name for p in res.posteriors]
    ['e', 'r', 'q_a', 'q_b']
    """
    return MCNEMAR_5X2BCV.run(
        table, a, b, data=data, rho1=rho1, rho2=rho2, prior=prior, level=level
    )


MCNEMAR_5X2BCV = mx2_spec(
    label="5×2 BCV McNemar test",
    reference=REF_BCV,
    requirement=(
        "an m×2 design (m replications of 2-fold cross-validation, ideally 5×2 block-regularized)"
    ),
    function=mcnemar_5x2bcv,
    result=BCVMcNemarResult,
    statistic="t (max(\\|n̄01 − n̄10\\| − 1/t, 0))² / (n̄01 + n̄10)",
    distribution="χ²(1)",
    array_function=mcnemar_5x2bcv_array,
    kernel=mcnemar_5x2bcv_kernel,
    inputs=mx2_tables,
    build=_mcnemar_5x2bcv,
    check_inputs=_check_tables,
    prepare=_fold_tables,
    partition_check=balance_warning,
    finish=_finish,
    needs_binary=True,
    needs_per_record=True,
    takes_alternative=False,
)
