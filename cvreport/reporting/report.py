"""The report: every applicable test for every pair of models, the audit, and what it all means.

:class:`Report` collects result objects (it computes no statistic itself: the
tests come from :mod:`cvreport.methods`, the audit from :mod:`cvreport.partitions.audit`)
into a plain context and renders it through the packaged Jinja2 templates as a
standalone HTML page, GitHub-flavoured Markdown or LaTeX (booktabs). Sections:

1. the data: models, records, design (m, K, fold sizes), where the numbers came from;
2. the overlap audit of m×2 partitions (Wang, Li and Li 2015) with its verdict;
3. per-model loss: mean and spread over folds, and confusion-derived metrics
   when predictions are available;
4. the recommended test for the design, with the reason;
5. for each pair: every test that ran, with statistic, df, p-value, decision at
   α, multiplicity-adjusted p-value (statsmodels ``multipletests``, Holm by
   default, when more than one pair is compared), estimate and interval, a
   dot plot of the per-fold differences and a plain-language reading;
6. the p-values of all tests against α (a figure);
7. caveats and references.

Examples
--------
>>> import cvreport
>>> table = cvreport.ResultsTable.from_formula(
...     "loss ~ model | replication + fold", cvreport.load_example())
>>> report = cvreport.Report(table)
>>> [(o.a, o.b, o.name) for o in report.outcomes][:1]
[('logistic_regression', 'decision_tree', 'combined_ftest_5x2cv')]
>>> print(report.context()["bottom_line"][0]["text"])  # doctest: +NORMALIZE_WHITESPACE
No significant difference at α = 0.05 (Alpaydın's combined 5×2cv F test, p = 0.027,
adjusted p = 0.082). logistic_regression has the lower mean error rate, by 0.0573
(A − B = -0.0573).

``report.save("report.html")`` writes the standalone page; ``.md`` and ``.tex``
give Markdown and LaTeX.
"""

from __future__ import annotations

import copy
import hashlib
import math
import os
import tempfile
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from cvreport.errors import (
    CVReportError,
    DataError,
    DegenerateStatisticWarning,
    DesignError,
    PartitionWarning,
    describe_keys,
)
from cvreport.rendering import figures
from cvreport.reporting import interpret, selection
from cvreport.results import TestResult

if TYPE_CHECKING:
    from cvreport.data.table import ResultsTable

__all__ = [
    "CORRECTIONS",
    "FORMATS",
    "Comparison",
    "Report",
    "ReportExistsError",
    "SkippedTest",
    "TestOutcome",
    "report",
]

CORRECTIONS = (
    "holm",
    "bonferroni",
    "holm-sidak",
    "sidak",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "none",
)
"""Multiplicity corrections accepted by :class:`Report` (statsmodels ``multipletests`` methods)."""

FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".tex": "latex"}
"""File suffixes :meth:`Report.save` recognises, and the format each one means."""

_FORMAT_ALIASES = {
    "html": "html",
    "htm": "html",
    "md": "markdown",
    "markdown": "markdown",
    "tex": "latex",
    "latex": "latex",
}

HOLM_REFERENCE = (
    "Holm, S. (1979). A simple sequentially rejective multiple test procedure. "
    "Scandinavian Journal of Statistics 6(2):65–70."
)
OVERLAP_REFERENCE = (
    "Wang, Y., Li, J., Li, Y. (2015). Measure for data partitioning in m×2 cross-validation. "
    "Pattern Recognition Letters 65:211–217."
)


class ReportExistsError(CVReportError, FileExistsError):
    """The report's target file exists and ``overwrite`` was not set."""

    def __init__(self, message: str, path: str | os.PathLike[str]) -> None:
        super().__init__(message)
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Posterior:
    """The three posterior probabilities of a Bayesian comparison (A − B < −w, |A − B| ≤ w, > w)."""

    p_a_better: float
    p_equivalent: float
    p_b_better: float
    rope: float | None = None


@dataclass(frozen=True)
class TestOutcome:
    """One test run on one pair of models, with the report's reading of it.

    Attributes
    ----------
    result : TestResult
        What the test function returned (untouched).
    adjusted : float or None
        The multiplicity-adjusted p-value (None when only one pair is compared,
        the correction is ``"none"``, or the test reports no p-value).
    reject : bool or None
        The decision at α the report states: on ``adjusted`` when there is one,
        otherwise on the p-value; None for Bayesian results.
    interval : (float, float) or None
        The ``1 − α`` interval for A − B where the method defines one.
    """

    __test__ = False  # not a pytest test class

    name: str
    label: str
    a: str
    b: str
    result: TestResult
    recommended: bool = False
    caution: str | None = None
    adjusted: float | None = None
    reject: bool | None = None
    interval: tuple[float, float] | None = None
    posterior: Posterior | None = None
    interpretation: str = ""
    headline: str = ""
    extra_warnings: tuple[str, ...] = ()

    @property
    def method(self) -> str:
        return self.result.method or self.label

    @property
    def has_pvalue(self) -> bool:
        return self.posterior is None and _finite(self.result.pvalue)


@dataclass(frozen=True)
class SkippedTest:
    """A test that was asked for but could not run on this table, and why."""

    name: str
    label: str
    a: str
    b: str
    reason: str


@dataclass
class Comparison:
    """Everything the report says about one pair of models."""

    a: str
    b: str
    outcomes: list[TestOutcome] = field(default_factory=list)
    skipped: list[SkippedTest] = field(default_factory=list)
    disagreement: str | None = None
    fallback_note: str | None = None

    @property
    def label(self) -> str:
        return f"{self.a} vs {self.b}"

    @property
    def recommended(self) -> list[TestOutcome]:
        return [o for o in self.outcomes if o.recommended]


