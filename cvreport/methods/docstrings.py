"""Docstring sections the tests share, written once: parameters, and the example data
of their Examples (a hold-out, K-fold, m×2 or 5×2 BCV frame ``df``).

A public test function writes ``{pair_parameters}`` (or another key of
:data:`SECTIONS`) where the shared text belongs, and :func:`fill_doc` puts the
text in when the module is imported, so ``help()``, IDEs and the docs show the
whole docstring while the source keeps one copy. Like scipy.stats'
``_axis_nan_policy`` decorator, it changes only the docstring, never the
signature. A key starting with ``parameters_``, ``raises_`` or ``examples_`` holds
a whole section, title and rule included, composed from the other keys;
``{returns}`` is the Returns section naming the return annotation.

Examples
--------
>>> @fill_doc
... def f(table, a=None, b=None, *, data=None) -> TTestResult:
...     '''Compare two models.
...
...     Parameters
...     ----------
...     {pair_parameters}
...
...     {returns}
...     '''
>>> "The results, or a formula" in f.__doc__, f.__doc__.split()[-3:]
(True, ['Returns', '-------', 'TTestResult'])
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import TypeVar

__all__ = ["SECTIONS", "fill_doc"]

F = TypeVar("F", bound=Callable[..., object])

SECTIONS = {
    "pair_parameters": """\
table : ResultsTable or str
    The results, or a formula such as ``"loss ~ model | replication + fold"`` with ``data=``.
a, b : model labels, optional
    Model A and model B; default to the two models when there are exactly two.""",
    "one_model_parameters": """\
table : ResultsTable or str
    The results, or a formula such as ``"loss ~ model | replication + fold"`` with ``data=``.
model : model label, optional
    The model to test; defaults to the only model of the table.
p0 : float
    The target error rate, strictly between 0 and 1.
