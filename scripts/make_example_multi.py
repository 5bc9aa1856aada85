"""Make the many-datasets example shipped with cvreport (``cvreport.load_example("multi")``).

Five scikit-learn classifiers — logistic regression, a decision tree, Gaussian
naive Bayes, k nearest neighbours and a random forest — are cross-validated on
ten binary tasks built from the data sets scikit-learn ships (no download):

========================  ======================================  ============
task                      records                                 design
========================  ======================================  ============
breast_cancer             all 569 (malignant vs benign)           10-fold CV
wine_class0               all 178 (cultivar 1 vs the rest)        5×2 CV
wine_class1_vs_2          130 (cultivar 2 vs 3)                   5×2 CV
iris_versicolor_virginica 100 (the two overlapping species)       5×2 CV
digits_3_vs_8             357 images of 3 and 8                   10-fold CV
digits_1_vs_7             361 images of 1 and 7                   10-fold CV
digits_4_vs_9             362 images of 4 and 9                   10-fold CV
digits_5_vs_6             363 images of 5 and 6                   10-fold CV
diabetes_high             all 442 (progression above the median)  5×2 CV
synthetic_seed7           make_classification(seed 7), 300        5×2 CV
========================  ======================================  ============

The designs differ on purpose: each data set keeps its own, and the
per-dataset test is the one recommended for that design. The 5×2 splits are
Dietterich's (independent random halves); 10-fold CV is scikit-learn's
``StratifiedKFold`` with a fixed seed. The output has one row per
(dataset, replication, fold, model, record) with the 0/1 loss, written to
``cvreport/data/example_multi.csv.gz`` (a few hundred kB).

Run it from the repository root: ``python scripts/make_example_multi.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_example import collect_losses, dietterich_5x2_splits, write_example

COLUMNS = ["dataset", "replication", "fold", "model", "record", "loss"]


def binary_tasks(seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The ten binary tasks, by name: features and 0/1 labels."""
    from sklearn.datasets import (
        load_breast_cancer,
        load_diabetes,
        load_digits,
        load_iris,
        load_wine,
        make_classification,
    )

    tasks: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    cancer = load_breast_cancer()
    tasks["breast_cancer"] = (cancer.data, cancer.target)
    wine = load_wine()
    tasks["wine_class0"] = (wine.data, (wine.target == 0).astype(int))
    keep = wine.target > 0
    tasks["wine_class1_vs_2"] = (wine.data[keep], (wine.target[keep] == 2).astype(int))
    iris = load_iris()
    keep = iris.target > 0
    tasks["iris_versicolor_virginica"] = (iris.data[keep], (iris.target[keep] == 2).astype(int))
    digits = load_digits()
    for first, second in ((3, 8), (1, 7), (4, 9), (5, 6)):
        keep = np.isin(digits.target, (first, second))
        tasks[f"digits_{first}_vs_{second}"] = (
            digits.data[keep],
            (digits.target[keep] == second).astype(int),
        )
    diabetes = load_diabetes()
    tasks["diabetes_high"] = (
        diabetes.data,
        (diabetes.target > np.median(diabetes.target)).astype(int),
    )
    X, y = make_classification(
        n_samples=300, n_features=20, n_informative=5, flip_y=0.05, random_state=7
    )
    tasks["synthetic_seed7"] = (X, y)
    return tasks


MX2_TASKS = {
    "wine_class0",
    "wine_class1_vs_2",
    "iris_versicolor_virginica",
    "diabetes_high",
    "synthetic_seed7",
}


def models(seed: int) -> dict[str, Any]:
    """The five classifiers, by name."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "logistic_regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "decision_tree": DecisionTreeClassifier(random_state=seed),
        "naive_bayes": GaussianNB(),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5)),
        "random_forest": RandomForestClassifier(n_estimators=50, random_state=seed),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Make cvreport's many-datasets example.")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    from sklearn.model_selection import StratifiedKFold

    parts = []
    for offset, (name, (X, y)) in enumerate(binary_tasks(args.seed).items()):
        seed = args.seed + offset
        if name in MX2_TASKS:
            splits: Any = dietterich_5x2_splits(X.shape[0], seed=seed)
            per_replication = 2
        else:
            splits = list(StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y))
            per_replication = 10
        frame = collect_losses(
            splits, models(args.seed), X, y, folds_per_replication=per_replication
        )
        frame.insert(0, "dataset", name)
        parts.append(frame[COLUMNS])
    frame = pd.concat(parts, ignore_index=True)
    path = write_example(frame, "multi")
    print(f"wrote {len(frame)} rows to {path} ({path.stat().st_size / 1024:.0f} kB)")
    errors = frame.groupby(["dataset", "model"], sort=False)["loss"].mean().unstack()
    print("mean 0/1 loss per dataset and model:\n" + errors.round(4).to_string())


if __name__ == "__main__":
    main()
