"""The result family: every object a test, an audit or a comparison over data sets returns.

One base, :class:`Result`, gives every member the same face: Jupyter's rich
display, ``__repr__``, ``to_frame(alpha)`` (one tidy row), ``summary(alpha)``
(a :class:`~cvreport.rendering.summary.Summary` in which every level is
``alpha``'s) and one check of ``alpha`` (:func:`cvreport.option_values.check_alpha`). Below it:

* :class:`HypothesisTestResult`: statistic, p-value, df, a reference
  :class:`~cvreport.distributions.Distribution`, the alternative and
  ``reject(alpha)``; it unpacks as ``statistic, pvalue = res`` (the Friedman
  test, the Wilcoxon test over data sets, the overlap audit);
* :class:`TestResult`: a test comparing model A with model B, whose estimate is
  in the user's metric A − B and direction, with ``conf_int(alpha)`` of the
  estimate shown beside it; :class:`TTestResult` and :class:`NormalTestResult`
  are its t and z kinds, and every test of :mod:`cvreport.methods` returns one.

The posteriors over data sets (:mod:`cvreport.multi`) are plain :class:`Result`
members. A result says what went wrong in ``warnings`` instead of returning a
silent NaN. Statistics build their summaries from the plain data of
:mod:`cvreport.summary_data`; :mod:`cvreport.rendering` formats them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Self

import pandas as pd

from cvreport.data.design import DesignKind
from cvreport.data.metrics import reader_name
from cvreport.distributions import NORMAL, Distribution, T, as_distribution
from cvreport.distributions import normal_interval as _normal_interval
from cvreport.distributions import t_interval as _t_interval
from cvreport.errors import CVReportError, IntervalUndefinedError
from cvreport.option_values import check_alpha
from cvreport.rendering.display import SummaryDisplay
from cvreport.rendering.summary import Summary
from cvreport.summary_data import SummaryRow, SummaryTable

__all__ = [
    "ALTERNATIVES",
    "MARGIN_ALTERNATIVES",
    "HypothesisTestResult",
    "NormalTestResult",
    "Result",
    "TTestResult",
    "TestResult",
    "check_alternative",
    "level_text",
    "mirrored_alternative",
]

ALTERNATIVES = ("two-sided", "less", "greater")
#: Alternatives tested against a ``margin``: two one-sided tests (Schuirmann 1987) or one.
MARGIN_ALTERNATIVES = ("equivalent", "non-inferior")

_MIRRORED = {"two-sided": "two-sided", "less": "greater", "greater": "less"}


def mirrored_alternative(alternative: str) -> str:
    """The alternative for the negated differences: "less" ↔ "greater".

    >>> mirrored_alternative("less"), mirrored_alternative("two-sided")
    ('greater', 'two-sided')
    """
    return _MIRRORED[check_alternative(alternative)]


def _negated(value: Any) -> Any:
    """``-value`` for numbers, arrays and nested tuples; ``None`` stays ``None`` and 0 stays +0."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return tuple(_negated(item) for item in value)
    return 0.0 - value


def _interval_hint(kind: DesignKind | None) -> str:
    """Tests that give an interval on the difference and run on a design of this kind."""
    if kind is None:
        return "use a t-based test of the table's design for an interval on the difference"
    return kind.interval_hint


def level_text(level: float) -> str:
    """A confidence level as a percentage with the digits it needs.

    A level strictly between 0 and 1 never reads as 100% or 0%: it gets the
    digits that tell it apart (1 − 10⁻⁷ is 99.99999%, not 100%).

    >>> level_text(0.95), level_text(0.99), level_text(0.975), level_text(0.9)
    ('95%', '99%', '97.5%', '90%')
    >>> level_text(1 - 1e-7), level_text(1 - 2.5e-9)
    ('99.99999%', '99.9999998%')
    """
    percent = 100.0 * level
    decimals = 6
    text = f"{round(percent, decimals):g}"
    while 0 < level < 1 and float(text) in (0.0, 100.0) and decimals < 15:
        decimals += 1
        text = f"{round(percent, decimals):.{decimals}f}".rstrip("0").rstrip(".")
    return f"{text}%"