alternative : {"greater", "less", "two-sided"}
    "greater" (default): H1 the model's error exceeds ``p0``.""",
    "alternative": """\
alternative : {"two-sided", "less", "greater"}
    About the difference A − B in the table's metric: "less" is H1 A has the lower
    loss (for a score: the lower score) than B; "greater" the reverse.""",
    "array_alternative": """\
alternative : {"two-sided", "less", "greater"}
    "less": H1 the differences A − B lie below 0 (A has the lower loss, or the lower
    score); "greater" the reverse.""",
    "margin_alternative": """\
alternative : {"two-sided", "less", "greater", "equivalent", "non-inferior"}
    About the difference A − B in the table's metric: "less" is H1 A has the lower
    loss (for a score: the lower score) than B; "greater" the reverse;
    "equivalent" is H1 −margin < A − B < margin (two one-sided tests);
    "non-inferior" is H1 A is not worse than B by margin or more.
margin : float, optional
    With "equivalent" or "non-inferior" only: a positive difference in the
    metric's units (see docs/methods.md, "Equivalence and non-inferiority").""",
    "array_margin_alternative": """\
alternative : {"two-sided", "less", "greater", "equivalent", "non-inferior"}
    "less": H1 the differences A − B lie below 0 (A has the lower loss, or the lower
    score); "greater" the reverse; "equivalent": H1 −margin < A − B < margin;
    "non-inferior": H1 A − B < margin (the differences are losses).
margin : float, optional
    With "equivalent" or "non-inferior" only: a positive difference in the
    units of the differences.""",
    "data": """\
data : DataFrame, optional
    The long-format data when ``table`` is a formula.""",
    "kfold_differences": """\
differences : array_like, shape (K,)
    The per-fold differences in mean loss, A − B.""",
    "mx2_differences": """\
differences : array_like, shape (m, 2) or (2m,)
    The split differences p_i^(j), A − B: rows are replications, columns the two
    folds; a flat vector of 2m values is read row by row.""",
    "array_raises": """\
DataError
    When an input is not numeric, holds a missing or infinite value, or has the
    wrong shape; the message says which.""",
    "kfold_design_raises": """\
DesignError
    Unless the table is a K-fold design (one replication, K ≥ 2 folds).""",
    "fold_differences_raises": """\
DataError
    Unless ``differences`` is a 1-D array of finite numbers.""",
    "margin_raises": """\
CVReportError
    A margin that is missing, not positive or NaN, or given with another alternative.""",
    "mcnemar_references": """\
References
----------
McNemar, Q. (1947). Note on the sampling error of the difference between correlated
proportions or percentages. Psychometrika 12(2):153–157. Edwards, A. L. (1948).
Psychometrika 13(3):185–187. Dietterich, T. G. (1998). Approximate statistical tests
for comparing supervised classification learning algorithms. Neural Computation
10(7):1895–1923.""",
    "example_kfold_scores": """\
>>> import pandas as pd
>>> import cvreport
>>> df = pd.DataFrame({"replication": 0, "fold": list(range(6)) * 2,
...                    "model": ["A"] * 6 + ["B"] * 6,
...                    "loss": [0.20, 0.22, 0.18, 0.25, 0.21, 0.19,
...                             0.24, 0.23, 0.22, 0.27, 0.26, 0.20]})
>>> table = cvreport.ResultsTable.from_fold_scores(df, score="loss", direction="lower")""",
    "one_model_target": """\
p0 : float
    The target error rate, strictly between 0 and 1.
alternative : {"greater", "less", "two-sided"}
    "greater" (default): H1 the error exceeds ``p0``.""",
    "blocked_3x2_references": """\
References
----------
Wang, Y., Wang, R., Jia, H., Li, J. (2014). Blocked 3×2 cross-validated t-test for
comparing supervised classification learning algorithms. Neural Computation
26(1):208–235.""",
    "example_holdout_scores": """\
>>> import pandas as pd
>>> from cvreport.data.table import ResultsTable
>>> df = pd.DataFrame({"model": ["A", "B"] * 4, "replication": [1, 1, 2, 2, 3, 3, 4, 4],
...                    "fold": 1, "accuracy": [0.80, 0.78, 0.75, 0.76, 0.82, 0.79, 0.81, 0.81]})
>>> t = ResultsTable.from_fold_scores(df, score="accuracy", test_train_ratio=0.5)""",
    "bcv_mcnemar_references": """\
References
----------
Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's
test for comparing two classification algorithms, eqs. 6–15 and Lemma 2.""",
    "corrected_kfold_references": """\
References
----------
Bouckaert & Frank (2004), PAKDD, LNCS 3056:3–12; against a margin, Schuirmann
(1987), J. Pharmacokinet. Biopharm. 15(6):657–680.""",
    "corrected_resampled_references": """\
References
----------
Nadeau & Bengio (2003), Machine Learning 52(3):239–281; against a margin,
Schuirmann (1987), J. Pharmacokinet. Biopharm. 15(6):657–680.""",
    "kfold_mcnemar_references": """\
References
----------
Yang, J., Wang, R., Song, Y., Li, J. Block-regularized 5×2 cross-validated McNemar's
test for comparing two classification algorithms, eq. 5.""",
    "one_model_count_raises": """\
DesignError
    For per-fold-score tables.
DataError
    When the losses are not 0/1 or ``model`` is ambiguous or unknown.""",
    "sign_references": """\
References
----------
Dixon & Mood (1946), JASA 41(236):557–566; for comparing classifiers, Demšar (2006),
JMLR 7:1–30, section 3.1.4.""",
    "wilcoxon_references": """\
References
----------
Wilcoxon (1945), Biometrics Bulletin 1(6):80–83; for comparing classifiers, Demšar
(2006), JMLR 7:1–30, section 3.1.3.""",
    "example_predictions": """\
>>> import pandas as pd
>>> from cvreport.data.table import ResultsTable
>>> df = pd.DataFrame({"model": ["A"] * 40 + ["B"] * 40, "record": list(range(40)) * 2,
...                    "y": [0, 1] * 40,
...                    "yhat": [0, 1] * 18 + [1, 0] * 2 + [0, 1] * 12 + [1, 0] * 8})""",
    "example_auc_scores": """\
>>> import pandas as pd
>>> from cvreport.data.table import ResultsTable
>>> df = pd.DataFrame({"model": ["A"] * 6 + ["B"] * 6, "record": list(range(6)) * 2,
...                    "y": [1, 1, 1, 0, 0, 0] * 2,
...                    "p": [0.9, 0.8, 0.3, 0.4, 0.2, 0.1, 0.7, 0.4, 0.6, 0.5, 0.3, 0.2]})
>>> t = ResultsTable.from_predictions(df, truth="y", score="p", metric="roc_auc",
...                                   replication=None, fold=None)""",
    "example_prediction_arrays": """\
>>> y = [0, 1] * 20
>>> a = [0, 1] * 18 + [1, 0] * 2
>>> b = [0, 1] * 12 + [1, 0] * 8""",
    "bootstrap_references": """\
References
----------
Koehn (2004); Berg-Kirkpatrick, Burkett & Klein (2012); Efron (1987).""",
    "permutation_references": """\
References
----------
Noreen (1989); Yeh (2000).""",
    "prediction_table_raises": """\
DesignError
    A table not built from predictions.
CVReportError
    An option out of range or of the wrong type, or a misspelt option name.""",
    "mx2_design_raises": """\
DesignError
    Unless the table is an m×2 design.""",
    # example data, named ``df`` (and ``t``, a table of fold scores), for the Examples
    "example_holdout": """\
>>> import numpy as np, pandas as pd
>>> import cvreport
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"model": ["A"] * 60 + ["B"] * 60, "record": list(range(60)) * 2,
...                    "loss": (rng.random(120) < 0.3).astype(int)})""",
    "example_kfold": """\
>>> import numpy as np, pandas as pd
>>> import cvreport
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame(
...     [(0, r % 5, model, r, int(rng.random() < p))
...      for r in range(100) for model, p in (("A", 0.2), ("B", 0.35))],
...     columns=["replication", "fold", "model", "record", "loss"])""",
    "example_mx2": """\
>>> import numpy as np, pandas as pd
>>> import cvreport
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame(
...     [(i, k, model, r, int(rng.random() < p))
...      for i in range(5) for r, k in enumerate(rng.permutation(40) % 2)
...      for model, p in (("A", 0.2), ("B", 0.35))],
...     columns=["replication", "fold", "model", "record", "loss"])""",
    "example_5x2bcv": """\
>>> import numpy as np, pandas as pd
>>> import cvreport
>>> rng = np.random.default_rng(0)
>>> training_blocks = [{1, 2, 3, 4}, {1, 3, 5, 7}, {1, 2, 5, 6}, {1, 4, 5, 8}, {1, 3, 6, 8}]
>>> df = pd.DataFrame(
...     [(i, int(r % 8 + 1 not in blocks), model, r, int(rng.random() < p))
...      for i, blocks in enumerate(training_blocks) for r in range(80)
...      for model, p in (("A", 0.2), ("B", 0.35))],
...     columns=["replication", "fold", "model", "record", "loss"])""",
    "example_fold_scores": """\
>>> import pandas as pd
>>> from cvreport.data.table import ResultsTable
>>> diffs = [0.02, -0.01, 0.03, 0.00, 0.01, 0.02, -0.02, 0.01, 0.04, 0.00]
>>> df = pd.DataFrame({"model": ["A"] * 10 + ["B"] * 10,
...                    "replication": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] * 2,
...                    "fold": [1, 2] * 10, "loss": diffs + [0.0] * 10})
>>> t = ResultsTable.from_fold_scores(df, score="loss", direction="lower")""",
}
#: the first three blocks of the 5×2 BCV design of the example above
SECTIONS["example_3x2bcv"] = SECTIONS["example_5x2bcv"].replace(
    "{1, 3, 6, 8}]\n", "{1, 3, 6, 8}][:3]\n"
)

