"""Example cross-validation results shipped with cvreport.

``"random"``: logistic regression, a decision tree and Gaussian naive Bayes on
scikit-learn's breast-cancer data (569 records) under Dietterich's 5×2
cross-validation (five independent random half/half splits), made by
``scripts/make_example.py``. ``"bcv"``: the same classifiers under the
block-regularized 5×2 partitions of Wang, Li, Yang & Wang, when its data file
has been made.

Each table has one row per (replication, fold, model, record) and the columns
``replication, fold, model, record, truth, prediction, loss`` (0/1 loss).
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from cvreport.errors import DataError

__all__ = ["EXAMPLES", "load_example"]

EXAMPLES = {
    "random": "Dietterich's 5×2 CV with random half/half splits (scripts/make_example.py)",
    "bcv": "block-regularized 5×2 CV partitions (made with scripts/make_example.py's "
    "collect_losses and the block-regularized splitter)",
    "multi": "five classifiers on ten binary tasks built from scikit-learn's data sets, 5×2 CV "
    "or 10-fold CV each; columns dataset, replication, fold, model, record, loss "
    "(scripts/make_example_multi.py)",
}


def load_example(name: str = "random") -> pd.DataFrame:
    """Load an example table of per-record cross-validation results.

    Parameters
    ----------
    name : {"random", "bcv"}
        Which example.

    Returns
    -------
    pandas.DataFrame
        Columns ``replication, fold, model, record, truth, prediction, loss``.

    Raises
    ------
    DataError
        For an unknown name.
    FileNotFoundError
        When the example's data file is not in the installed package.

    Examples
    --------
    >>> df = load_example()
    >>> sorted(df["model"].unique())
    ['decision_tree', 'logistic_regression', 'naive_bayes']
    >>> from cvreport.data.table import ResultsTable
    >>> ResultsTable.from_formula("loss ~ model | replication + fold", df).design.describe()
    '5×2 cross-validation (m = 5, K = 2, n = 569 records, folds of 284–285)'
    """
    if name not in EXAMPLES:
        raise DataError(f"unknown example {name!r}; the examples are {', '.join(EXAMPLES)}")
    resource = resources.files("cvreport").joinpath("data").joinpath(f"example_{name}.csv.gz")
    if not resource.is_file():
        raise FileNotFoundError(
            f"the data file of example {name!r} (cvreport/data/example_{name}.csv.gz) is not "
            "installed; make it from a checkout with scripts/make_example.py, or use "
            "load_example('random')"
        )
    with resources.as_file(resource) as path:
        return pd.read_csv(path)