def check_alternative(alternative: str) -> str:
    """Validate scipy's ``alternative`` words, about the sign of the estimate A − B.

    "less" means H1: metric(A) − metric(B) < 0 (A has the lower value of the metric:
    the better model for a loss, the worse for a score); "greater" the reverse.
    """
    if alternative not in ALTERNATIVES:
        raise CVReportError(
            f"alternative must be one of {ALTERNATIVES}, got {alternative!r}; "
            "'less' means H1: model A has the lower value of the metric (A − B < 0), "
            "'greater' the higher"
        )
    return alternative


@dataclass(frozen=True, kw_only=True, repr=False)
class Result(SummaryDisplay):
    """The base of every result: display, ``to_frame(alpha)``, ``summary(alpha)``, one alpha check.

    A member fills :meth:`_frame_row` (its one row of :meth:`to_frame`) and
    :meth:`_summary_rows` (and, when it has them, :meth:`_summary_tables`); the
    base checks ``alpha`` once and builds both. Jupyter shows the summary
    (``_repr_html_``); ``str()`` is its text.

    Attributes
    ----------
    method : str
        Human-readable name of the method.
    reference : str
        Citation of the paper that defines it.
    warnings : tuple of str
        What was degenerate or doubtful, in words.
    notes : tuple of str
        What to keep in mind when reading it.

    Examples
    --------
    >>> from cvreport import arrays
    >>> res = arrays.mcnemar(12, 4)
    >>> isinstance(res, Result), res.to_frame(0.01)["alpha"].item()
    (True, 0.01)
    >>> "reject H0 at α = 0.01" in res.summary(0.01).as_text()
    True
    """

    method: str = ""
    reference: str = ""
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    # -- tabular view ----------------------------------------------------
    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """One tidy row, so that many results concatenate into one table.

        Every decision and interval in it is at level ``alpha``.
        """
        return pd.DataFrame([self._frame_row(check_alpha(alpha))])

    def _frame_row(self, alpha: float) -> dict[str, Any]:  # pragma: no cover - members define it
        raise NotImplementedError

    # -- summary ---------------------------------------------------------
    def summary(self, alpha: float = 0.05) -> Summary:
        """A :class:`~cvreport.rendering.summary.Summary` with text, Markdown, HTML and LaTeX views.

        Every level in it is ``alpha``'s: the ``1 − alpha`` interval (``1 − 2 alpha``
        against a margin) beside the estimate it is an interval of, and the decision
        "reject H0 at α = alpha".

        Examples
        --------
        >>> from cvreport import arrays
        >>> text = arrays.paired_ttest_kfold([0.02, 0.01, 0.03, 0.0, 0.02]).summary(0.01).as_text()
        >>> "99% interval" in text and "reject H0 at α = 0.01" in text and "95%" not in text
        True
        """
        alpha = check_alpha(alpha)
        return Summary(
            title=self._summary_title(),
            rows=tuple(self._summary_rows(alpha)),
            tables=tuple(self._summary_tables(alpha)),
            warnings=self.warnings,
            notes=self._summary_notes(alpha),
            reference=self.reference or None,
            interpretation=self._interpretation(),
        )

    def _summary_title(self) -> str:
        return self.method or type(self).__name__

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:  # pragma: no cover
        raise NotImplementedError

    def _summary_tables(self, alpha: float = 0.05) -> list[SummaryTable]:
        return []

    def _summary_notes(self, alpha: float = 0.05) -> tuple[str, ...]:
        """The notes the summary at ``alpha`` shows (a member may add one about its level)."""
        return self.notes

    def _interpretation(self) -> str | None:
        return None

    def __str__(self) -> str:
        return self.summary().as_text()

    def to_dict(self) -> dict[str, Any]:
        """Every field as a plain dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, kw_only=True, repr=False)
class HypothesisTestResult(Result):
    """A test's statistic and p-value: unpacks as ``statistic, pvalue = res``.

    Attributes
    ----------
    statistic : float
        The test statistic (may be ``±inf`` under a documented degenerate convention).
    pvalue : float
        The p-value under ``alternative``.
    df : float, tuple of float or None
        Degrees of freedom; a ``(numerator, denominator)`` pair for F tests.
    distribution : Distribution
        The reference distribution: a :class:`~cvreport.distributions.Distribution`,
        which prints as its name (``"t"``, ``"F"``, ``"chi2"``, ``"normal"``,
        ``"binomial"``) and knows whether the statistic is signed. A name given
        as a string becomes the known value of that name.
    alternative : str
        ``"two-sided"``, ``"less"`` or ``"greater"`` (see :class:`TestResult`).
    nobs : int or None
        Number of observations the statistic is built from.
    test : str
        Name of the cvreport function that produced the result.
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    df: float | tuple[float, float] | None = None
    distribution: Distribution | str = ""
    alternative: str = "two-sided"
    nobs: int | None = None
    test: str = ""
    #: How the summary prints the statistic: "number", or "count" for a count or a
    #: rank sum (whole numbers without decimals).
    statistic_kind: ClassVar[str] = "number"

    def __post_init__(self) -> None:
        if not isinstance(self.distribution, Distribution):
            object.__setattr__(self, "distribution", as_distribution(self.distribution))

    def __iter__(self) -> Iterator[float]:
        yield self.statistic
        yield self.pvalue

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> float:
        return (self.statistic, self.pvalue)[index]

    def reject(self, alpha: float = 0.05) -> bool:
        """Whether H0 is rejected at level ``alpha`` (``pvalue <= alpha``)."""
        return bool(self.pvalue <= check_alpha(alpha))

    @property
    def degenerate(self) -> bool:
        """Whether a degenerate-data convention was applied (see ``warnings``)."""
        return bool(self.warnings)

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        df1, df2 = self.df if isinstance(self.df, tuple) else (self.df, None)
        return {
            "test": self.test,
            "method": self.method,
            "statistic": self.statistic,
            "df": df1,
            "df2": df2,
            "distribution": self.distribution,
            "alternative": self.alternative,
            "pvalue": self.pvalue,
            "reject": self.reject(alpha),
            "alpha": alpha,
            "nobs": self.nobs,
            "warnings": " | ".join(self.warnings),
        }

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = [
            SummaryRow("statistic", self.statistic, self.statistic_kind),
            SummaryRow("distribution", self.distribution, "text"),
            SummaryRow("df", self.df, "df"),
            SummaryRow("p-value", self.pvalue, "pvalue"),
            SummaryRow("observations", self.nobs, "value"),
            SummaryRow(f"reject H0 at α = {alpha:g}", self.reject(alpha), "value"),
        ]
        return [r for r in rows if r.value is not None]

    def __repr__(self) -> str:
        df = f", df={self.df!r}" if self.df is not None else ""
        return (
            f"{type(self).__name__}(test={self.test!r}, statistic={self.statistic:.6g}, "
            f"pvalue={self.pvalue:.6g}{df}, alternative={self.alternative!r})"
        )


