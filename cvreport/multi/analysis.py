"""Everything the appendix of a many-data-sets comparison needs, computed once.

:func:`compare_datasets` takes a :class:`~cvreport.data.datasets.DatasetsTable`
(or a data sets × models frame of summary scores) and returns a
:class:`DatasetsAnalysis`: each model's mean and spread per data set, the
per-data-set tests and wins/ties/losses against the baseline
(:mod:`cvreport.multi.per_dataset`), the average ranks, the Friedman test
with the Iman–Davenport F, the Nemenyi critical difference and its cliques (and
Bonferroni–Dunn's against a baseline), Wilcoxon signed-rank tests of pairs with
Holm or Bergmann–Hommel, and Bayesian signed-rank tests with a rope. It holds
numbers only; :mod:`cvreport.reporting.multi_report` renders them.
"""

from __future__ import annotations

import itertools
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from cvreport.data.datasets import DatasetsTable
from cvreport.data.direction import check_direction
from cvreport.data.labels import labels_named
from cvreport.data.metric import Direction, Metric
from cvreport.data.validation import show
from cvreport.errors import CVReportError, DataError
from cvreport.multi.bayesian import (
    DEFAULT_SAMPLES,
    BayesianSignedRankResult,
    bayesian_signed_rank_pairs,
    check_seed,
)
from cvreport.multi.corrections import check_correction
from cvreport.multi.effect_sizes import pairwise_effect_sizes
from cvreport.multi.friedman import (
    CriticalDifference,
    FriedmanResult,
    critical_difference,
    friedman_test,
    nemenyi_cliques,
)
from cvreport.multi.pairwise import BERGMANN_HOMMEL_MAX_MODELS, pairwise_wilcoxon
from cvreport.multi.per_dataset import PerDatasetTests, per_dataset_tests
from cvreport.multi.ranks import score_matrix
from cvreport.option_values import bool_option, check_alpha

__all__ = ["DatasetsAnalysis", "compare_datasets"]


@dataclass(frozen=True)
class DatasetsAnalysis:
    """The statistics of a comparison of k models on N data sets.

    Attributes
    ----------
    metric : Metric
        What the scores measure and which way is better.
    means, sds : pandas.DataFrame
        Data sets × models mean and standard deviation over folds (sd NaN when
        there is one value).
    designs : mapping
        Each data set's design in words (read-only).
    baseline : str or None
        The proposed model, or None when every pair is compared.
    alpha : float
        Level of every decision.
    friedman : FriedmanResult
        Average ranks, χ²_F and Iman–Davenport F_F.
    nemenyi : CriticalDifference
        Nemenyi CD and cliques.
    bonferroni_dunn : CriticalDifference or None
        Against the baseline.
    wilcoxon : pandas.DataFrame
        Pairwise Wilcoxon signed-rank tests with adjusted p-values.
    wilcoxon_correction : str
        The correction applied to them.
    bayesian : tuple of BayesianSignedRankResult
        Bayesian signed-rank tests (baseline against each model, or every pair).
    per_dataset : PerDatasetTests or None
        Each data set's own tests (None for one score per data set).
    notes : tuple of str
        Where assumptions fail, in words.
    wilcoxon_cliques : tuple of tuple
        With every pair compared: maximal runs of models, consecutive in average
        rank, that no adjusted Wilcoxon test separates (Benavoli, Corani and
        Mangili 2016 prefer them to the mean-rank cliques).
    effect_sizes : pandas.DataFrame or None
        Cohen's d, Hedges' g and Cliff's δ of each pair over the data sets, with
        intervals at 1 − α and magnitude words
        (:func:`cvreport.multi.effect_sizes.pairwise_effect_sizes`), A − B in the
        metric as given; a ``favours`` column names the model the effect favours
        in the metric's direction.
    table : DatasetsTable or None
        The table compared (None for a frame of summary scores).

    The value is frozen: its attributes cannot be rebound, ``designs`` is a
    read-only mapping and ``bayesian`` a tuple; a report renders it and never
    recomputes it.
    """

    metric: Metric
    means: pd.DataFrame
    sds: pd.DataFrame
    designs: Mapping[Any, str]
    baseline: Any
    alpha: float
    friedman: FriedmanResult
    nemenyi: CriticalDifference
    bonferroni_dunn: CriticalDifference | None
    wilcoxon: pd.DataFrame
    wilcoxon_correction: str
    bayesian: tuple[BayesianSignedRankResult, ...]
    per_dataset: PerDatasetTests | None
    correction: str | None
    notes: tuple[str, ...] = field(default=())
    wilcoxon_cliques: tuple[tuple[Any, ...], ...] = field(default=())
    effect_sizes: pd.DataFrame | None = None
    table: DatasetsTable | None = None

    def __post_init__(self) -> None:
        # read-only containers, so that the frozen value cannot change underneath a report
        object.__setattr__(self, "designs", MappingProxyType(dict(self.designs)))
        object.__setattr__(self, "bayesian", tuple(self.bayesian))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(
            self, "wilcoxon_cliques", tuple(tuple(clique) for clique in self.wilcoxon_cliques)
        )

    @property
    def models(self) -> tuple[Any, ...]:
        """The models, in the order of the table's columns."""
        return tuple(self.means.columns)

    @property
    def datasets(self) -> tuple[Any, ...]:
        """The data sets, in the order of the table's rows."""
        return tuple(self.means.index)

    def best(self) -> pd.DataFrame:
        """Data sets × models booleans: the best mean on that data set (ties all marked)."""
        rounded = self.means.round(12)
        target = rounded.max(axis=1) if self.metric.higher_is_better else rounded.min(axis=1)
        return rounded.eq(target, axis=0)


