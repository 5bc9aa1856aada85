r"""The hierarchical Bayesian test of two models on many data sets (Corani et al. 2017).

The per-fold results of every data set go into one model. On data set i the
fold differences x_i1 … x_in (A's advantage in the metric: positive when A is
better) are normal with mean δ_i, variance σ_i² and correlation ρ between two
folds, the correlation that overlapping training sets induce (Nadeau and
Bengio 2003; ρ = 1/K for K-fold cross-validation, n_test/n for hold-out):

    x_i ~ N(δ_i 1, σ_i² ((1 − ρ) I + ρ 1 1ᵀ)),
    δ_i ~ t_ν(δ₀, σ₀),   σ_i ~ U(0, σ̄),   δ₀ ~ U(−max|x|, max|x|),   σ₀ ~ U(0, σ̄₀),
    ν − 1 ~ Gamma(α, β),   α ~ U(1, 2),   β ~ U(0.01, 0.1),

on differences scaled by their mean within-data-set standard deviation, with
σ̄ and σ̄₀ a thousand times the within and among standard deviations (the
settings of baycomp's ``HierarchicalTest``). The data sets' means δ_i shrink
toward δ₀, so a data set with few or noisy folds borrows strength from the
others. The answer across data sets is about a *new* data set: for every
posterior draw of (δ₀, σ₀, ν), the probabilities that its δ lies below −rope,
inside the rope or above it; P(A better) is the share of draws in which
"above" is the most probable of the three (Corani et al. 2017, §4), and each
data set gets the posterior probabilities of its own δ_i.

The likelihood of the compound-symmetric normal is evaluated from each data
set's mean and within sum of squares: the covariance has the eigenvalue
σ²(1 − ρ) on the n − 1 contrasts and σ²(1 + (n − 1)ρ) on the mean, so data
sets may have different numbers of folds. The posterior is sampled with the
No-U-Turn sampler of NumPyro (``pip install cvreport[hierarchical]``), a
well-kept sampler on JAX that installs from wheels alone.

A data set whose differences are all equal has σ_i → 0 and an unbounded
likelihood; its σ_i is bounded below by 10⁻³ of the mean within standard
deviation (baycomp instead replaces those differences by noise inside the
rope), and the result says so.

References
----------
Corani, G., Benavoli, A., Demšar, J., Mangili, F., Zaffalon, M. (2017).
Statistical comparison of classifiers through Bayesian hierarchical modelling.
Machine Learning 106:1817–1837.
Nadeau, C., Bengio, Y. (2003). Inference for the generalization error. Machine
Learning 52:239–281.
Hoffman, M. D., Gelman, A. (2014). The No-U-Turn sampler. JMLR 15:1593–1623.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from cvreport.data.datasets import DatasetsTable
from cvreport.errors import CVReportError, describe_keys
from cvreport.methods._common import zero_spread
from cvreport.results import Result
from cvreport.summary_data import SummaryRow

__all__ = ["HierarchicalResult", "hierarchical_test", "hierarchical_test_array"]

CORANI_REFERENCE = (
    "Corani, G., Benavoli, A., Demšar, J., Mangili, F., Zaffalon, M. (2017). Statistical "
    "comparison of classifiers through Bayesian hierarchical modelling. Machine Learning "
    "106:1817–1837."
)
SIGMA_FLOOR = 1e-3  # lower bound of σ_i, in units of the mean within-data-set sd
_PRIOR = {"alpha": (1.0, 2.0), "beta": (0.01, 0.1), "upper_sigma": 1000.0}


@dataclass(frozen=True, kw_only=True, repr=False)
class HierarchicalResult(Result):
    """The posterior of the hierarchical test, across data sets and per data set.

    A member of the result family (:class:`~cvreport.results.Result`):
    ``summary(alpha)``, ``to_frame(alpha)`` and the notebook display show the
    three probabilities, the sampler's health and the per-data-set posteriors.
    A posterior takes no decision at a level, so ``alpha`` is only checked.

    Attributes
    ----------
    p_a_better, p_equivalent, p_b_better : float
        Posterior probabilities about a new data set: A better by more than the
        rope, within the rope, B better.
    per_dataset : pandas.DataFrame
        Per data set: the posterior mean of δ_i (A's advantage, in the metric's
        units) and the probabilities that δ_i is above the rope, inside it or
        below it.
    theta : numpy.ndarray
        (draws, 3) posterior probabilities (A better, equivalent, B better) of a
        new data set, one row per draw: the points of the simplex figure.
    rope, rho : float
        The rope (metric's units) and the correlation of two folds.
    n_samples, n_warmup, chains : int
        Draws kept per chain, warm-up draws per chain, chains.
    seed : int
        Seed of the sampler.
    mc_standard_error : float
        Largest √(p(1 − p)/draws) of the three, ignoring autocorrelation.
    divergences : int
        Divergent transitions of the sampler (0 is the healthy value).
    models : tuple
        (A, B).
    notes : tuple of str
        What to keep in mind, in words.
    """

    p_a_better: float
    p_equivalent: float
    p_b_better: float
    per_dataset: pd.DataFrame
    theta: np.ndarray
    rope: float
    rho: float
    n_samples: int
    n_warmup: int
    chains: int
    seed: int
    mc_standard_error: float
    divergences: int
    models: tuple[Any, Any]
    method: str = "Hierarchical Bayesian test"
    reference: str = CORANI_REFERENCE

    @property
    def probabilities(self) -> tuple[float, float, float]:
        """(P(A better), P(equivalent), P(B better)) for a new data set."""
        return (self.p_a_better, self.p_equivalent, self.p_b_better)

    def to_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """One row: the models, the three probabilities, the rope and the sampler's settings."""
        return super().to_frame(alpha)

    def _frame_row(self, alpha: float) -> dict[str, Any]:
        a, b = self.models
        return {
            "a": a,
            "b": b,
            "p_a_better": self.p_a_better,
            "p_equivalent": self.p_equivalent,
            "p_b_better": self.p_b_better,
            "rope": self.rope,
            "rho": self.rho,
            "draws": self.n_samples * self.chains,
            "mc_standard_error": self.mc_standard_error,
            "divergences": self.divergences,
        }

    def _summary_rows(self, alpha: float = 0.05) -> list[SummaryRow]:
        a, b = self.models
        return [
            SummaryRow("models (A vs B)", f"{a} vs {b}", "text"),
            SummaryRow("data sets", len(self.per_dataset), "value"),
            SummaryRow(f"P({a} better)", self.p_a_better, "probability"),
            SummaryRow(f"P(equivalent, within ±{self.rope:g})", self.p_equivalent, "probability"),
            SummaryRow(f"P({b} better)", self.p_b_better, "probability"),
            SummaryRow("correlation of two folds (ρ)", self.rho, "number"),
            SummaryRow("draws", self.n_samples * self.chains, "value"),
            SummaryRow("Monte Carlo standard error", self.mc_standard_error, "number"),
            SummaryRow("divergent transitions", self.divergences, "value"),
        ]

    def __repr__(self) -> str:
        a, b = self.models
        return (
            f"<HierarchicalResult {a} vs {b} on {len(self.per_dataset)} data sets: "
            f"P({a} better) = {self.p_a_better:.3f}, P(equivalent) = {self.p_equivalent:.3f}, "
            f"P({b} better) = {self.p_b_better:.3f} (rope ±{self.rope:g})>"
        )


def _sampler() -> tuple[Any, Any, Any, Any]:
    try:
        import jax
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS
    except ImportError as error:  # pragma: no cover - the extra is installed in the tests
        raise CVReportError(
            "the hierarchical test samples its posterior with NumPyro: "
            "pip install 'cvreport[hierarchical]' (numpyro and jax)"
        ) from error
    jax.config.update("jax_enable_x64", True)
    return numpyro, dist, MCMC, NUTS


def _model(numpyro: Any, dist: Any) -> Any:
    import jax.numpy as jnp

    def model(means: Any, within: Any, counts: Any, rho: float, bounds: dict[str, float]) -> None:
        delta0 = numpyro.sample("delta0", dist.Uniform(-bounds["delta"], bounds["delta"]))
        std0 = numpyro.sample("std0", dist.Uniform(0.0, bounds["std0"]))
        alpha = numpyro.sample("alpha", dist.Uniform(*_PRIOR["alpha"]))
        beta = numpyro.sample("beta", dist.Uniform(*_PRIOR["beta"]))
        nu = 1.0 + numpyro.sample("nu_minus_one", dist.Gamma(alpha, beta))
        numpyro.deterministic("nu", nu)
        with numpyro.plate("datasets", means.shape[0]):
            # non-centred: δ_i = δ₀ + σ₀ z_i, the same model without the funnel that
            # makes the sampler diverge when σ₀ is small
            z = numpyro.sample("z", dist.StudentT(nu, 0.0, 1.0))
            delta = numpyro.deterministic("delta", delta0 + std0 * z)
            sigma = numpyro.sample("sigma", dist.Uniform(bounds["sigma_low"], bounds["sigma"]))
        contrast = sigma**2 * (1.0 - rho)  # eigenvalue on the n − 1 within contrasts
        along = sigma**2 * (1.0 + (counts - 1.0) * rho)  # eigenvalue on the mean
        log_likelihood = -0.5 * (
            (counts - 1.0) * jnp.log(2 * jnp.pi * contrast)
            + jnp.log(2 * jnp.pi * along)
            + within / contrast
            + counts * (means - delta) ** 2 / along
        )
        numpyro.factor("likelihood", log_likelihood.sum())

    return model


def _check(rope: float, rho: float, n_samples: int, n_warmup: int, chains: int) -> None:
    if not (isinstance(rope, (int, float)) and math.isfinite(rope) and rope >= 0):
        raise CVReportError(f"rope must be a number ≥ 0 in the metric's units, got {rope!r}")
    if not (isinstance(rho, (int, float)) and 0 <= rho < 1):
        raise CVReportError(
            f"rho must be in [0, 1): the correlation of two folds (1/K for K-fold), got {rho!r}"
        )
    for name, value, least in (("n_samples", n_samples, 100), ("n_warmup", n_warmup, 50)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise CVReportError(f"{name} must be an integer ≥ {least}, got {value!r}")
    if isinstance(chains, bool) or not isinstance(chains, int) or chains < 1:
        raise CVReportError(f"chains must be a positive integer, got {chains!r}")


def hierarchical_test_array(
    advantages: Sequence[Any],
    *,
    rho: float,
    rope: float = 0.01,
    models: tuple[Any, Any] = ("A", "B"),
    datasets: Sequence[Any] | None = None,
    n_samples: int = 5000,
    n_warmup: int = 1000,
    chains: int = 1,
    seed: int = 0,
) -> HierarchicalResult:
    """The hierarchical test on per-fold advantages of A, one array per data set.

    Parameters
    ----------
    advantages : sequence of array-like
        For each data set, A's advantage on each fold in the metric's units
        (metric(A) − metric(B) for a score, loss(B) − loss(A) for a loss).
        Data sets may have different numbers of folds (at least two each).
    rho : float
        Correlation of two folds' differences: 1/K for K-fold cross-validation,
        n_test/(n_train + n_test) for repeated hold-out.
    rope : float
        Half-width of the region of practical equivalence, in the metric's units.
    models : (A, B)
        Names for the result.
    datasets : sequence, optional
        Names of the data sets.
    n_samples, n_warmup, chains : int
        Draws kept per chain, warm-up draws per chain, and chains of the sampler.
    seed : int
        Seed of the sampler.

    Returns
    -------
    HierarchicalResult

    Raises
    ------
    CVReportError
        For fewer than two data sets, a data set with fewer than two folds,
        values that are not finite, settings out of range, or NumPyro missing.
    """
    _check(rope, rho, n_samples, n_warmup, chains)
    arrays = [np.asarray(x, dtype=float).ravel() for x in advantages]
    names = list(datasets) if datasets is not None else list(range(1, len(arrays) + 1))
    if len(arrays) < 2 or len(names) != len(arrays):
        raise CVReportError("the hierarchical test needs at least two data sets, each named once")
    for name, x in zip(names, arrays):
        if x.size < 2:
            raise CVReportError(f"data set {name!r} has {x.size} fold(s); the test needs ≥ 2")
        if not np.isfinite(x).all():
            raise CVReportError(f"data set {name!r} has values that are not finite numbers")
    numpyro, dist, MCMC, NUTS = _sampler()
    import jax

    # scale as baycomp does: the mean within-data-set sd becomes 1
    # equal up to rounding counts as equal: ten folds of 0.02 have a std of 3.5e-18, which
    # would scale the data by 1e17 and hide that there is no variation to model
    flat = [bool(zero_spread(x)) for x in arrays]
    spread = float(np.mean([0.0 if same else x.std() for same, x in zip(flat, arrays)]))
    constant = [name for name, same in zip(names, flat) if same]
    if spread == 0:
        raise CVReportError(
            "every data set's differences are constant: there is no variation to model; "
            "the two models' per-fold results are identical up to a shift on every data set"
        )
    scaled = [x / spread for x in arrays]
    counts = np.array([x.size for x in scaled], dtype=float)
    means = np.array([x.mean() for x in scaled])
    within = np.array([((x - x.mean()) ** 2).sum() for x in scaled])
    among = float(np.std(means)) or 1.0
    bounds = {
        "delta": float(max(np.abs(x).max() for x in scaled)),
        "std0": among * _PRIOR["upper_sigma"],
        "sigma": _PRIOR["upper_sigma"],
        "sigma_low": SIGMA_FLOOR,
    }
    kernel = NUTS(_model(numpyro, dist), target_accept_prob=0.9)
    mcmc = MCMC(
        kernel,
        num_warmup=n_warmup,
        num_samples=n_samples,
        num_chains=chains,
        chain_method="sequential",
        progress_bar=False,
    )
    mcmc.run(
        jax.random.PRNGKey(seed),
        means,
        within,
        counts,
        float(rho),
        bounds,
        extra_fields=("diverging",),
    )
    draws = {k: np.asarray(v) for k, v in mcmc.get_samples().items()}
    divergences = int(np.asarray(mcmc.get_extra_fields()["diverging"]).sum())
    scaled_rope = rope / spread
    t = stats.t(draws["nu"], draws["delta0"], draws["std0"])
    below, above = t.cdf(-scaled_rope), t.sf(scaled_rope)
    theta = np.column_stack([above, 1.0 - above - below, below])
    winners = np.bincount(theta.argmax(axis=1), minlength=3) / theta.shape[0]
    delta = draws["delta"]
    per_dataset = pd.DataFrame(
        {
            "dataset": names,
            "mean_advantage": delta.mean(axis=0) * spread,
            "p_a_better": (delta > scaled_rope).mean(axis=0),
            "p_equivalent": (np.abs(delta) <= scaled_rope).mean(axis=0),
            "p_b_better": (delta < -scaled_rope).mean(axis=0),
        }
    )
    notes = []
    if constant:
        notes.append(
            f"{len(constant)} data set(s) ({', '.join(map(str, constant[:5]))}) have equal "
            f"differences on every fold; their σ_i is bounded below by {SIGMA_FLOOR:g} of the "
            "mean within-data-set standard deviation."
        )
    if divergences:
        notes.append(
            f"The sampler reported {divergences} divergent transitions: the posterior may be "
            "explored incompletely; rerun with more warm-up draws or another seed."
        )
    if len(arrays) < 5:
        notes.append(
            f"Only {len(arrays)} data sets: the across-data-sets answer leans on the priors."
        )
    total = theta.shape[0]
    return HierarchicalResult(
        p_a_better=float(winners[0]),
        p_equivalent=float(winners[1]),
        p_b_better=float(winners[2]),
        per_dataset=per_dataset,
        theta=theta,
        rope=float(rope),
        rho=float(rho),
        n_samples=n_samples,
        n_warmup=n_warmup,
        chains=chains,
        seed=seed,
        mc_standard_error=float(max(math.sqrt(p * (1 - p) / total) for p in winners)),
        divergences=divergences,
        models=models,
        notes=tuple(notes),
    )


def _fold_correlation(table: Any) -> float:
    if table.design.K >= 2:  # K-fold: the validation folds are 1/K of the data
        return 1.0 / table.design.K
    ratio = table.test_train_ratio
    if ratio is not None:
        return float(ratio) / (1.0 + float(ratio))
    raise CVReportError(
        "the correlation of two folds is unknown for a repeated hold-out table without its "
        "test/train ratio: pass rho= (n_test / n_total)"
    )


def hierarchical_test(
    table: DatasetsTable,
    a: Any,
    b: Any,
    *,
    rope: float = 0.01,
    rho: float | None = None,
    n_samples: int = 5000,
    n_warmup: int = 1000,
    chains: int = 1,
    seed: int = 0,
) -> HierarchicalResult:
    """The hierarchical Bayesian test of A against B over the data sets of a table.

    Parameters
    ----------
    table : DatasetsTable
        Per-record or per-fold results of every data set.
    a, b : str
        The two models.
    rope : float
        Half-width of the region of practical equivalence, in the metric's units.
    rho : float, optional
        Correlation of two folds; by default 1/K of each data set's design
        (the largest over the data sets when they differ) or n_test/n for
        repeated hold-out with a known test/train ratio.
    n_samples, n_warmup, chains, seed :
        The sampler's settings (see :func:`hierarchical_test_array`).

    Returns
    -------
    HierarchicalResult

    Raises
    ------
    CVReportError
        For a table of one score per data set, unknown models, or settings out
        of range.

    Examples
    --------
    >>> import cvreport
    >>> df = cvreport.load_example("multi")
    >>> multi = cvreport.DatasetsTable.from_formula(
    ...     "loss ~ model | replication + fold | dataset", df)
    >>> res = hierarchical_test(multi, "logistic_regression", "decision_tree",
    ...                         n_samples=1000, n_warmup=500)
    >>> res.p_a_better > 0.9
    True
    """
    if not table.tables:
        raise CVReportError(
            "the hierarchical test needs each data set's per-fold results; this table has one "
            "score per data set"
        )
    for model in (a, b):
        if model not in table.models:
            raise CVReportError(
                f"{model!r} is not a model; choose one of {describe_keys(table.models, 10)}"
            )
    advantages, correlations = [], []
    for sub in table.tables.values():
        differences = sub.differences(a, b).to_numpy(dtype=float).ravel()
        advantages.append(differences if table.metric.higher_is_better else -differences)
        if rho is None:
            correlations.append(_fold_correlation(sub))
    return hierarchical_test_array(
        advantages,
        rho=float(rho) if rho is not None else max(correlations),
        rope=rope,
        models=(a, b),
        datasets=list(table.tables),
        n_samples=n_samples,
        n_warmup=n_warmup,
        chains=chains,
        seed=seed,
    )
