"""Simulation scenarios: where the per-record losses of many simulated data sets come from.

Two kinds, both vectorised over simulated data sets:

- a **loss scenario** draws every record's loss for A and B once per simulated
  data set, independent of any training (Dietterich's ε model, or a
  user-supplied loss generator). The partitions then only decide which fold
  scores each record.
- a **trained scenario** draws features and labels, and two learners are
  trained on every training set of every design (the two-Gaussian problem of
  Wang, Li & Li (2017) §3.1, the "simple" problem of Yang et al. §5.2, or a user-supplied
  sampler with any two learners).

Every scenario has one named numeric *parameter* that :func:`~cvreport.simulate.power_curve`
sweeps (``delta`` for ε and simple, ``mean_shift`` for the Gaussians), and says
whether that value makes H0 (equal expected loss) true.

User-supplied generators
------------------------
``LossScenario(generator, n=..., params={...}, parameter=...)`` with::

    generator(rng: numpy.random.Generator, reps: int, n: int, **params)
        -> (loss_a, loss_b)   # two arrays of shape (reps, n)

Record ``i`` of every data set is record ``i`` of the model (records need not be
exchangeable: the simulator shuffles them before dealing them into folds).

``TrainedScenario(sampler, learner_a, learner_b, n=..., params={...}, parameter=...)`` with::

    sampler(rng: numpy.random.Generator, reps: int, n: int, **params)
        -> (x, y)             # x of shape (reps, n, p), y of shape (reps, n) with labels 0/1

and learners as in :mod:`cvreport.simulate.learners` (or scikit-learn estimators).

Examples
--------
>>> import numpy as np
>>> scenario = EpsilonScenario()
>>> a, b = scenario.record_losses(np.random.default_rng(0), 4)
>>> a.shape, b.shape, scenario.null
((4, 300), (4, 300), True)
>>> def coin(rng, reps, n, p=0.5):
...     return rng.random((reps, n)) < p, rng.random((reps, n)) < p
>>> LossScenario(coin, n=50, params={"p": 0.2}, parameter="p").parameter_value
0.2
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from cvreport.errors import CVReportError, DataError, describe_keys
from cvreport.option_values import integer_option, real_option
from cvreport.simulate.learners import (
    BatchLearner,
    LeastSquaresLearner,
    LogisticRegressionLearner,
    MajorityLearner,
    SklearnLearner,
    as_learner,
)

__all__ = [
    "SCENARIOS",
    "EpsilonScenario",
    "GaussiansScenario",
    "LossScenario",
    "LossScenarioBase",
    "Scenario",
    "SimpleScenario",
    "TrainedScenario",
    "TrainedScenarioBase",
    "get_scenario",
]


class Scenario(ABC):
    """Common interface of every scenario (see the module docstring).

    Attributes
    ----------
    name : str
        Short name, e.g. ``"epsilon"``.
    n : int
        Records per simulated data set.
    parameter : str
        Name of the numeric parameter that power curves sweep (``""``: none).
    binary : bool or None
        Whether the losses are 0/1 (``None``: found out from the first batch).
    null_value : float or None
        Value of :attr:`parameter` at which H0 (equal expected loss) holds, if any.
    """

    #: ``"losses"`` (losses fixed per record) or ``"trained"`` (learners trained per fold).
    kind: ClassVar[str] = "losses"
    #: Replications per chunk when the caller does not choose.
    default_chunk_size: ClassVar[int] = 5_000
    #: Parameter values a power curve sweeps when the caller gives none.
    default_values: ClassVar[tuple[float, ...]] = ()

    name: str
    n: int
    parameter: str
    binary: bool | None = True
    null_value: float | None = None

    @property
    def parameter_value(self) -> float:
        """Current value of :attr:`parameter` (NaN when the scenario has none)."""
        if not self.parameter:
            return float("nan")
        return float(self.parameters()[self.parameter])

    @property
    def null(self) -> bool | None:
        """Whether H0 (equal expected loss of A and B) holds; ``None`` when unknown."""
        if self.null_value is None or not self.parameter:
            return None
        return bool(self.parameter_value == self.null_value)

    @abstractmethod
    def parameters(self) -> dict[str, Any]:
        """Every parameter by name."""

    @abstractmethod
    def with_parameter(self, value: float) -> Scenario:
        """The same scenario with :attr:`parameter` set to ``value``."""

    def describe(self, varying: str | None = None) -> str:
        """One line naming the scenario and its parameters (``varying``: shown as varied)."""
        shown = ", ".join(
            f"{k} varied" if k == varying else f"{k} = {_short(v)}"
            for k, v in self.parameters().items()
        )
        return f"{self.name} scenario ({shown})"


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_short(v) for v in value) + ")"
    return str(value)


def _check_numbers(scenario: Any, reals: tuple[str, ...]) -> None:
    """Read ``n`` as a whole number and ``reals`` as finite numbers, or refuse them in words.

    ``epsilon="0.1"`` would fail deep in numpy, and NaN would give NaN error
    probabilities and a table of nothing; Decimal and numpy numbers become floats.
    """
    n = integer_option(scenario.n, "n", "a whole number of records")
    object.__setattr__(scenario, "n", n)
    for name in reals:
        value = real_option(getattr(scenario, name), name, "a finite number")
        object.__setattr__(scenario, name, value)


def _check_custom(scenario: Any, what: str) -> None:
    """Validate the fields shared by :class:`LossScenario` and :class:`TrainedScenario`."""
    if scenario.n < 2:
        raise CVReportError(f"a scenario needs n >= 2 records, got n = {scenario.n!r}")
    object.__setattr__(scenario, "params", dict(scenario.params))
    if not scenario.parameter and scenario.params:
        object.__setattr__(scenario, "parameter", next(iter(scenario.params)))
    if scenario.parameter and scenario.parameter not in scenario.params:
        raise CVReportError(
            f"parameter {scenario.parameter!r} is not among the {what}'s params "
            f"({describe_keys(scenario.params)}); pass params={{{scenario.parameter!r}: value}}"
        )


def _replace_parameter(scenario: Any, value: float) -> Any:
    if not scenario.parameter:
        raise CVReportError(
            f"scenario {scenario.name!r} has no parameter to vary; pass params= and parameter="
        )
    return dataclasses.replace(scenario, params={**scenario.params, scenario.parameter: value})


# -- loss scenarios ----------------------------------------------------------


class LossScenarioBase(Scenario):
    """A scenario whose per-record losses are drawn independently of any training."""

    kind: ClassVar[str] = "losses"

    @abstractmethod
    def record_losses(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        """Losses of A and B, each ``(reps, n)``, in record order."""


@dataclass(frozen=True)
class EpsilonScenario(LossScenarioBase):
    """Dietterich's ε loss model as used in Yang et al. §5.2 (Table V, "Epsilon").

    On records ``1..n/2`` the loss of A is Bernoulli(ε/2) and that of B
    Bernoulli(3ε/2); on the rest the reverse. Both models thus have expected
    error ε and H0 holds. Losses are drawn once per record per simulated data
    set and do not depend on the training set (Dietterich 1998).

    ``delta`` is an extension for power curves: it adds ``delta`` to A's error
    probability on every record (A is then worse by ``delta``; ``delta = 0`` is
    the paper's model).

    Parameters
    ----------
    n : int
        Records per data set (even; 300 in the paper).
    epsilon : float
        Expected error of each model (0.1 in the paper).
    delta : float
        Extra error probability of A (extension; 0 is H0).

    Examples
    --------
    >>> import numpy as np
    >>> loss_a, loss_b = EpsilonScenario().record_losses(np.random.default_rng(0), 2)
    >>> loss_a.shape, loss_a.dtype.kind
    ((2, 300), 'i')
    >>> p_a, p_b = EpsilonScenario().probabilities()   # ε/2 then 3ε/2 for A, the reverse for B
    >>> round(float(p_a[0]), 6), round(float(p_a[-1]), 6), round(float(p_b[0]), 6)
    (0.05, 0.15, 0.15)
    """

    n: int = 300
    epsilon: float = 0.1
    delta: float = 0.0

    name = "epsilon"
    parameter = "delta"
    null_value = 0.0
    default_values = (0.0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15)

    def __post_init__(self) -> None:
        _check_numbers(self, ("epsilon", "delta"))
        if self.n < 4 or self.n % 2:
            raise CVReportError(f"the ε scenario needs an even n >= 4, got n = {self.n!r}")
        p_a, p_b = self.probabilities()
        if min(p_a.min(), p_b.min()) < 0 or max(p_a.max(), p_b.max()) > 1:
            raise CVReportError(
                f"ε = {self.epsilon!r} with delta = {self.delta!r} gives error probabilities "
                "outside [0, 1]; need 0 <= ε/2 + delta and 3ε/2 + delta <= 1"
            )

    def probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-record error probabilities of A and B."""
        half = self.n // 2
        eps = self.epsilon
        sizes = [half, self.n - half]
        p_a = np.repeat([eps / 2 + self.delta, 3 * eps / 2 + self.delta], sizes)
        p_b = np.repeat([3 * eps / 2, eps / 2], sizes)
        return p_a, p_b

    def record_losses(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        """Losses of A and B, each ``(reps, n)`` int8 in record order."""
        p_a, p_b = self.probabilities()
        loss_a = rng.random((reps, self.n)) < p_a
        loss_b = rng.random((reps, self.n)) < p_b
        return loss_a.view(np.int8), loss_b.view(np.int8)

    def parameters(self) -> dict[str, Any]:
        return {"n": self.n, "epsilon": self.epsilon, "delta": self.delta}

    def with_parameter(self, value: float) -> EpsilonScenario:
        return dataclasses.replace(self, delta=value)  # checked by __post_init__


@dataclass(frozen=True)
class LossScenario(LossScenarioBase):
    """A user-supplied generator of per-record losses (see the module docstring).

    Parameters
    ----------
    generator : callable
        ``generator(rng, reps, n, **params) -> (loss_a, loss_b)``, two ``(reps, n)`` arrays.
    n : int
        Records per simulated data set.
    params : mapping
        Keyword arguments of ``generator``; numeric ones may be swept.
    parameter : str, optional
        The entry of ``params`` that power curves sweep (default: the first one).
    null_value : float, optional
        The value of ``parameter`` at which H0 holds, if there is one.
    name : str
        Label in reports.
    binary : bool, optional
        Whether the losses are 0/1; found out from the first batch when omitted.

    Examples
    --------
    >>> from cvreport import simulate
    >>> def coins(rng, reps, n, spread=1.0):   # real-valued losses, equal means: H0 holds
    ...     return rng.normal(0, spread, (reps, n)), rng.normal(0, spread, (reps, n))
    >>> scenario = simulate.LossScenario(coins, n=100, params={"spread": 1.0})
    >>> frame = simulate.calibrate(scenario, tests=["paired_ttest_kfold"], reps=500, seed=1,
    ...                            progress=False)
    >>> frame[["test", "design", "rate"]].to_dict("records")
    [{'test': 'paired_ttest_kfold', 'design': '10-fold', 'rate': 0.036}]
    """

    generator: Callable[..., tuple[Any, Any]]
    n: int
    params: Mapping[str, Any] = field(default_factory=dict)
    parameter: str = ""
    null_value: float | None = None
    name: str = "custom"
    binary: bool | None = None

    def __post_init__(self) -> None:
        if not callable(self.generator):
            raise CVReportError("LossScenario needs a callable generator(rng, reps, n, **params)")
        _check_custom(self, "generator")

    def record_losses(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        """Call the generator and check the shapes and values of what it returns."""
        out = self.generator(rng, reps, self.n, **self.params)
        try:
            loss_a, loss_b = out
        except (TypeError, ValueError):
            raise DataError(
                f"the generator of scenario {self.name!r} must return (loss_a, loss_b), "
                f"got {type(out).__name__}"
            ) from None
        arrays = []
        for label, value in (("loss_a", loss_a), ("loss_b", loss_b)):
            array = np.asarray(value)
            if array.shape != (reps, self.n):
                raise DataError(
                    f"the generator of scenario {self.name!r} returned {label} of shape "
                    f"{array.shape}; expected (reps, n) = ({reps}, {self.n})"
                )
            if array.dtype == bool:
                array = array.view(np.int8)
            elif not np.issubdtype(array.dtype, np.number):
                raise DataError(
                    f"the generator of scenario {self.name!r} returned {label} of dtype "
                    f"{array.dtype}; losses must be numbers"
                )
            elif not np.all(np.isfinite(array)):
                raise DataError(
                    f"the generator of scenario {self.name!r} returned "
                    f"{int((~np.isfinite(array)).sum())} non-finite values in {label}; "
                    "losses must be finite"
                )
            arrays.append(array)
        return arrays[0], arrays[1]

    def parameters(self) -> dict[str, Any]:
        return {"n": self.n, **self.params}

    def with_parameter(self, value: float) -> LossScenario:
        return _replace_parameter(self, value)


# -- trained scenarios -------------------------------------------------------


class TrainedScenarioBase(Scenario):
    """A scenario whose learners are trained on every training fold of every design."""

    kind: ClassVar[str] = "trained"
    default_chunk_size: ClassVar[int] = 500

    @abstractmethod
    def sample(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        """Features ``(reps, n, p)`` and 0/1 labels ``(reps, n)`` of ``reps`` data sets."""

    @property
    @abstractmethod
    def learners(self) -> tuple[BatchLearner, BatchLearner]:
        """Learner A and learner B."""

    def describe(self, varying: str | None = None) -> str:
        a, b = self.learners
        return f"{super().describe(varying)}: {a.name} (A) vs {b.name} (B)"


@dataclass(frozen=True)
class SimpleScenario(TrainedScenarioBase):
    """The "simple" problem of Yang et al. §5.2: logistic regression (A) vs majority (B).

    ``y ~ Bernoulli(½)``, ``x | y = 0 ~ N(0, 1)``, ``x | y = 1 ~ N(Δ, 1)``. At
    ``delta = 0`` the feature carries no information and both learners have true
    error ½ (H0); as ``delta`` grows logistic regression becomes better. The
    logistic regression is the unpenalised maximum-likelihood fit of the paper's
    R ``glm``, computed for all folds at once
    (:class:`~cvreport.simulate.learners.LogisticRegressionLearner`).

    Parameters
    ----------
    n : int
        Records per data set (1,000 in the paper).
    delta : float
        Δ, the shift of class 1 (0 to 1 in the paper's power curves).

    Examples
    --------
    >>> SimpleScenario(delta=0.5).describe()
    'simple scenario (n = 1000, delta = 0.5): logistic regression (A) vs majority (B)'
    """

    n: int = 1000
    delta: float = 0.0

    name = "simple"
    parameter = "delta"
    null_value = 0.0
    default_values = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)

    def __post_init__(self) -> None:
        _check_numbers(self, ("delta",))
        if self.n < 8:
            raise CVReportError(f"the simple scenario needs n >= 8, got n = {self.n!r}")

    @property
    def learners(self) -> tuple[BatchLearner, BatchLearner]:
        return LogisticRegressionLearner(), MajorityLearner()

    def sample(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        y = (rng.random((reps, self.n)) < 0.5).view(np.int8)
        x = rng.standard_normal((reps, self.n)) + self.delta * y
        return x[..., None], y

    def parameters(self) -> dict[str, Any]:
        return {"n": self.n, "delta": self.delta}

    def with_parameter(self, value: float) -> SimpleScenario:
        return dataclasses.replace(self, delta=value)  # checked by __post_init__


def _default_tree() -> Any:
    from sklearn.tree import DecisionTreeRegressor

    return DecisionTreeRegressor(min_samples_leaf=5, random_state=0)


@dataclass(frozen=True)
class GaussiansScenario(TrainedScenarioBase):
    """The two-Gaussian problem of Wang, Li & Li (2017) §3.1: regression tree (A) vs least squares (B).

    ``P(Y = 1) = ½``, ``X | Y = 0 ~ N(μ0, Σ0)``, ``X | Y = 1 ~ N(μ1, Σ1)`` in two
    dimensions with ``μ0 = (0, 0)``, ``Σ0 = I``, ``μ1 = (s, s)`` and
    ``Σ1 = v·I``; the defaults are the paper's case (3) (``s = 1``, ``v = 1/6``,
    n = 200). Learner A is a least-squares regression tree with decision
    ``I[leaf value > 0.5]`` (scikit-learn's ``DecisionTreeRegressor`` with at least
    5 records per leaf — the paper does not say how the tree is grown); learner
    B the least-squares linear rule ``I[β̂ᵀx > 0.5]`` with an intercept. The two
    learners' errors differ, so no parameter value is an exact H0.
    scikit-learn is needed (optional extra ``cvreport[sklearn]``); the tree is
    fitted once per fold, so use hundreds rather than thousands of replications.

    Parameters
    ----------
    n : int
        Records per data set (200 in the paper).
    mean_shift : float
        ``s`` in ``μ1 = (s, s)``.
    variance1 : float
        ``v`` in ``Σ1 = v·I``.
    tree : scikit-learn regressor, optional
        Replaces the default regression tree.
    """

    n: int = 200
    mean_shift: float = 1.0
    variance1: float = 1 / 6
    tree: Any = None

    name = "gaussians"
    parameter = "mean_shift"
    default_values = (0.5, 1.0, 1.5, 2.0)

    def __post_init__(self) -> None:
        _check_numbers(self, ("mean_shift", "variance1"))
        if self.n < 8:
            raise CVReportError(f"the Gaussians scenario needs n >= 8, got n = {self.n!r}")
        if self.variance1 <= 0:
            raise CVReportError(f"variance1 must be positive, got {self.variance1!r}")

    @property
    def learners(self) -> tuple[BatchLearner, BatchLearner]:
        tree = self.tree if self.tree is not None else _default_tree()
        return (
            SklearnLearner(tree, threshold=0.5, name="regression tree"),
            LeastSquaresLearner(),
        )

    def sample(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        y = (rng.random((reps, self.n)) < 0.5).view(np.int8)
        scale = np.where(y[..., None] == 1, np.sqrt(self.variance1), 1.0)
        x = rng.standard_normal((reps, self.n, 2)) * scale + self.mean_shift * y[..., None]
        return x, y

    def parameters(self) -> dict[str, Any]:
        return {"n": self.n, "mean_shift": self.mean_shift, "variance1": self.variance1}

    def with_parameter(self, value: float) -> GaussiansScenario:
        return dataclasses.replace(self, mean_shift=value)  # checked by __post_init__


@dataclass(frozen=True)
class TrainedScenario(TrainedScenarioBase):
    """A user-supplied sampler of features and labels, and any two learners.

    Parameters
    ----------
    sampler : callable
        ``sampler(rng, reps, n, **params) -> (x, y)`` with ``x`` of shape
        ``(reps, n, p)`` (or ``(reps, n)`` for one feature) and 0/1 labels ``y``
        of shape ``(reps, n)``.
    learner_a, learner_b : BatchLearner or scikit-learn estimator
        Model A and model B.
    n : int
        Records per simulated data set.
    params, parameter, null_value, name
        As for :class:`LossScenario`.
    """

    sampler: Callable[..., tuple[Any, Any]]
    learner_a: Any
    learner_b: Any
    n: int
    params: Mapping[str, Any] = field(default_factory=dict)
    parameter: str = ""
    null_value: float | None = None
    name: str = "custom"

    def __post_init__(self) -> None:
        if not callable(self.sampler):
            raise CVReportError("TrainedScenario needs a callable sampler(rng, reps, n, **params)")
        _check_custom(self, "sampler")
        as_learner(self.learner_a)
        as_learner(self.learner_b)

    @property
    def learners(self) -> tuple[BatchLearner, BatchLearner]:
        return as_learner(self.learner_a), as_learner(self.learner_b)

    def sample(self, rng: np.random.Generator, reps: int) -> tuple[np.ndarray, np.ndarray]:
        x, y = self.sampler(rng, reps, self.n, **self.params)
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y)
        if x.ndim == 2:
            x = x[..., None]
        if x.shape[:2] != (reps, self.n) or x.ndim != 3 or y.shape != (reps, self.n):
            raise DataError(
                f"the sampler of scenario {self.name!r} returned x of shape {x.shape} and y "
                f"of shape {y.shape}; expected ({reps}, {self.n}, p) and ({reps}, {self.n})"
            )
        if not np.isin(y, (0, 1)).all():
            raise DataError(f"the sampler of scenario {self.name!r} must return labels 0/1")
        return x, y.astype(np.int8)

    def parameters(self) -> dict[str, Any]:
        return {"n": self.n, **self.params}

    def with_parameter(self, value: float) -> TrainedScenario:
        return _replace_parameter(self, value)


SCENARIOS: dict[str, type[Scenario]] = {
    "epsilon": EpsilonScenario,
    "gaussians": GaussiansScenario,
    "simple": SimpleScenario,
}


def get_scenario(scenario: str | Scenario, **params: Any) -> Scenario:
    """A scenario from its name and parameters, or itself.

    >>> get_scenario("epsilon", epsilon=0.2).epsilon
    0.2
    """
    if isinstance(scenario, Scenario):
        if params:
            raise CVReportError(
                "scenario parameters go into the scenario object; pass either a name with "
                f"parameters or a ready scenario (got parameters {describe_keys(params)})"
            )
        return scenario
    if not isinstance(scenario, str) or scenario not in SCENARIOS:
        raise CVReportError(
            f"unknown scenario {scenario!r}; choose among {describe_keys(SCENARIOS)}, or build "
            "a LossScenario / TrainedScenario from your own generator"
        )
    cls = SCENARIOS[scenario]
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = [k for k in params if k not in known]
    if unknown:
        raise CVReportError(
            f"the {scenario} scenario has no parameter {describe_keys(unknown)}; "
            f"its parameters are {describe_keys(sorted(known))}"
        )
    return cls(**params)
