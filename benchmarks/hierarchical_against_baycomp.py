"""The hierarchical test beside baycomp's HierarchicalTest on the cases of the test suite.

Needs ``pip install pystan`` (baycomp samples with Stan; the first run compiles the
model, which takes minutes) and ``pip install 'cvreport[hierarchical]'``. Prints, for
each case and seed, the three posterior probabilities of both implementations; the
values baycomp printed are the expected values of ``tests/multi/test_hierarchical.py``.

    python benchmarks/hierarchical_against_baycomp.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import aiohttp.client
import numpy as np
from baycomp.multiple import HierarchicalTest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cvreport.multi.hierarchical import hierarchical_test_array
from tests.multi.test_hierarchical import baycomp_case

# compiling the Stan model on a busy machine takes longer than aiohttp's 5 minutes
aiohttp.client.DEFAULT_TIMEOUT = aiohttp.ClientTimeout(total=3600)


def main() -> None:
    print("case  implementation        P(right)  P(rope)  P(left)  seconds")
    for case in (1, 2):
        x, y = baycomp_case(case)
        start = time.perf_counter()
        draws = HierarchicalTest.sample(
            x, y, rope=0.01, runs=1, chains=4, nsamples=5000, random_state=case
        )
        left, rope, right = np.bincount(draws.argmax(axis=1), minlength=3) / len(draws)
        print(
            f"{case:4d}  baycomp (Stan)        {right:8.4f} {rope:8.4f} {left:8.4f} "
            f"{time.perf_counter() - start:8.1f}"
        )
        for seed in (0, 1):
            start = time.perf_counter()
            ours = hierarchical_test_array(
                list(y - x), rho=0.1, rope=0.01, n_samples=4000, n_warmup=1000, seed=seed
            )
            print(
                f"{case:4d}  cvreport seed {seed}       {ours.p_a_better:8.4f} "
                f"{ours.p_equivalent:8.4f} {ours.p_b_better:8.4f} "
                f"{time.perf_counter() - start:8.1f}"
            )


if __name__ == "__main__":
    main()
