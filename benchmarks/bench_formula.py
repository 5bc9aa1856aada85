"""Time to read hostile formulas: every answer, a value or a refusal, in linear time.

Prints, for the record:

1. the time to parse and evaluate a comparison chain ``a < b < a < ...`` of
   500 to 4,000 links on 10,000 rows (linear: twice the links, about twice
   the time; the chain once took 28 s at 2,000 links and grew quadratically);
2. the time to refuse a formula longer than ``MAX_EXPRESSION_LENGTH``, one
   nested deeper than ``MAX_NESTING_DEPTH`` and a constant string repetition;
3. the time to split a ``cluster(...)`` term out of a formula holding a run of
   20,000 spaces (the former pattern backtracked cubically over such runs).

Run ``python benchmarks/bench_formula.py``.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from cvreport.data.formula import (
    MAX_EXPRESSION_LENGTH,
    MAX_NESTING_DEPTH,
    evaluate_response,
    parse_formula,
    split_cluster_term,
)
from cvreport.errors import FormulaError


def _timed(what: str, run) -> None:
    start = time.perf_counter()
    try:
        run()
        outcome = "value"
    except FormulaError as error:
        outcome = f"FormulaError ({str(error)[:60]}...)"
    print(f"{what:<48} {time.perf_counter() - start:8.3f} s  {outcome}")


def main() -> None:
    rng = np.random.default_rng(0)
    n = 10_000
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "model": ["m"] * n})
    for links in (500, 1_000, 2_000, 4_000):
        chain = " < ".join(["a", "b"] * (links // 2))
        _timed(
            f"chain of {links:,} links, {n:,} rows",
            lambda chain=chain: evaluate_response(parse_formula(f"{{{chain}}} ~ model"), frame),
        )
    too_long = "{" + " + ".join(["a"] * (MAX_EXPRESSION_LENGTH // 4 + 1)) + "} ~ model"
    _timed(f"{len(too_long):,} characters", lambda: parse_formula(too_long))
    deep = "-" * (MAX_NESTING_DEPTH + 1) + "a"
    _timed(f"nested {MAX_NESTING_DEPTH + 1} deep", lambda: parse_formula(f"{{{deep}}} ~ model"))
    deeper = " + ".join(["a"] * 3_000)
    _timed("a sum of 3,000 terms", lambda: parse_formula(f"{{{deeper}}} ~ model"))
    _timed("'a' * 10**11", lambda: parse_formula("{'a' * 100000000000 == a} ~ model"))
    spaces = "loss ~ model |" + " " * 20_000 + "fold + cluster(doc)"
    _timed("cluster() after 20,000 spaces", lambda: split_cluster_term(spaces))


if __name__ == "__main__":
    main()
