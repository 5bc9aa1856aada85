"""The random draws of the resampling tests, streamed in cache-sized chunks.

The draws are scipy.stats' own (the same generator calls in the same order),
cut into arrays of about a million values that a second thread produces while
the first computes, so the results equal scipy.stats.bootstrap's and
permutation_test's for a given seed without holding every draw at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

__all__ = ["bootstrap_draws", "kept_units", "prefetched"]


_CHUNK = 1_000_000  # draws per array: a chunk and its counts stay in the processor's cache
_END = object()


def prefetched(items: Iterator[Any]) -> Iterator[Any]:
    """Yield ``items``, producing the next one on a second thread meanwhile (numpy's
    generators and array functions release the GIL, so drawing and computing overlap)."""
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(next, items, _END)
        while True:
            item = pending.result()
            if item is _END:
                return
            pending = pool.submit(next, items, _END)
            yield item


def bootstrap_draws(
    rng: np.random.Generator,
    sizes: list[int],
    n_resamples: int,
    batch: int | None,
) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(first resample, fold, draws)`` in scipy.stats.bootstrap's order of draws.

    scipy draws ``rng.integers(0, n_f, (batch, n_f))`` for each fold in turn, batch
    by batch (one batch of every resample when ``batch`` is None); each such draw
    is cut here into rows of about ``_CHUNK`` values, which numpy's generators
    produce from the same stream (a bounded draw below 2³² takes one 32-bit value
    at a time).
    """
    nominal = batch or n_resamples
    for start in range(0, n_resamples, nominal):
        rows = min(nominal, n_resamples - start)
        for f, size in enumerate(sizes):
            step = max(1, _CHUNK // size)
            for first in range(start, start + rows, step):
                k = min(step, start + rows - first)
                yield first, f, rng.integers(0, size, (k, size))


def kept_units(
    rng: np.random.Generator, n_units: int, n_resamples: int
) -> Iterator[tuple[int, np.ndarray]]:
    """``(first swap, kept)``: 1 where a unit keeps its predictions, as scipy.stats draws.

    scipy's ``permutation_test(permutation_type="samples")`` shuffles each pair
    with ``Generator.permuted``, which takes one 32-bit value per pair and swaps
    when its lowest bit is 0.
    """
    step = max(1, _CHUNK // n_units)
    for first in range(0, n_resamples, step):
        k = min(step, n_resamples - first)
        bits = rng.integers(0, 2**32, (k, n_units), dtype=np.uint32)
        yield first, np.bitwise_and(bits, 1).astype(np.float64)