class Report:
    """Compare models from a table of cross-validation losses, and render the comparison.

    Parameters
    ----------
    table : ResultsTable or str
        The results, or a formula such as ``"loss ~ model | replication + fold"``
        together with ``data``.
    pairs : sequence of (str, str), optional
        The pairs of models to compare, as (A, B). Default: every pair, in the
        order the models first appear.
    tests : "recommended", "all" or sequence of str
        ``"recommended"`` runs the tests recommended for the design;
        ``"all"`` every registered test that fits the design; a list names test
        functions (see :data:`cvreport.reporting.selection.TEST_SPECS`).
    alpha : float
        Significance level for the decisions.
    correction : str
        Multiplicity correction across pairs (a statsmodels ``multipletests``
        method, or ``"none"``); applied per test when more than one pair is compared.
    data : pandas.DataFrame, optional
        The long-format losses when ``table`` is a formula.
    title : str, optional
        The report's heading.
    test_options : mapping of str to mapping, optional
        Keyword arguments for individual tests, e.g.
        ``{"bayesian_correlated_ttest": {"rope": 0.01}}`` (a region of practical
        equivalence of ±0.01 in loss units).

    Attributes
    ----------
    comparisons : list of Comparison
        Per pair, the outcomes (result plus adjusted p-value, decision, reading)
        and the tests that could not run.
    results : list of TestResult
        Every result object, pair by pair.
    audit : OverlapAudit or None
        The overlap audit (m×2 designs with per-record losses).

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example("bcv"))
    >>> report = cvreport.Report(table, pairs=[("logistic_regression", "naive_bayes")])
    >>> report.title, report.partitions
    ('Comparison of logistic_regression and naive_bayes', 'block-regularized')
    >>> [r.test for r in report.results]
    ['calibrated_ftest_5x2cv', 'mcnemar_5x2bcv']
    >>> print(report.to_markdown().splitlines()[0])
    # Comparison of logistic\\_regression and naive\\_bayes
    """

    def __init__(
        self,
        table: ResultsTable | str,
        *,
        pairs: Sequence[tuple[str, str]] | None = None,
        tests: str | Sequence[str] = "recommended",
        alpha: float = 0.05,
        correction: str | None = "holm",
        data: pd.DataFrame | None = None,
        title: str | None = None,
        test_options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        if isinstance(table, str) or data is not None:
            from cvreport.methods._common import as_table

            table = as_table(table, data)
        self.table = table
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
            raise CVReportError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
        self.alpha = float(alpha)
        self.correction = _check_correction(correction)
        self.pairs = self._resolve_pairs(pairs)
        self.title = title or _default_title(self.pairs)
        design = self.table.design
        self.design = design
        self.audit, self.audit_note = self._run_audit()
        self.partitions: str | None = getattr(self.audit, "design", None)
        from cvreport.reporting.metric_choice import metric_recommendation

        self.recommendation = metric_recommendation(
            self.table, partitions=self.partitions
        ) or selection.recommendation(
            design.kind,
            partitions=self.partitions,
            binary=bool(self.table.is_binary),
            per_record=bool(self.table.per_record),
        )
        if not isinstance(tests, str):
            try:
                # a tuple, an array or a generator of names
                tests = [str(t) if isinstance(t, str) else t for t in tests]
            except TypeError:
                raise CVReportError(
                    f"tests must be 'recommended', 'all' or a list of test names, got {tests!r}"
                ) from None
        self.tests = tests
        self.test_names = self._resolve_tests(tests)
        self.test_options = {
            selection.get_spec(name).name: dict(options)
            for name, options in (test_options or {}).items()
        }
        self.comparisons = [self._compare(a, b) for a, b in self.pairs]
        self._adjust_and_interpret()
        self._context_cache: dict[str, Any] | None = None
        self._figure_prefix = (
            "cvr"
            + hashlib.sha1(
                repr((self.title, self.pairs, self.test_names, self.alpha)).encode()
            ).hexdigest()[:6]
        )

    # -- setup -----------------------------------------------------------
    def _resolve_pairs(self, pairs: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
        models = list(self.table.models)
        if pairs is None:
            if len(models) < 2:
                raise DataError(
                    f"a report compares models, but the table holds only {describe_keys(models)}"
                )
            return [
                (models[i], models[j])
                for i in range(len(models))
                for j in range(i + 1, len(models))
            ]
        if isinstance(pairs, str):
            raise CVReportError(f"pairs must be a list of (A, B) pairs, got the string {pairs!r}")
        if len(pairs) == 2 and all(
            isinstance(p, str) or not hasattr(p, "__len__") for p in pairs
        ):  # one pair given bare, e.g. pairs=("a", "b")
            raise CVReportError(
                f"pairs must be a list of (A, B) pairs, got {pairs!r}; for one pair write "
                f"pairs=[{tuple(pairs)!r}]"
            )
        resolved: list[tuple[str, str]] = []
        for pair in pairs:
            if isinstance(pair, str) or not hasattr(pair, "__len__") or len(pair) != 2:
                raise CVReportError(
                    f"each pair must be two model names (A, B), got {pair!r}; "
                    f"the models are {describe_keys(models)}"
                )
            a, b = self.table.resolve_pair(pair[0], pair[1])
            if a == b:
                raise CVReportError(f"a pair needs two different models, got {a!r} twice")
            if (b, a) in resolved:
                raise CVReportError(
                    f"the pair ({a!r}, {b!r}) repeats ({b!r}, {a!r}) reversed; compare each pair "
                    "once (a reversed pair is the same comparison and would be counted twice "
                    "in the multiplicity correction)"
                )
            if (a, b) not in resolved:
                resolved.append((a, b))
        if not resolved:
            raise CVReportError("pairs is empty; pass None to compare every pair of models")
        return resolved

    def _resolve_tests(self, tests: str | Sequence[str]) -> list[str]:
        design = self.table.design
        binary, per_record = bool(self.table.is_binary), bool(self.table.per_record)
        if not isinstance(tests, str) and not all(isinstance(t, str) for t in tests):
            raise CVReportError(
                f"tests must be 'recommended', 'all' or a list of test names, got {tests!r}"
            )
        if isinstance(tests, str):
            if tests == "recommended":
                return list(self.recommendation.names)
            if tests == "all":
                fitting = [
                    s.name
                    for s in selection.specs_for(design.kind, binary=binary, per_record=per_record)
                ]
                recommended = [n for n in self.recommendation.names if n in fitting]
                return recommended + [n for n in fitting if n not in recommended]
            tests = [t.strip() for t in tests.split(",") if t.strip()]
        names: list[str] = []
        for name in tests:
            try:
                selection.get_spec(name)  # raises with the known names
            except CVReportError as exc:
                raise CVReportError(f"{exc}; or pass tests='recommended' or tests='all'") from exc
            if name not in names:
                names.append(name)
        if not names:
            raise CVReportError(
                "no test named; pass tests='recommended', 'all' or a list of test names"
            )
        return names

    def _run_audit(self) -> tuple[Any, str | None]:
        design = self.table.design
        if not (design.kind in ("mx2", "repeated_kfold") and design.m >= 2):
            return None, None
        if not self.table.per_record:
            return None, (
                "The overlap audit needs per-record losses (which record was in which fold); "
                "only per-fold scores were given."
            )
        try:
            return _audit(self.table), None
        except ImportError as exc:  # pragma: no cover - depends on the installation
            return None, f"The overlap audit is not available in this installation ({exc})."
        except CVReportError as exc:
            if design.kind == "mx2":
                return None, f"The overlap audit could not run: {exc}"
            return None, None

    # -- running tests ---------------------------------------------------
    def _run_one(self, name: str, a: str, b: str) -> tuple[TestResult | None, str, tuple[str, ...]]:
        try:
            function = selection.resolve_test(name)
        except CVReportError as exc:
            return None, str(exc), ()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DegenerateStatisticWarning)
            warnings.simplefilter("always", PartitionWarning)
            try:
                result = function(self.table, a, b, **self.test_options.get(name, {}))
            except (DesignError, DataError) as exc:
                return None, str(exc), ()
            except TypeError as exc:
                if name not in self.test_options:
                    raise
                raise CVReportError(
                    f"test_options for {name!r} do not fit the test: {exc}"
                ) from exc
        extra: list[str] = []
        for item in caught:
            if issubclass(item.category, (DegenerateStatisticWarning, PartitionWarning)):
                message = str(item.message)
                if message not in result.warnings and message not in extra:
                    extra.append(message)
            else:  # not ours to swallow
                warnings.warn_explicit(
                    item.message, item.category, item.filename, item.lineno, source=item.source
                )
        return result, "", tuple(extra)

    def _compare(self, a: str, b: str) -> Comparison:
        comparison = Comparison(a, b)
        recommended = set(self.recommendation.names)
        ran: set[str] = set()
        for name in self.test_names:
            self._add(comparison, name, a, b, recommended=name in recommended)
            ran.add(name)
        # a recommended test that could not run hands over to its fallback
        failed = [s for s in comparison.skipped if s.name in recommended]
        if failed and self.tests == "recommended":
            for fallback in self.recommendation.fallbacks:
                if fallback in ran:
                    continue
                before = len(comparison.outcomes)
                self._add(comparison, fallback, a, b, recommended=True)
                if len(comparison.outcomes) > before:
                    comparison.fallback_note = (
                        f"{_label(failed[0].name)} could not run ({failed[0].reason}); "
                        f"{_label(fallback)} is reported in its place."
                    )
                    break
        return comparison

    def _add(self, comparison: Comparison, name: str, a: str, b: str, *, recommended: bool) -> None:
        spec = selection.get_spec(name)
        result, reason, extra = self._run_one(name, a, b)
        if result is None:
            comparison.skipped.append(SkippedTest(name, spec.label, a, b, reason))
            return
        interval = None
        if result.has_conf_int:
            interval = result.conf_int(self.alpha)
        comparison.outcomes.append(
            TestOutcome(
                name=name,
                label=spec.label,
                a=a,
                b=b,
                result=result,
                recommended=recommended,
                caution=spec.caution,
                interval=interval,
                posterior=_posterior(result) if spec.bayesian else None,
                extra_warnings=extra,
            )
        )

    def _adjust_and_interpret(self) -> None:
        adjusted: dict[tuple[int, int], float] = {}
        n_pairs = len(self.comparisons)
        if n_pairs > 1 and self.correction is not None:
            from statsmodels.stats.multitest import multipletests

            for name in self.test_names + list(self.recommendation.fallbacks):
                where = [
                    (i, j)
                    for i, c in enumerate(self.comparisons)
                    for j, o in enumerate(c.outcomes)
                    if o.name == name and o.has_pvalue
                ]
                if len(where) < 2:
                    continue
                pvalues = [float(self.comparisons[i].outcomes[j].result.pvalue) for i, j in where]
                corrected = multipletests(pvalues, alpha=self.alpha, method=self.correction)[1]
                for key, value in zip(where, corrected):
                    adjusted[key] = float(value)
        table = self.table
        loss_name = self.measure
        higher = table.higher_is_better
        for i, comparison in enumerate(self.comparisons):
            updated: list[TestOutcome] = []
            for j, outcome in enumerate(comparison.outcomes):
                result = outcome.result
                adj = adjusted.get((i, j))
                degenerate = _infinite(result.statistic)
                if outcome.posterior is not None:
                    post = outcome.posterior
                    reading = interpret.bayesian_sentence(
                        method=outcome.method,
                        a=outcome.a,
                        b=outcome.b,
                        p_a_better=post.p_a_better,
                        p_equivalent=post.p_equivalent,
                        p_b_better=post.p_b_better,
                        rope=post.rope,
                        degenerate=degenerate,
                    )
                    short = (
                        f"{outcome.method}: P({outcome.a} better) = {_num(post.p_a_better)}, "
                        f"P(equivalent) = {_num(post.p_equivalent)}, "
                        f"P({outcome.b} better) = {_num(post.p_b_better)}."
                    )
                    updated.append(_replace(outcome, interpretation=reading, headline=short))
                    continue
                if not outcome.has_pvalue:
                    updated.append(
                        _replace(outcome, interpretation=f"{outcome.method}: no p-value.")
                    )
                    continue
                reject = (adj if adj is not None else float(result.pvalue)) <= self.alpha
                reading = interpret.decision_sentence(
                    method=outcome.method,
                    a=outcome.a,
                    b=outcome.b,
                    pvalue=float(result.pvalue),
                    alpha=self.alpha,
                    reject=reject,
                    estimate=_float_or_none(result.estimate),
                    interval=outcome.interval,
                    adjusted=adj,
                    correction=self.correction,
                    n_comparisons=n_pairs,
                    loss_name=loss_name,
                    higher_is_better=higher,
                    distribution=result.distribution,
                    degenerate=degenerate,
                )
                short = interpret.verdict_clause(
                    method=outcome.method,
                    pvalue=float(result.pvalue),
                    alpha=self.alpha,
                    reject=reject,
                    adjusted=adj,
                    degenerate=degenerate,
                )
                updated.append(
                    _replace(
                        outcome, adjusted=adj, reject=reject, interpretation=reading, headline=short
                    )
                )
            comparison.outcomes = updated
            decided = [o for o in updated if o.reject is not None]
            comparison.disagreement = interpret.disagreement_sentence(
                comparison.a,
                comparison.b,
                rejecting=[o.method for o in decided if o.reject],
                not_rejecting=[o.method for o in decided if not o.reject],
                alpha=self.alpha,
                recommended=[o.method for o in decided if o.recommended],
            )

    # -- what the report holds ------------------------------------------
    @property
    def measure(self) -> str:
        """What the losses measure, in words: "error rate" for 0/1 losses, else the loss's name."""
        table = self.table
        if table.is_binary and not table.higher_is_better:
            return "error rate"
        return str(table.loss_name)

    @property
    def results(self) -> list[TestResult]:
        """Every result object, pair by pair, in the order shown."""
        return [o.result for c in self.comparisons for o in c.outcomes]

    @property
    def outcomes(self) -> list[TestOutcome]:
        """Every :class:`TestOutcome`, pair by pair."""
        return [o for c in self.comparisons for o in c.outcomes]

    @property
    def skipped(self) -> list[SkippedTest]:
        """Tests that were asked for but could not run, with the reason."""
        return [s for c in self.comparisons for s in c.skipped]

    def to_frame(self) -> pd.DataFrame:
        """One tidy row per test and pair, with the adjusted p-value and the stated decision."""
        frames = []
        for outcome in self.outcomes:
            row = outcome.result.to_frame(self.alpha)
            row["recommended"] = outcome.recommended
            row["pvalue_adjusted"] = outcome.adjusted if outcome.adjusted is not None else math.nan
            row["decision"] = outcome.reject
            frames.append(row)
        if not frames:
            return pd.DataFrame(
                columns=["test", "model_a", "model_b", "statistic", "pvalue", "pvalue_adjusted"]
            )
        return pd.concat(frames, ignore_index=True)

    def context(self) -> dict[str, Any]:
        """The report as a plain dict (numbers, strings, lists, dicts): what the templates render.

        Built once (the report does not change after construction); each call
        returns a fresh copy that the caller may modify.
        """
        return copy.deepcopy(self._context())

    def _context(self) -> dict[str, Any]:
        if self._context_cache is None:
            self._context_cache = self._build_context()
        return self._context_cache

    def _build_context(self) -> dict[str, Any]:
        table = self.table
        design = table.design
        outcomes = self.outcomes
        any_adjusted = any(o.adjusted is not None for o in outcomes)
        context: dict[str, Any] = {
            "title": self.title,
            "version": _version(),
            "alpha": self.alpha,
            "alpha_text": f"{self.alpha:g}",
            "level_text": f"{1 - self.alpha:.0%}",
            "correction": self.correction,
            "correction_name": interpret.correction_name(self.correction)
            if self.correction
            else None,
            "any_adjusted": any_adjusted,
            "data": self._data_context(),
            "audit": self._audit_context(),
            "model_losses": _model_losses(table),
            "metrics": _confusion_metrics(table),
            "recommendation": {
                "names": list(self.recommendation.names),
                "labels": [_label(n) for n in self.recommendation.names],
                "reason": self.recommendation.reason,
                "tests_option": self.tests if isinstance(self.tests, str) else list(self.tests),
            },
            "bottom_line": self._bottom_line(),
            "pairs": [self._pair_context(i, c) for i, c in enumerate(self.comparisons)],
            "pvalue_figure": self._pvalue_figure(),
            "caveats": self._caveats(),
            "references": self._references(),
            "design_kind": design.kind,
        }
        return context

    def _data_context(self) -> dict[str, Any]:
        table = self.table
        design = table.design
        sizes = design.fold_sizes
        fold_sizes: dict[str, Any] | None = None
        fold_size_summary = None
        if sizes is not None and len(sizes):
            wide = sizes.pivot(index="replication", columns="fold", values="n")
            if wide.shape[0] <= 12 and wide.shape[1] <= 12:
                fold_sizes = {
                    "folds": [str(c) for c in wide.columns],
                    "rows": [
                        {
                            "replication": str(index),
                            "sizes": [None if pd.isna(v) else int(v) for v in row],
                        }
                        for index, row in zip(wide.index, wide.to_numpy())
                    ],
                }
            n = pd.to_numeric(sizes["n"], errors="coerce").to_numpy(dtype=float)
            n = n[np.isfinite(n)]
            if n.size:
                low, high = int(n.min()), int(n.max())
                fold_size_summary = f"{low}" if low == high else f"{low} to {high}"
            else:
                fold_sizes = None  # per-fold scores: the sizes are unknown
        return {
            "models": [str(m) for m in table.models],
            "n_models": len(table.models),
            "design": design.describe(),
            "kind": design.kind,
            "kind_text": selection.DESIGN_WORDS.get(design.kind, design.kind),
            "m": int(design.m),
            "K": int(design.K),
            "n_records": None if design.n_records is None else int(design.n_records),
            "fold_sizes": fold_sizes,
            "fold_size_summary": fold_size_summary,
            "complete": bool(getattr(design, "complete", True)),
            "source": str(getattr(table, "source", "") or ""),
            "formula": getattr(table, "formula", None),
            "loss_name": str(table.loss_name),
            "measure": self.measure,
            "higher_is_better": bool(table.higher_is_better),
            "per_record": bool(table.per_record),
            "binary": bool(table.is_binary),
            "pairs": [f"{a} vs {b}" for a, b in self.pairs],
        }

    def _audit_context(self) -> dict[str, Any] | None:
        audit = self.audit
        if audit is None:
            return {"available": False, "note": self.audit_note} if self.audit_note else None
        z_max = _float_or_none(getattr(audit, "z_max", None))
        pvalue = _float_or_none(getattr(audit, "pvalue", None))
        verdict = getattr(audit, "verdict", None)
        meaning = str(getattr(audit, "meaning", "") or "")
        reading = interpret.audit_sentence(
            partitions=self.partitions,
            z_max=z_max,
            pvalue=pvalue,
            alpha=float(getattr(audit, "alpha", self.alpha)),
            verdict=None if verdict is None else str(verdict),
        )
        return {
            "available": True,
            "partitions": self.partitions,
            "z_max": z_max,
            "pvalue": pvalue,
            "verdict": None if verdict is None else str(verdict),
            "poor": verdict == "poor",
            "reading": meaning or reading,
            "pairs": _audit_pairs(audit),
            "warnings": [str(w) for w in getattr(audit, "warnings", ())],
            "reference": str(getattr(audit, "reference", "") or OVERLAP_REFERENCE),
            "note": None,
        }

    def _bottom_line(self) -> list[dict[str, Any]]:
        """Per pair: the verdicts of the recommended tests (or of all tests run), then the direction."""
        lines = []
        table = self.table
        for comparison in self.comparisons:
            shown = comparison.recommended or comparison.outcomes
            if not shown:
                reason = (
                    "; ".join(s.reason for s in comparison.skipped) or self.recommendation.reason
                )
                lines.append({"pair": comparison.label, "text": f"No test could be run: {reason}"})
                continue
            clauses = [o.headline for o in shown if o.posterior is None]
            posteriors = [o.headline for o in shown if o.posterior is not None]
            estimate = next(
                (_float_or_none(o.result.estimate) for o in shown if o.result.estimate is not None),
                None,
            )
            text = interpret.headline(
                clauses,
                a=comparison.a,
                b=comparison.b,
                estimate=estimate,
                loss_name=self.measure,
                higher_is_better=table.higher_is_better,
            )
            lines.append({"pair": comparison.label, "text": " ".join([text, *posteriors])})
        return lines

    def _pair_context(self, index: int, comparison: Comparison) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        bayes: list[dict[str, Any]] = []
        caveats: list[dict[str, str]] = []
        for outcome in comparison.outcomes:
            result = outcome.result
            notes = list(result.notes)
            cautions = []
            not_recommended = bool(outcome.caution) and not outcome.recommended
            labelled = any("not recommended" in n.lower() for n in notes)
            if not_recommended and not labelled:
                cautions.append(
                    f"{outcome.method}: not recommended as the deciding test — {outcome.caution}."
                )
            warnings_ = [*result.warnings, *outcome.extra_warnings]
            entry: dict[str, Any] = {
                "name": outcome.name,
                "method": outcome.method,
                "recommended": outcome.recommended,
                "statistic": _float_or_none(result.statistic),
                "df": result.df,
                "distribution": result.distribution,
                "alternative": result.alternative,
                "pvalue": _float_or_none(result.pvalue),
                "adjusted": outcome.adjusted,
                "reject": outcome.reject,
                "estimate": _float_or_none(result.estimate),
                "interval": outcome.interval,
                "nobs": result.nobs,
                "interpretation": outcome.interpretation,
                "warnings": warnings_,
                "notes": notes,
                "cautions": cautions,
                "not_recommended": not_recommended or (labelled and not outcome.recommended),
                "reference": result.reference,
            }
            if outcome.posterior is not None:
                post = outcome.posterior
                entry["posterior"] = {
                    "p_a_better": post.p_a_better,
                    "p_equivalent": post.p_equivalent,
                    "p_b_better": post.p_b_better,
                    "rope": post.rope,
                }
                bayes.append(entry)
            else:
                rows.append(entry)
        for entry in rows + bayes:
            caveats.extend({"text": c, "kind": "caution"} for c in entry["cautions"])
            caveats.extend(
                {"text": f"{entry['method']}: {w}", "kind": "warning"} for w in entry["warnings"]
            )
            caveats.extend(
                {"text": f"{entry['method']}: {n}", "kind": "note"} for n in entry["notes"]
            )
        return {
            "index": index,
            "anchor": f"pair-{index + 1}",
            "caveats": caveats,
            "a": comparison.a,
            "b": comparison.b,
            "label": comparison.label,
            "tests": rows,
            "bayesian": bayes,
            "skipped": [
                {"name": s.name, "label": s.label, "reason": s.reason} for s in comparison.skipped
            ],
            "disagreement": comparison.disagreement,
            "fallback_note": comparison.fallback_note,
            "figure": self._difference_figure(index, comparison),
            "any_adjusted": any(r["adjusted"] is not None for r in rows),
        }

    def _difference_figure(self, index: int, comparison: Comparison) -> str | None:
        try:
            differences = self.table.differences(comparison.a, comparison.b)
        except CVReportError:
            return None
        values = differences.to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        mean = float(finite.mean()) if finite.size else None
        interval = None
        interval_label = "interval"
        # the interval of a recommended test, else of a test without a caution, else any
        candidates = sorted(
            (o for o in comparison.outcomes if o.interval is not None),
            key=lambda o: (not o.recommended, o.caution is not None),
        )
        if candidates:
            interval = candidates[0].interval
            interval_label = f"{1 - self.alpha:.0%} interval ({candidates[0].method})"
        measure = self.measure
        xlabel = (
            f"difference in negated {measure}, A − B (negative: A scores higher)"
            if self.table.higher_is_better
            else f"difference in {measure}, A − B (positive: A has the higher loss)"
        )
        return figures.difference_plot(
            differences,
            title=f"Per-fold differences: {comparison.a} − {comparison.b}",
            mean=mean,
            interval=interval,
            interval_label=interval_label,
            xlabel=xlabel,
            figure_id=f"{self._figure_prefix}-diff-{index + 1}",
        )

    def _pvalue_figure(self) -> str | None:
        points = []
        several = len(self.comparisons) > 1
        for comparison in self.comparisons:
            for outcome in comparison.outcomes:
                if not outcome.has_pvalue or outcome.reject is None:
                    continue
                points.append(
                    figures.PValuePoint(
                        label=outcome.method,
                        pvalue=float(outcome.result.pvalue),
                        adjusted=outcome.adjusted,
                        reject=outcome.reject,
                        group=comparison.label if several else None,
                    )
                )
        if not points:
            return None
        return figures.pvalue_plot(
            points,
            alpha=self.alpha,
            title=f"p-values against α = {self.alpha:g}",
            figure_id=f"{self._figure_prefix}-pvalues",
        )

    def _caveats(self) -> list[str]:
        table = self.table
        caveats = interpret.general_caveats(
            n_models=len(table.models),
            n_pairs=len(self.comparisons),
            correction=self.correction,
            higher_is_better=table.higher_is_better,
            loss_name=str(table.loss_name),
            per_record=bool(table.per_record),
        )
        audit = self._audit_context()
        if audit and audit.get("available") and audit.get("poor"):
            caveats.insert(0, audit["reading"])
        if self.partitions in ("balanced", "block-regularized") and self.design.kind == "mx2":
            caveats.append(
                "The calibrated F test and the BCV McNemar test are built for balanced or "
                "block-regularized partitions; their calibration does not carry over to random "
                "partitions."
            )
        if not self.recommendation.names:
            caveats.append(self.recommendation.reason)
        return caveats

    def _references(self) -> list[str]:
        seen: list[str] = []
        for outcome in self.outcomes:
            reference = outcome.result.reference
            if reference and reference not in seen:
                seen.append(reference)
        audit = self._audit_context()
        if audit and audit.get("available"):
            for reference in str(audit["reference"]).split("\n"):
                if reference and reference not in seen:
                    seen.append(reference)
        if any(o.adjusted is not None for o in self.outcomes) and self.correction == "holm":
            seen.append(HOLM_REFERENCE)
        return seen

    # -- rendering -------------------------------------------------------
    def to_html(self, *, standalone: bool = True) -> str:
        """The report as HTML: a standalone page (inline CSS, no external resources) or a fragment."""
        return _render_html(self._context(), standalone=standalone)

    def to_markdown(self) -> str:
        """The report as GitHub-flavoured Markdown (tables; figures are left to HTML)."""
        return _render_markdown(self._context())

    def to_latex(self, *, standalone: bool = True, stars: bool = False) -> str:
        """The report as LaTeX with booktabs tables.

        Parameters
        ----------
        standalone : bool
            A complete document (compiles with pdflatex as is) or, when False,
            the body alone for ``\\input`` into a paper (needs ``booktabs``).
        stars : bool
            Mark p-values with ``*`` (< 0.05), ``**`` (< 0.01), ``***`` (< 0.001)
            and add the legend under each table.
        """
        return _render_latex(self._context(), standalone=standalone, stars=stars)

    def render(self, format: str, **options: Any) -> str:
        """Render in ``format``: ``"html"``, ``"markdown"``/``"md"`` or ``"latex"``/``"tex"``.

        ``options`` are those of :meth:`to_html` (``standalone``) or :meth:`to_latex`
        (``standalone``, ``stars``); Markdown takes none.
        """
        kind = _format_kind(format)
        unknown = sorted(set(options) - set(_RENDER_OPTIONS[kind]))
        if unknown:
            allowed = ", ".join(_RENDER_OPTIONS[kind]) or "none"
            raise CVReportError(
                f"{', '.join(unknown)} does not apply to {kind} output (its options: {allowed})"
            )
        if kind == "html":
            return self.to_html(**options)
        if kind == "markdown":
            return self.to_markdown(**options)
        return self.to_latex(**options)

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        format: str | None = None,
        **options: Any,
    ) -> Path:
        """Write the report to ``path``, atomically; the format follows the suffix.

        ``.html``/``.htm`` → HTML, ``.md`` → Markdown, ``.tex`` → LaTeX (or pass
        ``format``). The text goes to a temporary file in the same folder that is
        then renamed into place, so a reader never sees a half-written report. An
        existing file is kept unless ``overwrite=True``.

        Returns
        -------
        pathlib.Path
            The path written.

        Raises
        ------
        ReportExistsError
            When ``path`` exists and ``overwrite`` is False (a ``FileExistsError``).
        CVReportError
            When the format cannot be told from the suffix.
        OSError
            When the folder does not exist or is not writable.
        """
        target = Path(path)
        if format is None:
            found = FORMATS.get(target.suffix.lower())
            if found is None:
                raise CVReportError(
                    f"cannot tell the report format from {str(target)!r}: use a file name ending "
                    f"in {', '.join(FORMATS)} or pass format='html', 'md' or 'tex'"
                )
            kind = found
        else:
            kind = _format_kind(format)
        if target.is_dir():
            raise CVReportError(
                f"{target} is a folder; give a file name inside it, e.g. "
                f"{target / _DEFAULT_NAMES[kind]}"
            )
        if target.exists() and not overwrite:
            raise ReportExistsError(
                f"{target} exists; pass overwrite=True (--overwrite on the command line) to "
                "replace it",
                target,
            )
        text = self.render(kind, **options)
        _write_atomically(target, text, overwrite=overwrite)
        return target

    # -- display ---------------------------------------------------------
    def _repr_html_(self) -> str:
        return self.to_html(standalone=False)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_latex_(self) -> str | None:
        """LaTeX for Jupyter, only when ``cvreport.options.display.latex`` is on (as pandas does)."""
        from cvreport.options import get_option

        return self.to_latex(standalone=False) if get_option("display.latex") else None

    def _repr_mimebundle_(
        self,
        include: Collection[str] | None = None,
        exclude: Collection[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, str]:
        """Every rich format for one Jupyter display, rendered from one :meth:`context`.

        HTML (a fragment, not a page) and Markdown always; LaTeX only when the
        ``display.latex`` option is on. ``include``/``exclude`` are IPython's
        mimetype filters.
        """
        from cvreport.options import get_option

        wanted = ["text/html", "text/markdown"]
        if get_option("display.latex"):
            wanted.append("text/latex")
        wanted = [
            mime
            for mime in wanted
            if (include is None or mime in include) and (exclude is None or mime not in exclude)
        ]
        if not wanted:
            return {}
        context = self.context()
        renderers = {
            "text/html": lambda: _render_html(context, standalone=False),
            "text/markdown": lambda: _render_markdown(context),
            "text/latex": lambda: _render_latex(context, standalone=False, stars=False),
        }
        return {mime: renderers[mime]() for mime in wanted}

    def __repr__(self) -> str:
        return (
            f"Report({len(self.table.models)} models, {len(self.comparisons)} pairs, "
            f"{len(self.results)} results, design={self.table.design.kind!r}, "
            f"alpha={self.alpha:g}, correction={self.correction!r})"
        )


def report(
    table: ResultsTable | str,
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    tests: str | Sequence[str] = "recommended",
    alpha: float = 0.05,
    correction: str | None = "holm",
    data: pd.DataFrame | None = None,
    title: str | None = None,
    test_options: Mapping[str, Mapping[str, Any]] | None = None,
) -> Report:
    """Shortcut for :class:`Report`: ``cvreport.report(table).save("report.html")``.

    Examples
    --------
    >>> import cvreport
    >>> table = cvreport.ResultsTable.from_formula(
    ...     "loss ~ model | replication + fold", cvreport.load_example())
    >>> rep = cvreport.report(table, pairs=[("logistic_regression", "decision_tree")])
    >>> [(r.test, round(r.statistic, 4), round(r.pvalue, 3)) for r in rep.results]
    [('combined_ftest_5x2cv', 6.3509, 0.027)]
    >>> rep.to_markdown().startswith("# ")
    True
    """
    return Report(
        table,
        pairs=pairs,
        tests=tests,
        alpha=alpha,
        correction=correction,
        data=data,
        title=title,
        test_options=test_options,
    )


# -- helpers ------------------------------------------------------------------
def _check_correction(correction: str | None) -> str | None:
    if correction is None or correction == "none":
        return None
    if correction not in CORRECTIONS:
        raise CVReportError(
            f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}"
        )
    return correction