# "parameters_*": a whole Parameters section (title, rule and entries) of shared text
_PARAMETERS = "Parameters\n----------\n"
SECTIONS["parameters_pair"] = _PARAMETERS + SECTIONS["pair_parameters"]
SECTIONS["parameters_pair_data"] = SECTIONS["parameters_pair"] + "\n" + SECTIONS["data"]
SECTIONS["parameters_pair_alternative_data"] = "\n".join(
    (SECTIONS["parameters_pair"], SECTIONS["alternative"], SECTIONS["data"])
)
SECTIONS["parameters_mx2_differences"] = _PARAMETERS + SECTIONS["mx2_differences"]
SECTIONS["parameters_one_model_data"] = (
    _PARAMETERS + SECTIONS["one_model_parameters"] + "\n" + SECTIONS["data"]
)

# "raises_*": a whole Raises section of shared text
for _name in ("array", "mx2_design", "one_model_count", "kfold_design", "fold_differences"):
    SECTIONS[f"raises_{_name}"] = "Raises\n------\n" + SECTIONS[f"{_name}_raises"]
# "examples_*": an Examples section that starts with the example data "example_*"
for _name in [name for name in SECTIONS if name.startswith("example_")]:
    SECTIONS["examples_" + _name[8:]] = "Examples\n--------\n" + SECTIONS[_name]


def fill_doc(function: F) -> F:
    """Fill the ``{name}`` placeholders of ``function.__doc__`` from :data:`SECTIONS`.

    Each section is indented like the placeholder's line. ``{returns}`` is the
    Returns section that names the return annotation the signature states.
    """
    doc = function.__doc__
    if doc is None:
        return function
    returns = function.__annotations__.get("return")
    sections = {**SECTIONS, "returns": f"Returns\n-------\n{getattr(returns, '__name__', returns)}"}
    lines = []
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith("{") and stripped.endswith("}") and stripped[1:-1] in sections:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(textwrap.indent(sections[stripped[1:-1]], indent))
        else:
            lines.append(line)
    function.__doc__ = "\n".join(lines)
    return function