@dataclass(frozen=True, kw_only=True, repr=False)
class TestResult(HypothesisTestResult):
    """The outcome of one hypothesis test comparing model A with model B.

    Attributes
    ----------
    statistic : float
        The test statistic (may be ``±inf`` under a documented degenerate convention).
    pvalue : float
        The p-value under ``alternative``.
    df : float, tuple of float or None
        Degrees of freedom; a ``(numerator, denominator)`` pair for F tests.
    distribution : Distribution
        The reference distribution; it prints as its name (``"t"``, ``"F"``, ``"chi2"``,
        ``"normal"``, ``"binomial"``) and knows whether the statistic is signed.
    alternative : str
        ``"two-sided"``, ``"less"`` (H1: A has the lower value of the metric) or ``"greater"``.
    estimate : float or None
        The metric of A minus the metric of B, in the metric's own units and
        direction: for a loss (``direction="lower"``) a positive estimate means A
        is worse, for a score (``direction="higher"``) that A is better.
    nobs : int or None
        Number of observations the statistic is built from (folds or records).
    method : str
        Human-readable name of the test.
    test : str
        Name of the cvreport function that produced the result.
    reference : str
        Citation of the paper that defines the test.
    design : str or None
        The cross-validation design the data came from, in words (as printed).
    design_kind : DesignKind or None
        Its kind as a :class:`~cvreport.data.design.DesignKind` (None when arrays fit
        several designs); it names the tests to use when this one gives no interval.
    models : tuple of str or None
        ``(A, B)``.
    warnings : tuple of str
        What was degenerate or doubtful, and which convention was applied.
    margin : float or None
        For ``alternative="equivalent"`` or ``"non-inferior"``: the margin in the
        metric's units (None otherwise). "equivalent" is H1: −margin < A − B < margin;
        "non-inferior" is H1: A is not worse than B by ``margin`` or more
        (A − B > −margin for a score, A − B < margin for a loss).
    statistic_lower, statistic_upper : float or None
        With a margin: the statistics of the one-sided tests of H0: A − B ≤ −margin
        and of H0: A − B ≥ margin (for a t or z test ``(estimate ± margin) / SE``).
    pvalue_lower, pvalue_upper : float or None
        Their one-sided p-values; ``pvalue`` is the larger of the two for
        "equivalent" and the one in the user's direction for "non-inferior".
    notes : tuple of str
        Labels such as "not recommended" or "extension".
    loss_name : str
        Name of the metric the estimate is in.
    direction : {"lower", "higher"}
        Whether a lower (a loss) or a higher (a score) value of the metric is better.

    Examples
    --------
    >>> from cvreport import arrays
    >>> res = arrays.mcnemar(12, 4)          # every test returns a TestResult
    >>> statistic, pvalue = res
    >>> statistic, round(pvalue, 6), res.df, res.reject(0.05)
    (3.0625, 0.080118, 1.0, False)
    >>> res.to_frame()[["test", "statistic", "distribution"]].to_dict("records")
    [{'test': 'mcnemar', 'statistic': 3.0625, 'distribution': 'chi2'}]
    >>> res.design, res.design_kind            # the design in words, and its kind
    ('hold-out (one validation fold)', 'holdout')
    """

    estimate: float | None = None
    design: str | None = None
    design_kind: DesignKind | None = None
    models: tuple[str, str] | None = None
    loss_name: str = "loss"
    direction: str = "lower"
    margin: float | None = None
    statistic_lower: float | None = None
    statistic_upper: float | None = None
    pvalue_lower: float | None = None
    pvalue_upper: float | None = None

    #: What :meth:`conf_int` is an interval of when it is not ``estimate`` (in words;
    #: the quantity is then the result's ``center``).
    interval_about: ClassVar[str | None] = None
    #: How the estimate is formed from the metric: "mean " for a mean over folds or
    #: records, "" for one value on one test set (an AUC, a bootstrapped metric).
    _estimate_words: ClassVar[str] = "mean "

    #: Fields holding a difference A − B (or its sign); negated by :meth:`_negated`.
    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate",)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.design_kind is not None:  # a plain name ("kfold") becomes the value
            object.__setattr__(self, "design_kind", DesignKind.named(self.design_kind))

    # -- decisions -------------------------------------------------------
    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """Confidence interval for the difference A − B in the metric at level ``1 - alpha``.

        With a margin (``alternative="equivalent"`` or ``"non-inferior"``) it is
        the two-sided interval at level ``1 − 2 alpha``, the one the one-sided
        tests at level ``alpha`` compare with the margin (Schuirmann 1987): the
        tests reject when it lies within ±margin ("equivalent"), or on the better
        side of the margin ("non-inferior").

        Raises
        ------
        IntervalUndefinedError
            When the method defines no interval.
        """
        alpha = check_alpha(alpha)
        if self.alternative in MARGIN_ALTERNATIVES:
            if not alpha < 0.5:
                raise CVReportError(
                    f"alpha must lie below 0.5 for a test against a margin (its interval has "
                    f"level 1 − 2α), got {alpha!r}"
                )
            interval = replace(self, alternative="two-sided")._conf_int(2.0 * alpha)
        else:
            interval = self._conf_int(alpha)
        if interval is None:
            raise IntervalUndefinedError(
                f"{self.method or type(self).__name__} defines no confidence interval; "
                + _interval_hint(self.design_kind)
            )
        return interval

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        """Override in subclasses whose method defines an interval."""
        return None

    @property
    def has_conf_int(self) -> bool:
        """Whether :meth:`conf_int` is defined for this result."""
        return self._conf_int(0.05) is not None

    def interval_level(self, alpha: float = 0.05) -> float:
        """The level of :meth:`conf_int` at ``alpha``: ``1 − 2α`` with a margin, else ``1 − α``."""
        return 1.0 - (2.0 * alpha if self.alternative in MARGIN_ALTERNATIVES else alpha)

    def _negated(self) -> Self:
        """The result for the negated differences B − A, computed from this one.

        A score is tested as a negated loss; this turns such a result into the
        score's own units: every signed field is negated, a statistic with a
        signed distribution (t, normal) changes sign, "less" and "greater" swap,
        and p-values stay. Subclasses whose statistic is not simply odd in the
        differences override :meth:`_negated_changes`.
        """
        return replace(self, **self._negated_changes())

    def _negated_changes(self) -> dict[str, Any]:
        changes = {name: _negated(getattr(self, name)) for name in self._signed_fields}
        if as_distribution(self.distribution).signed:
            changes["statistic"] = _negated(self.statistic)
        changes["alternative"] = _MIRRORED.get(self.alternative, self.alternative)
        if self.margin is not None:  # H0: A − B ≤ −margin becomes H0: B − A ≥ margin
            changes["statistic_lower"] = _negated(self.statistic_upper)
            changes["statistic_upper"] = _negated(self.statistic_lower)
            changes["pvalue_lower"] = self.pvalue_upper
            changes["pvalue_upper"] = self.pvalue_lower
        return changes

    def estimate_interval(self, alpha: float = 0.05) -> tuple[float, float] | None:
        """The :meth:`conf_int` at ``alpha`` when it is an interval of ``estimate``, else None.

        A test whose interval is about another quantity (Dietterich's 5×2cv t
        inverts an interval about the first split difference) gives None here.
        """
        if self.interval_about is not None or not self.has_conf_int:
            return None
        return self.conf_int(alpha)

    # -- tabular view ----------------------------------------------------
    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """One tidy row: so that many results concatenate into one table.

        ``ci_low`` and ``ci_high`` are the ``1 − alpha`` interval of ``estimate``
        (``1 − 2 alpha`` against a margin, see :meth:`interval_level`), NaN when
        the test gives no interval for it; ``alpha`` and ``reject`` are at ``alpha``.
        """
        return super().to_frame(alpha)

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        df1, df2 = self.df if isinstance(self.df, tuple) else (self.df, None)
        interval = self.estimate_interval(alpha)
        low, high = interval if interval is not None else (math.nan, math.nan)
        row = {
            "test": self.test,
            "method": self.method,
            "model_a": self.models[0] if self.models else None,
            "model_b": self.models[1] if self.models else None,
            "statistic": self.statistic,
            "df": df1,
            "df2": df2,
            "distribution": self.distribution,
            "alternative": self.alternative,
            "pvalue": self.pvalue,
            "reject": self.reject(alpha),
            "metric": self.loss_name,
            "direction": self.direction,
            "alpha": alpha,
            "estimate": self.estimate,
            "ci_low": low,
            "ci_high": high,
            "ci_level": self.interval_level(alpha),
            "nobs": self.nobs,
            "design": self.design,
            "warnings": " | ".join(self.warnings),
        }
        if self.margin is not None:
            row.update(
                {
                    "margin": self.margin,
                    "statistic_lower": self.statistic_lower,
                    "pvalue_lower": self.pvalue_lower,
                    "statistic_upper": self.statistic_upper,
                    "pvalue_upper": self.pvalue_upper,
                }
            )
        return row

    # -- summary ---------------------------------------------------------
    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = [
            SummaryRow(
                "models (A vs B)", " vs ".join(self.models) if self.models else None, "text"
            ),
            SummaryRow("design", self.design, "text"),
            SummaryRow("statistic", self.statistic, self.statistic_kind),
            SummaryRow("distribution", self.distribution, "text"),
            SummaryRow("df", self.df, "df"),
            SummaryRow("alternative", self.alternative, "text"),
            SummaryRow("p-value", self.pvalue, "pvalue"),
            SummaryRow(
                f"estimate ({self._estimate_words}{reader_name(self.loss_name)} A − B)",
                self.estimate,
                "number",
            ),
        ]
        if self.margin is not None:
            rows.extend(self._margin_rows(alpha))
        elif self.has_conf_int:
            rows.extend(self._interval_rows(alpha))
        if self.models and self.estimate is not None:
            rows.append(
                SummaryRow("better", f"{self.direction} {reader_name(self.loss_name)}", "text")
            )
        rows.extend(self._extra_rows())
        rows.append(SummaryRow("observations", self.nobs, "value"))
        rows.append(SummaryRow(f"reject H0 at α = {alpha:g}", self.reject(alpha), "value"))
        return [r for r in rows if r.value is not None]

    def _interval_rows(self, alpha: float) -> list[SummaryRow]:
        """The ``1 − alpha`` interval, shown right after the estimate it is an interval of."""
        level = level_text(self.interval_level(alpha))
        return [SummaryRow(f"{level} interval", self.conf_int(alpha), "value")]

    def _margin_words(self) -> str:
        """H1 against the margin in the metric's direction: ``|A − B| < 0.005`` or ``A − B > −0.005``."""
        margin = float(self.margin or 0.0)
        if self.alternative == "equivalent":
            return f"H1: |A − B| < {margin:g}"
        if self.direction == "higher":
            return f"H1: A − B > −{margin:g} (A not worse)"
        return f"H1: A − B < {margin:g} (A not worse)"

    def _margin_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        """The ``1 − 2α`` interval (beside the estimate), the margin and the one-sided tests
        (both for equivalence; for non-inferiority the one that decides)."""
        margin = float(self.margin or 0.0)
        score = self.direction == "higher"
        rows = []
        where = None
        if self.has_conf_int:
            low, high = self.conf_int(alpha)
            level = level_text(self.interval_level(alpha))
            if self.alternative == "equivalent":
                inside = -margin < low and high < margin
                where = f"within ±{margin:g}" if inside else f"not within ±{margin:g}"
            elif score:
                where = f"above −{margin:g}" if low > -margin else f"not above −{margin:g}"
            else:
                where = f"below {margin:g}" if high < margin else f"not below {margin:g}"
            rows.append(SummaryRow(f"{level} interval", (low, high), "value"))
        lower = [
            SummaryRow(f"H0: A − B ≤ −{margin:g}: statistic", self.statistic_lower, "number"),
            SummaryRow(f"H0: A − B ≤ −{margin:g}: p-value", self.pvalue_lower, "pvalue"),
        ]
        upper = [
            SummaryRow(f"H0: A − B ≥ {margin:g}: statistic", self.statistic_upper, "number"),
            SummaryRow(f"H0: A − B ≥ {margin:g}: p-value", self.pvalue_upper, "pvalue"),
        ]
        if self.alternative == "non-inferior":  # one test decides: the one in "not worse"
            halves = lower if score else upper
        else:
            halves = lower + upper
        rows += [SummaryRow("margin", self._margin_words(), "text"), *halves]
        if where is not None:
            level = level_text(self.interval_level(alpha))
            rows.append(SummaryRow(f"{level} interval against the margin", where, "text"))
        return rows

    def _extra_rows(self) -> list[SummaryRow]:
        """Rows a test adds to the summary, shown before the observations and the decision."""
        return []