def _default_title(pairs: Sequence[tuple[Any, Any]]) -> str:
    if len(pairs) == 1:
        return f"Comparison of {pairs[0][0]} and {pairs[0][1]}"
    models = {m for pair in pairs for m in pair}
    return f"Comparison of {len(models)} models"


def _label(name: str) -> str:
    try:
        return selection.get_spec(name).label
    except CVReportError:
        return name


def _replace(outcome: TestOutcome, **changes: Any) -> TestOutcome:
    from dataclasses import replace

    return replace(outcome, **changes)


def _finite(value: Any) -> bool:
    try:
        return value is not None and not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _infinite(value: Any) -> bool:
    """Whether a statistic is ±inf (the zero-variance convention of docs/methods.md)."""
    try:
        return math.isinf(float(value))
    except (TypeError, ValueError):
        return False


def _float_or_none(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _audit(table: Any) -> Any:
    """Run the overlap audit (a seam for tests)."""
    from cvreport.partitions.audit import audit_overlap

    return audit_overlap(table)


def _num(value: float) -> str:
    from cvreport.rendering.formatting import format_number

    return format_number(value)


def _version() -> str:
    from cvreport import __version__

    return __version__


def _posterior(result: TestResult) -> Posterior | None:
    """Read the three probabilities from a Bayesian result, whatever its attribute names."""
    rope = _float_or_none(getattr(result, "rope", None))
    for names in (
        ("prob_a_better", "prob_equivalent", "prob_b_better"),
        ("p_a_better", "p_equivalent", "p_b_better"),
        ("prob_left", "prob_rope", "prob_right"),
        ("p_left", "p_rope", "p_right"),
    ):
        if all(hasattr(result, n) for n in names):
            left, middle, right = (float(getattr(result, n)) for n in names)
            return Posterior(left, middle, right, rope)
    probabilities = getattr(result, "probabilities", None)
    if probabilities is not None and len(probabilities) == 3:
        left, middle, right = (float(p) for p in probabilities)
        return Posterior(left, middle, right, rope)
    return None


_AUDIT_COLUMNS = {
    "replication_a": ("replication", "text"),
    "replication_b": ("replication", "text"),
    "n": ("n", "value"),
    "overlap": ("X", "value"),
    "expected": ("E X", "number"),
    "z": ("Z", "number"),
    "pvalue": ("P(Z ≥ z)", "pvalue"),
}


def _audit_pairs(audit: Any) -> dict[str, Any] | None:
    """The audit's per-pair table as column labels, kinds and rows of raw values."""
    pairs = getattr(audit, "pairs", None)
    if pairs is None:
        return None
    frame = pairs if isinstance(pairs, pd.DataFrame) else pd.DataFrame(list(pairs))
    if frame.empty:
        return None
    columns = [str(c) for c in frame.columns]
    labels = [_AUDIT_COLUMNS.get(c, (c, "value"))[0] for c in columns]
    kinds = [_AUDIT_COLUMNS.get(c, (c, "value"))[1] for c in columns]
    rows = [
        [_plain_value(v, kind) for v, kind in zip(row, kinds)]
        for row in frame.itertuples(index=False, name=None)
    ]
    return {"columns": labels, "kinds": kinds, "rows": rows}


def _plain_value(value: Any, kind: str) -> Any:
    if kind == "text":
        return str(value)
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value)
    return value


