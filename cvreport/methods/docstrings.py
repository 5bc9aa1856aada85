"""Docstring sections the tests share, written once: parameters, and the example data
of their Examples (a hold-out, K-fold, m×2 or 5×2 BCV frame ``df``).

A public test function writes ``{pair_parameters}`` (or another key of
:data:`SECTIONS`) where the shared text belongs, and :func:`fill_doc` puts the
text in when the module is imported, so ``help()``, IDEs and the docs show the
whole docstring while the source keeps one copy. Like scipy.stats'
``_axis_nan_policy`` decorator, it changes only the docstring, never the
signature.

Examples
--------
>>> @fill_doc
... def f(table, a=None, b=None, *, data=None):
...     '''Compare two models.
...
...     Parameters
...     ----------
...     {pair_parameters}
...     '''
>>> "The results, or a formula" in f.__doc__
True
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


def fill_doc(function: F) -> F:
    """Fill the ``{name}`` placeholders of ``function.__doc__`` from :data:`SECTIONS`.

    Each section is indented like the placeholder's line.
    """
    doc = function.__doc__
    if doc is None:
        return function
    lines = []
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith("{") and stripped.endswith("}") and stripped[1:-1] in SECTIONS:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(textwrap.indent(SECTIONS[stripped[1:-1]], indent))
        else:
            lines.append(line)
    function.__doc__ = "\n".join(lines)
    return function
