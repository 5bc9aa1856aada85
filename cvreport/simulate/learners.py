"""Learners trained on every training fold of many simulated data sets at once.

A learner here answers one question for a batch of ``B`` problems of equal
size: given training features ``(B, n_train, p)`` and 0/1 labels
``(B, n_train)``, predict labels for ``(B, n_test, p)``. Simple learners are
vectorised over the batch; any scikit-learn estimator can be wrapped with
:class:`SklearnLearner`, which fits it once per problem (slower, and scikit-learn
is an optional dependency imported only then).

Examples
--------
>>> import numpy as np
>>> x = np.array([[[-2.0], [-1.0], [1.0], [2.0], [-0.5], [0.5]]])
>>> y = np.array([[0, 0, 1, 1, 1, 0]])
>>> LogisticRegressionLearner().fit_predict(x, y, np.array([[[-3.0], [3.0]]])).tolist()
[[0, 1]]
>>> MajorityLearner().fit_predict(x, y, np.zeros((1, 2, 1))).tolist()
[[0, 0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy.special import expit

__all__ = [
    "BatchLearner",
    "LeastSquaresLearner",
    "LogisticRegressionLearner",
    "MajorityLearner",
    "SklearnLearner",
    "as_learner",
]


@runtime_checkable
class BatchLearner(Protocol):
    """What the simulator asks of a learner.

    ``fit_predict(x_train, y_train, x_test)`` takes arrays of shape
    ``(B, n_train, p)``, ``(B, n_train)`` (labels 0/1) and ``(B, n_test, p)`` and
    returns the ``(B, n_test)`` predicted labels of the ``B`` independent problems.

    Examples
    --------
    >>> import numpy as np
    >>> y_train = np.array([[0, 1, 1], [0, 0, 1]])            # two problems at once
    >>> x_train, x_test = np.zeros((2, 3, 1)), np.zeros((2, 2, 1))
    >>> MajorityLearner().fit_predict(x_train, y_train, x_test).tolist()
    [[1, 1], [0, 0]]
    """

    @property
    def name(self) -> str:
        """Label of the learner in reports."""
        ...

    def fit_predict(
        self, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray
    ) -> np.ndarray:
        """Fit on each problem's training set and predict its test records."""
        ...


def _with_intercept(x: np.ndarray) -> np.ndarray:
    ones = np.ones((*x.shape[:-1], 1), dtype=np.float64)
    return np.concatenate([ones, x.astype(np.float64, copy=False)], axis=-1)


@dataclass(frozen=True)
class MajorityLearner:
    """Predict the most frequent training label (ties: label 0), ignoring the features.

    The majority classifier of Yang et al. §5.2.
    """

    name: str = "majority"

    def fit_predict(
        self, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray
    ) -> np.ndarray:
        label = (2 * np.sum(y_train, axis=-1) > y_train.shape[-1]).astype(np.int8)
        return np.broadcast_to(label[:, None], x_test.shape[:2]).copy()


@dataclass(frozen=True)
class LogisticRegressionLearner:
    """Unpenalised logistic regression with an intercept, fitted by Newton's method.

    The maximum-likelihood fit of R's ``glm(family = binomial)`` that Yang et al.
    §5.2 uses, for all problems of the batch at once. A tiny ridge keeps the
    Newton step defined when a batch member is (nearly) separable; the
    iteration stops when every coefficient moves less than ``tol``.
    Predicts 1 where the fitted probability exceeds ½.
    """

    name: str = "logistic regression"
    max_iter: int = 50
    tol: float = 1e-8
    ridge: float = 1e-8

    def fit_predict(
        self, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray
    ) -> np.ndarray:
        z = _with_intercept(x_train)
        zt = np.ascontiguousarray(z.transpose(0, 2, 1))
        y = y_train.astype(np.float64, copy=False)
        batch, width, _ = zt.shape
        beta = np.zeros((batch, width, 1))
        eye = self.ridge * np.eye(width)
        for _ in range(self.max_iter):
            prob = expit(np.matmul(z, beta)[..., 0])
            weight = prob * (1.0 - prob)
            hessian = np.matmul(zt * weight[:, None, :], z) + eye
            gradient = np.matmul(zt, (y - prob)[..., None])
            step = np.linalg.solve(hessian, gradient)
            beta += step
            if np.max(np.abs(step)) < self.tol:
                break
        return (np.matmul(_with_intercept(x_test), beta)[..., 0] > 0).astype(np.int8)


@dataclass(frozen=True)
class LeastSquaresLearner:
    """Least-squares linear rule ``I[β̂ᵀx > 0.5]`` with an intercept (Wang, Li & Li (2017) §3.1, learner B)."""

    name: str = "least squares"
    threshold: float = 0.5

    def fit_predict(
        self, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray
    ) -> np.ndarray:
        z = _with_intercept(x_train)
        zt = z.transpose(0, 2, 1)
        gram = np.matmul(zt, z) + 1e-10 * np.eye(z.shape[-1])
        moment = np.matmul(zt, y_train.astype(np.float64, copy=False)[..., None])
        beta = np.linalg.solve(gram, moment)
        fitted = np.matmul(_with_intercept(x_test), beta)[..., 0]
        return (fitted > self.threshold).astype(np.int8)


@dataclass(frozen=True)
class SklearnLearner:
    """Any scikit-learn estimator, fitted once per problem of the batch (a clone each time).

    Parameters
    ----------
    estimator : scikit-learn estimator
        A classifier, or a regressor when ``threshold`` is given.
    threshold : float, optional
        Predict ``I[estimator.predict(x) > threshold]`` — e.g. 0.5 for the
        least-squares regression tree of Wang, Li & Li (2017) §3.1.
    name : str, optional
        Label of the learner (defaults to the estimator's class name).
    """

    estimator: Any
    threshold: float | None = None
    name: str = field(default="")

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", type(self.estimator).__name__)

    def fit_predict(
        self, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray
    ) -> np.ndarray:
        from sklearn.base import clone

        out = np.empty(x_test.shape[:2], dtype=np.int8)
        for index in range(x_train.shape[0]):
            model = clone(self.estimator).fit(x_train[index], y_train[index])
            predicted = model.predict(x_test[index])
            if self.threshold is not None:
                predicted = np.asarray(predicted) > self.threshold
            out[index] = np.asarray(predicted).astype(np.int8)
        return out


def as_learner(learner: Any) -> BatchLearner:
    """Accept a :class:`BatchLearner` or wrap a scikit-learn estimator in :class:`SklearnLearner`."""
    if isinstance(learner, BatchLearner):
        return learner
    if hasattr(learner, "fit") and hasattr(learner, "predict"):
        return SklearnLearner(learner)
    raise TypeError(
        f"a learner needs fit_predict(x_train, y_train, x_test) or scikit-learn's fit/predict, "
        f"got {type(learner).__name__}"
    )