def _model_losses(table: ResultsTable) -> list[dict[str, Any]]:
    """Mean, SD, min and max over the folds per model; a negated score is shown as the score."""
    errors = table.fold_errors()
    sign = -1.0 if table.higher_is_better else 1.0
    rows = []
    for model in table.models:
        losses = sign * errors.loc[errors["model"] == model, "loss"].to_numpy(dtype=float)
        rows.append(
            {
                "model": str(model),
                "mean": float(losses.mean()) if losses.size else None,
                "sd": float(losses.std(ddof=1)) if losses.size > 1 else None,
                "min": float(losses.min()) if losses.size else None,
                "max": float(losses.max()) if losses.size else None,
                "folds": int(losses.size),
            }
        )
    return rows


def _confusion_metrics(table: ResultsTable) -> dict[str, Any] | None:
    """Accuracy, balanced accuracy and macro precision/recall/F1 per model, pooled over folds."""
    predictions = getattr(table, "predictions", None)
    frame = predictions() if callable(predictions) else None
    if frame is None or len(frame) == 0:
        return None
    rows = []
    classes = sorted(pd.unique(pd.concat([frame["truth"], frame["prediction"]])).tolist(), key=str)
    for model in table.models:
        sub = frame[frame["model"] == model]
        truth = sub["truth"].to_numpy()
        predicted = sub["prediction"].to_numpy()
        recalls, precisions, f1s = [], [], []
        for cls in classes:
            tp = int(np.sum((truth == cls) & (predicted == cls)))
            actual = int(np.sum(truth == cls))
            called = int(np.sum(predicted == cls))
            recall = tp / actual if actual else None
            precision = tp / called if called else None
            if recall is not None:
                recalls.append(recall)
            if precision is not None:
                precisions.append(precision)
            if recall is not None and precision is not None and recall + precision > 0:
                f1s.append(2 * precision * recall / (precision + recall))
            elif actual or called:
                f1s.append(0.0)
        rows.append(
            {
                "model": str(model),
                "n": len(sub),
                "accuracy": float(np.mean(truth == predicted)) if len(sub) else None,
                "balanced_accuracy": float(np.mean(recalls)) if recalls else None,
                "precision": float(np.mean(precisions)) if precisions else None,
                "recall": float(np.mean(recalls)) if recalls else None,
                "f1": float(np.mean(f1s)) if f1s else None,
            }
        )
    return {"classes": [str(c) for c in classes], "rows": rows}