PAIRS_NAMED = 6
"""Most pairs a note names before it counts the rest."""


def _pair_notes(warnings: list[tuple[tuple[Any, Any], tuple[str, ...]]], n_pairs: int) -> list[str]:
    """One note per distinct warning, naming the pairs it concerns (all, or the first few)."""
    pairs_of: dict[str, list[tuple[Any, Any]]] = {}
    for pair, texts in warnings:
        for text in texts:
            pairs_of.setdefault(text, []).append(pair)
    notes = []
    for text, pairs in pairs_of.items():
        if len(pairs) == n_pairs and n_pairs > 1:
            where = "Every pair"
        else:
            named = ", ".join(f"{a} vs {b}" for a, b in pairs[:PAIRS_NAMED])
            rest = len(pairs) - PAIRS_NAMED
            where = named + (
                f" and {rest:,} more pair{'s' if rest > 1 else ''}" if rest > 0 else ""
            )
        # the sentence reads on after the pairs' names: "a vs b: equal absolute ..."
        lowered = text[0].lower() + text[1:] if text[1:2].islower() else text
        notes.append(f"{where}: {lowered}")
    return notes


def _baseline_model(baseline: Any, models: list[Any]) -> Any:
    """The model ``baseline`` names, matched as a pair's models are (``"1"`` finds ``1``).

    True names no model labelled 1 (Python counts ``True == 1``).
    """
    matches = labels_named(baseline, models)
    if len(matches) == 1:
        return matches[0]
    raise CVReportError(
        f"the baseline {show(baseline)} is not a model; choose one of "
        f"{', '.join(show(model) for model in models[:10])}"
        + (f", ... ({len(models)} in all)" if len(models) > 10 else "")
    )


