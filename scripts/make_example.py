"""Make the example data shipped with cvreport (``cvreport.load_example``).

Runs three scikit-learn classifiers — logistic regression, a decision tree and
Gaussian naive Bayes — on scikit-learn's bundled breast-cancer data under
Dietterich's 5×2 cross-validation (five independent random half/half splits,
each half used once as the validation fold) and writes, for every validation
record, each model's prediction, the truth and the 0/1 loss to
``cvreport/data/example_<name>.csv.gz`` with the columns
``replication, fold, model, record, truth, prediction, loss``.

:func:`collect_losses` takes any splitter, so another script can reuse it for
other partitions (e.g. the block-regularized 5×2 splitter for the ``"bcv"``
example)::

    from make_example import collect_losses, default_models, load_dataset, write_example
    X, y = load_dataset()
    frame = collect_losses(splitter, default_models(), X, y, folds_per_replication=2)
    write_example(frame, "bcv")

Run it from the repository root: ``python scripts/make_example.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

DATA_DIR = Path(__file__).resolve().parent.parent / "cvreport" / "data"
COLUMNS = ["replication", "fold", "model", "record", "truth", "prediction", "loss"]


def load_dataset() -> tuple[np.ndarray, np.ndarray]:
    """The breast-cancer data bundled with scikit-learn (569 records, 30 features)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    return data.data, data.target


def default_models(seed: int = 0) -> dict[str, Any]:
    """The three classifiers of the example, by name."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "logistic_regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "decision_tree": DecisionTreeClassifier(random_state=seed),
        "naive_bayes": GaussianNB(),
    }


def collect_losses(
    splits: Any,
    models: Mapping[str, Any],
    X: np.ndarray,
    y: np.ndarray,
    *,
    folds_per_replication: int,
) -> pd.DataFrame:
    """Fit every model on every split and record its validation predictions.

    Parameters
    ----------
    splits : splitter or iterable of (train, validation) index arrays
        A scikit-learn splitter (anything with ``split(X, y)``) or the pairs
        themselves, in replication-major order: the first ``folds_per_replication``
        splits form replication 1, and so on.
    models : mapping of str to estimator
        Unfitted scikit-learn estimators, cloned for every split.
    X, y : numpy.ndarray
        Features and labels.
    folds_per_replication : int
        Validation folds per replication (2 for 5×2 CV).

    Returns
    -------
    pandas.DataFrame
        One row per (replication, fold, model, record), with 1-based replication
        and fold labels, the record's row number in ``X`` and the 0/1 loss.
    """
    from sklearn.base import clone

    pairs: Iterable[tuple[np.ndarray, np.ndarray]] = (
        splits.split(X, y) if hasattr(splits, "split") else splits
    )
    parts = []
    for index, (train, validation) in enumerate(pairs):
        replication, fold = divmod(index, folds_per_replication)
        validation = np.sort(np.asarray(validation))
        for name, estimator in models.items():
            fitted = clone(estimator).fit(X[train], y[train])
            prediction = fitted.predict(X[validation])
            parts.append(
                pd.DataFrame(
                    {
                        "replication": replication + 1,
                        "fold": fold + 1,
                        "model": name,
                        "record": validation,
                        "truth": y[validation],
                        "prediction": prediction,
                        "loss": (prediction != y[validation]).astype(np.int64),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def dietterich_5x2_splits(n_records: int, seed: int = 0, replications: int = 5) -> list:
    """Dietterich's 5×2 CV: independent random half/half splits, each half validated once."""
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(replications):
        permutation = rng.permutation(n_records)
        first, second = permutation[: n_records // 2], permutation[n_records // 2 :]
        splits += [(second, first), (first, second)]
    return splits


def write_example(frame: pd.DataFrame, name: str) -> Path:
    """Write an example table where ``cvreport.load_example(name)`` finds it."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = DATA_DIR / f"example_{name}.csv.gz"
    # a fixed gzip mtime keeps the file byte-identical across runs
    frame.to_csv(path, index=False, compression={"method": "gzip", "mtime": 0})
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Make cvreport's 'random' 5×2 CV example.")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    X, y = load_dataset()
    frame = collect_losses(
        dietterich_5x2_splits(X.shape[0], seed=args.seed),
        default_models(args.seed),
        X,
        y,
        folds_per_replication=2,
    )
    path = write_example(frame, "random")
    errors = frame.groupby("model", sort=False)["loss"].mean()
    print(f"wrote {len(frame)} rows to {path}")
    print("mean 0/1 loss per model:\n" + errors.round(4).to_string())


if __name__ == "__main__":
    main()