_RENDER_OPTIONS: dict[str, tuple[str, ...]] = {
    "html": ("standalone",),
    "markdown": (),
    "latex": ("standalone", "stars"),
}
_DEFAULT_NAMES = {"html": "report.html", "markdown": "report.md", "latex": "report.tex"}


def _format_kind(format: str) -> str:
    """``"html"``, ``"markdown"`` or ``"latex"`` for a format name or suffix."""
    kind = _FORMAT_ALIASES.get(str(format).lower().lstrip("."))
    if kind is None:
        raise CVReportError(
            f"unknown report format {format!r}; choose html, md (markdown) or tex (latex)"
        )
    return kind


def _render_html(context: Mapping[str, Any], *, standalone: bool) -> str:
    from cvreport.rendering.environment import html_environment

    name = "report.html.j2" if standalone else "report_fragment.html.j2"
    return html_environment().get_template(name).render(context)


def _render_markdown(context: Mapping[str, Any]) -> str:
    from cvreport.rendering.environment import text_environment

    return text_environment().get_template("report.md.j2").render(context)


def _render_latex(context: Mapping[str, Any], *, standalone: bool, stars: bool) -> str:
    from cvreport.rendering.environment import latex_environment

    # a standalone document keeps each table where it belongs (float's [H]);
    # a fragment leaves placement to the paper
    placement = "H" if standalone else "htbp"
    extended = dict(context) | {"standalone": standalone, "stars": stars, "placement": placement}
    return latex_environment().get_template("report.tex.j2").render(extended)


def _write_atomically(target: Path, text: str, *, overwrite: bool) -> None:
    """Write ``text`` to a temporary file beside ``target`` and move it into place."""
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(
            f"cannot write {target}: the folder {folder} does not exist; create it first"
        )
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:  # name the report, not the temporary file
        raise type(exc)(exc.errno, exc.strerror, os.fspath(target)) from exc
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        if overwrite:
            os.replace(temporary, target)
        else:
            try:
                os.link(temporary, target)  # fails if the target appeared meanwhile
            except FileExistsError:
                raise ReportExistsError(
                    f"{target} exists; pass overwrite=True (--overwrite on the command line) "
                    "to replace it",
                    target,
                ) from None
            except OSError:  # a file system without hard links
                if target.exists():
                    raise ReportExistsError(
                        f"{target} exists; pass overwrite=True to replace it", target
                    ) from None
                os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)