def compare_datasets(
    data: DatasetsTable | pd.DataFrame,
    *,
    direction: Direction | None = None,
    baseline: Any = None,
    alpha: float = 0.05,
    correction: str | None = "holm",
    pairwise_correction: str = "auto",
    rope: float = 0.01,
    n_samples: int | None = None,
    seed: int | None = 0,
    tie_correction: bool = True,
) -> DatasetsAnalysis:
    """Compare k models over N data sets: per data set, then across them.

    Parameters
    ----------
    data : DatasetsTable or pandas.DataFrame
        The results; a frame is data sets × models summary scores (then
        ``direction`` is required and there are no per-data-set tests).
    direction : {"lower", "higher"}, optional
        Which way the scores are better (a DatasetsTable knows it).
    baseline : str, optional
        The proposed model: per-data-set tests, Bonferroni–Dunn, Wilcoxon and
        the Bayesian test compare every other model with it. Default: every pair.
    alpha : float
        Level of every decision.
    correction : str or None
        Multiplicity correction within each data set (statsmodels ``multipletests``).
    pairwise_correction : str
        For the Wilcoxon tests: ``"auto"`` (Bergmann–Hommel for every pair of at
        most 9 models, else Holm), ``"bergmann-hommel"``, ``"holm"`` or another
        ``multipletests`` method.
    rope : float
        Region of practical equivalence of the Bayesian signed-rank test, in the
        metric's units.
    n_samples : int, optional
        Monte Carlo draws of the Bayesian test per pair; default
        :func:`~cvreport.multi.bayesian.automatic_samples`: 50,000, fewer (at
        least 2,000) when pairs × data sets are many, with a note stating the
        Monte Carlo standard error.
    seed : int or None
        Seed of the Bayesian test's draws.
    tie_correction : bool
        Whether χ²_F is corrected for ties (as scipy); see :func:`friedman_test`.

    Returns
    -------
    DatasetsAnalysis

    Examples
    --------
    >>> scores = pd.DataFrame({"new": [.91, .85, .78, .95, .70, .88, .81],
    ...                        "old": [.89, .80, .75, .94, .66, .86, .80],
    ...                        "base": [.85, .79, .70, .90, .67, .80, .74]})
    >>> result = compare_datasets(scores, direction="higher", baseline="new", n_samples=2000)
    >>> result.friedman.average_ranks.tolist(), result.friedman.reject(0.05)
    ([1.0, 2.142857142857143, 2.857142857142857], True)
    >>> result.wilcoxon[["b", "r_minus", "better"]].values.tolist()
    [['old', 28.0, 'new'], ['base', 28.0, 'new']]
    """
    # every option is checked before the first data set is tested
    alpha = check_alpha(alpha)
    direction = check_direction(direction)
    correction = check_correction(correction)
    if pairwise_correction != "auto":
        pairwise_correction = (
            check_correction(
                pairwise_correction, own=("bergmann-hommel",), option="pairwise_correction"
            )
            or "none"
        )
    seed = check_seed(seed)
    tie_correction = bool_option(tie_correction, "tie_correction")
    if isinstance(data, DatasetsTable):
        metric = data.metric
        if baseline is not None:
            baseline = _baseline_model(baseline, list(data.models))
        if direction is not None and direction != metric.direction:
            raise CVReportError(
                f"direction={direction!r} contradicts the table's metric "
                f"({metric.name!r}, {metric.direction} is better)"
            )
        means, sds, designs = data.means(), data.sds(), data.designs()
        per_dataset = (
            per_dataset_tests(data, baseline=baseline, alpha=alpha, correction=correction)
            if data.tables
            else None
        )
    else:
        if data is None or isinstance(data, str | bytes | os.PathLike | numbers.Number):
            raise DataError(
                "compare_datasets needs a DatasetsTable or a data sets × models table of summary "
                f"scores (a DataFrame or a 2-D array), got {type(data).__name__}; build one with "
                "cvreport.DatasetsTable.from_formula('loss ~ model | replication + fold | "
                "dataset', df)"
            )
        if direction is None:
            raise CVReportError(
                "a frame of summary scores needs direction='higher' (a score) or 'lower' (a loss)"
            )
        means = score_matrix(data)
        metric = Metric("score" if direction == "higher" else "loss", direction)
        sds = means * float("nan")
        designs = {name: "one score per model" for name in means.index}
        per_dataset = None
    models = list(means.columns)
    if baseline is not None:
        baseline = _baseline_model(baseline, models)
    friedman = friedman_test(means, metric.direction, tie_correction=tie_correction)
    n = friedman.n_datasets
    nemenyi = critical_difference(friedman.average_ranks, n, alpha=alpha)
    dunn = (
        critical_difference(
            friedman.average_ranks, n, alpha=alpha, method="bonferroni-dunn", control=baseline
        )
        if baseline is not None
        else None
    )
    chosen = pairwise_correction
    if chosen == "auto":
        feasible = baseline is None and len(models) <= BERGMANN_HOMMEL_MAX_MODELS
        chosen = "bergmann-hommel" if feasible else "holm"
    wilcoxon = pairwise_wilcoxon(
        means, metric.direction, baseline=baseline, correction=chosen, alpha=alpha
    )
    pairs = (
        [(baseline, m) for m in models if m != baseline]
        if baseline is not None
        else list(itertools.combinations(models, 2))
    )
    bayesian = bayesian_signed_rank_pairs(
        means, pairs, metric.direction, rope=rope, n_samples=n_samples, seed=seed
    )
    wilcoxon_cliques: tuple[tuple[Any, ...], ...] = ()
    if baseline is None:
        index = pd.Index(models)
        first = index.get_indexer(wilcoxon["a"])
        second = index.get_indexer(wilcoxon["b"])
        separated = np.zeros((len(models), len(models)), dtype=bool)
        separated[first, second] = separated[second, first] = wilcoxon["reject"].to_numpy(bool)
        wilcoxon_cliques = nemenyi_cliques(
            friedman.average_ranks, pd.DataFrame(separated, index=models, columns=models)
        )
    effect_sizes = pairwise_effect_sizes(means, pairs, alpha=alpha)
    sign = effect_sizes["hedges_g"] if metric.higher_is_better else -effect_sizes["hedges_g"]
    effect_sizes["favours"] = [
        a if v > 0 else b if v < 0 else None
        for a, b, v in zip(effect_sizes["a"], effect_sizes["b"], sign)
    ]
    notes = list(friedman.warnings)
    notes += _pair_notes(
        [(result.models, result.warnings) for result in wilcoxon["result"]], len(pairs)
    )
    notes += _pair_notes([(result.models, result.warnings) for result in bayesian], len(pairs))
    if bayesian and bayesian[0].n_samples < DEFAULT_SAMPLES and n_samples is None:
        draws = bayesian[0].n_samples
        notes.append(
            f"The Bayesian signed-rank test uses {draws:,} posterior draws per pair (not "
            f"{DEFAULT_SAMPLES:,}) to keep {len(pairs):,} pairs on {n} data sets quick; each "
            f"probability's Monte Carlo standard error is at most "
            f"{max(r.mc_standard_error for r in bayesian):.3f} (0.5/√{draws:,} = "
            f"{0.5 / draws**0.5:.3f}); pass n_samples for more."
        )
    if not friedman.reject(alpha):
        notes.append(
            f"The Friedman test does not reject equal average ranks at α = {alpha:g}; the "
            "post-hoc comparisons (Nemenyi, Wilcoxon, Bayesian signed-rank) are shown for "
            "description, not as findings."
        )
    return DatasetsAnalysis(
        metric=metric,
        means=means,
        sds=sds,
        designs=designs,
        baseline=baseline,
        alpha=alpha,
        friedman=friedman,
        nemenyi=nemenyi,
        bonferroni_dunn=dunn,
        wilcoxon=wilcoxon,
        wilcoxon_correction=chosen,
        bayesian=tuple(bayesian),
        per_dataset=per_dataset,
        correction=correction,
        notes=tuple(notes),
        wilcoxon_cliques=wilcoxon_cliques,
        effect_sizes=effect_sizes,
        table=data if isinstance(data, DatasetsTable) else None,
    )