@dataclass(frozen=True, kw_only=True, repr=False)
class TTestResult(TestResult):
    """A Student t test whose interval is ``center ± t quantile × standard_error``.

    Attributes
    ----------
    center : float
        The numerator of the statistic (the quantity whose interval :meth:`conf_int` gives).
    standard_error : float
        The denominator of the statistic.

    Examples
    --------
    >>> res = TTestResult(statistic=2.0, pvalue=0.1, df=4.0, estimate=1.0, center=1.0,
    ...                   standard_error=0.5)
    >>> [round(x, 4) for x in res.conf_int(0.05)], res.distribution.signed
    ([-0.3882, 2.3882], True)
    """

    center: float = math.nan
    standard_error: float = math.nan
    distribution: Distribution | str = T

    _signed_fields: ClassVar[tuple[str, ...]] = ("estimate", "center")

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        df = self.df
        if not isinstance(df, (int, float)) or df <= 0 or not math.isfinite(self.standard_error):
            return None
        return _t_interval(self.center, self.standard_error, float(df), alpha, self.alternative)

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        rows = super()._summary_rows(alpha)
        rows.insert(3, SummaryRow("standard error", self.standard_error, "number"))
        return rows


@dataclass(frozen=True, kw_only=True, repr=False)
class NormalTestResult(TestResult):
    """A z test whose interval is ``estimate ± z quantile × standard_error``.

    Attributes
    ----------
    standard_error : float
        The standard error of the estimate (no interval when it is not positive).

    Examples
    --------
    >>> res = NormalTestResult(statistic=2.0, pvalue=0.0455, estimate=0.2, standard_error=0.1)
    >>> [round(x, 4) for x in res.conf_int(0.05)]
    [0.004, 0.396]
    """

    standard_error: float = math.nan
    distribution: Distribution | str = NORMAL

    def _conf_int(self, alpha: float) -> tuple[float, float] | None:
        if not (self.standard_error > 0 and self.estimate is not None):
            return None
        return _normal_interval(self.estimate, self.standard_error, alpha, self.alternative)
