"""Published rejection rates to check the simulator against: Yang et al., Table V.

Yang, Wang, Song and Li (*Block-regularized 5×2 cross-validated McNemar's test
for comparing two classification algorithms*), Table V: type I errors at
α = 0.05 of the tests on five data sets. The paper does not state its number of
replications; 1,000 is likely (its §5.1 repeats every experiment 1,000 times),
which gives each printed rate a standard error of about 0.005.

Examples
--------
>>> TABLE_V["epsilon"]["combined_ttest_5x2cv"]
0.291
>>> import pandas as pd
>>> frame = pd.DataFrame({"test": ["mcnemar"], "design": ["hold-out 1/3"],
...                       "parameter": [0.0], "rate": [0.025], "se": [0.0005], "reps": [100000]})
>>> row = compare_with_paper(frame).iloc[0]
>>> float(row.paper), bool(row.agrees)
(0.031, True)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cvreport.errors import CVReportError, describe_keys

__all__ = ["PAPER_REPS", "TABLE_V", "TABLE_V_COLUMNS", "compare_with_paper"]

#: The columns of Table V (data sets).
TABLE_V_COLUMNS = ("epsilon", "exp6", "simple", "letter", "mnist")

_ROWS = {
    "paired_ttest_kfold": (0.043, 0.076, 0.109, 0.142, 0.090),
    "paired_ttest_5x2cv": (0.034, 0.050, 0.084, 0.061, 0.080),
    "combined_ttest_5x2cv": (0.291, 0.156, 0.214, 0.236, 0.150),
    "blocked_ttest_3x2cv": (0.087, 0.005, 0.015, 0.013, 0.020),
    "combined_ftest_5x2cv": (0.028, 0.028, 0.060, 0.057, 0.010),
    "calibrated_ftest_5x2cv": (0.035, 0.025, 0.055, 0.042, 0.040),
    "mcnemar": (0.031, 0.037, 0.029, 0.062, 0.060),
    "mcnemar_kfold": (0.000, 0.006, 0.020, 0.039, 0.020),
    "mcnemar_5x2bcv": (0.025, 0.006, 0.005, 0.015, 0.010),
}

#: ``TABLE_V[data set][test]``: the type I error printed in Yang et al. Table V.
TABLE_V: dict[str, dict[str, float]] = {
    column: {test: values[j] for test, values in _ROWS.items()}
    for j, column in enumerate(TABLE_V_COLUMNS)
}

#: The paper's likely number of replications per rate.
PAPER_REPS = 1000


def compare_with_paper(
    frame: pd.DataFrame,
    column: str = "epsilon",
    *,
    paper_reps: int = PAPER_REPS,
    z: float = 2.0,
) -> pd.DataFrame:
    """Add the paper's rate and whether the simulated rate agrees with it.

    A simulated rate agrees when ``|rate − paper| ≤ z·sqrt(se_paper² + se²)``, where
    ``se`` is the simulation's Monte Carlo error and ``se_paper`` the standard error
    of a ``paper_reps``-replication estimate. ``se_paper`` is evaluated at the
    simulated rate (``paper_se``), the far more precise estimate of the true rate;
    evaluated at the printed rate itself (``paper_se_printed``) it would be 0 for
    a printed 0.000 although 1,000 replications cannot tell 0 from 0.0001.
    ``agrees_printed`` applies the rule with ``paper_se_printed``.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`~cvreport.simulate.calibrate` (columns ``test, rate, se``).
    column : str
        Data set of Table V: ``"epsilon"`` or ``"simple"`` match cvreport's
        scenarios of the same name.
    paper_reps : int
        Replications assumed behind every printed rate.
    z : float
        Multiple of the combined standard error allowed.

    Returns
    -------
    DataFrame
        ``frame`` with columns ``paper, paper_se, paper_se_printed, tolerance,
        difference, agrees, agrees_printed`` (NaN / False for tests that Table V does not list).

    Examples
    --------
    >>> from cvreport import simulate
    >>> frame = simulate.calibrate("epsilon", tests=["combined_ftest_5x2cv"], reps=500, seed=1,
    ...                            progress=False)
    >>> compare_with_paper(frame)[["test", "rate", "paper", "agrees"]].to_dict("records")
    [{'test': 'combined_ftest_5x2cv', 'rate': 0.036, 'paper': 0.028, 'agrees': True}]
    """
    if column not in TABLE_V:
        raise CVReportError(
            f"Table V has no column {column!r}; choose among {describe_keys(TABLE_V_COLUMNS)}"
        )
    out = frame.copy()
    paper = out["test"].map(TABLE_V[column]).astype(float)
    rate = out["rate"].astype(float)
    se = out["se"].astype(float)
    paper_se = np.sqrt(rate * (1 - rate) / paper_reps)
    paper_se_printed = np.sqrt(paper * (1 - paper) / paper_reps)
    tolerance = z * np.sqrt(paper_se**2 + se**2)
    difference = rate - paper
    out["paper"] = paper
    out["paper_se"] = paper_se
    out["paper_se_printed"] = paper_se_printed
    out["tolerance"] = tolerance
    out["difference"] = difference
    out["agrees"] = (difference.abs() <= tolerance).fillna(False).astype(bool)
    printed_tolerance = z * np.sqrt(paper_se_printed**2 + se**2)
    out["agrees_printed"] = (difference.abs() <= printed_tolerance).fillna(False).astype(bool)
    out.attrs = dict(frame.attrs)
    out.attrs["reference"] = (
        f"Yang et al. Table V, {column} column ({paper_reps} replications assumed)"
    )
    return out
