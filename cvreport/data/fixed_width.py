"""Integer codes of text keys of one fixed width, read from their bytes without hashing.

Record ids are often text of one width: zero-padded numbers (``"r00012345"``),
fixed-format codes. Hashing millions of them costs a cache miss per row; read
as an ``(n, width)`` byte matrix, the columns that vary turn each id into a
mixed-radix number instead (digit ``c`` running over the byte values seen in
column ``c``), in one vectorised pass. The numbers sort as the ids' bytes do —
UTF-8 byte order is code-point order, Python's and Arrow's order of text — so
when their range is small the codes are offsets and the labels come out
sorted. Anything else (nulls, ids of several widths, a large range) is left to
hashing (``None``).

Examples
--------
>>> import pyarrow as pa
>>> codes, labels = fixed_width_codes(pa.chunked_array([["r12", "r07", "r12"]]), 100)
>>> codes.tolist(), labels.to_pylist()
([1, 0, 1], ['r07', 'r12'])
>>> fixed_width_codes(pa.chunked_array([["a", "bb"]]), 100) is None
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fixed_width_codes"]

_ROWS = 1 << 16  # rows per step of the digit sums (temporaries stay in cache)
_FEW = 16  # codes few enough to be found by comparing


def _byte_matrix(chunk: Any) -> np.ndarray | None:
    """The ``(n, width)`` bytes of a string array whose every value has one width."""
    import pyarrow as pa

    if chunk.null_count:
        return None
    if pa.types.is_string(chunk.type) or pa.types.is_binary(chunk.type):
        offset_type = np.int32
    elif pa.types.is_large_string(chunk.type) or pa.types.is_large_binary(chunk.type):
        offset_type = np.int64
    else:
        return None
    n = len(chunk)
    buffers = chunk.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type)[chunk.offset : chunk.offset + n + 1]
    start = int(offsets[0])
    width = int(offsets[1]) - start if n else 0
    if int(offsets[-1]) - start != n * width:
        return None
    ramp = np.arange(_ROWS + 1, dtype=offset_type) * offset_type(width)
    for at in range(0, n, _ROWS):  # in steps: the comparison's temporaries stay in cache
        step = offsets[at : at + _ROWS + 1]
        if not np.array_equal(step, ramp[: step.shape[0]] + offset_type(start + at * width)):
            return None
    if width == 0:
        return np.zeros((n, 0), dtype=np.uint8)
    data = np.frombuffer(buffers[2], dtype=np.uint8)[start : start + n * width]
    return data.reshape(n, width)


def _column_reduce(matrix: np.ndarray, ufunc: Any) -> np.ndarray:
    """``ufunc.reduce(matrix, axis=0)``, with rows folded into wide ones for a long inner loop."""
    n, width = matrix.shape
    fold = max(1, 4096 // max(width, 1))
    whole = (n // fold) * fold
    result = ufunc.reduce(matrix[:whole].reshape(-1, fold * width), axis=0) if whole else None
    result = None if result is None else ufunc.reduce(result.reshape(fold, width), axis=0)
    if whole < n:
        tail = ufunc.reduce(matrix[whole:], axis=0)
        result = tail if result is None else ufunc(result, tail)
    assert result is not None
    return result


def _digit_sums(
    present: list[np.ndarray],
    n: int,
    varying: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    weights: np.ndarray,
) -> np.ndarray:
    """``Σ_c (byte_c − low_c)·weight_c`` over the varying columns of every row.

    Computed as ``Σ_c byte_c·weight_c − offset``: one dot product per row of the
    varying bytes (gathered, so einsum's inner loop runs on contiguous rows), in
    int32 unless the raw sum of the bytes could overflow it.
    """
    columns, column_weights = varying.tolist(), weights.tolist()
    offset = sum(int(low[c]) * w for c, w in zip(columns, column_weights))
    bound = sum(int(high[c]) * w for c, w in zip(columns, column_weights))
    work_type = np.int32 if bound <= np.iinfo(np.int32).max else np.int64
    codes = np.zeros(n, dtype=work_type)
    if not columns:
        return codes
    work_weights = np.asarray(column_weights, dtype=work_type)
    at = 0
    for matrix in present:
        for start in range(0, matrix.shape[0], _ROWS):
            digits = matrix[start : start + _ROWS][:, varying]
            out = codes[at + start : at + start + digits.shape[0]]
            np.einsum("ij,j->i", digits, work_weights, out=out, casting="unsafe")
        at += matrix.shape[0]
    codes -= work_type(offset)
    return codes


def fixed_width_codes(chunked: Any, max_span: int) -> tuple[np.ndarray, Any] | None:
    """Codes (int32 or int64, in sorted order) and labels (a sorted pyarrow array) of fixed-width text.

    Parameters
    ----------
    chunked : pyarrow.ChunkedArray
        Text (or binary) values without nulls.
    max_span : int
        Largest number of possible codes (the product of the columns' ranges)
        worth a counting pass; beyond it, ``None``.

    Returns
    -------
    (codes, labels) or None
        ``labels[codes[t]]`` is row ``t``'s value; ``None`` when the values are
        not all of one width, hold nulls, or span too many codes.
    """
    import pyarrow as pa

    matrices = [_byte_matrix(chunk) for chunk in chunked.chunks]
    if not matrices or any(m is None for m in matrices):
        return None
    present = [m for m in matrices if m is not None and m.shape[0]]
    widths = {m.shape[1] for m in present}
    if len(widths) != 1:
        return None
    width = widths.pop()
    n = sum(m.shape[0] for m in present)
    low = np.min([_column_reduce(m, np.minimum) for m in present], axis=0).astype(np.int64)
    high = np.max([_column_reduce(m, np.maximum) for m in present], axis=0).astype(np.int64)
    varying = np.flatnonzero(high > low)
    radix = high[varying] - low[varying] + 1
    span = 1
    for r in radix.tolist():
        span *= r
        if span > max_span:
            return None
    weights = np.ones(varying.shape[0], dtype=np.int64)
    for c in range(varying.shape[0] - 2, -1, -1):  # the last varying byte is the least significant
        weights[c] = weights[c + 1] * radix[c + 1]
    code_type = next(t for t in (np.int8, np.int16, np.int32, np.int64) if span <= np.iinfo(t).max)
    columns = varying.tolist()
    if len(columns) == 1:  # one varying byte (few labels, e.g. model names): it is the code
        codes = np.empty(n, dtype=code_type)
        at, (c,) = 0, columns
        for matrix in present:
            out = codes[at : at + matrix.shape[0]]
            np.subtract(matrix[:, c], np.uint8(low[c]), out=out, casting="unsafe")
            at += matrix.shape[0]
    else:
        codes = _digit_sums(present, n, varying, low, high, weights).astype(code_type, copy=False)
    if span <= _FEW:  # a comparison per code is cheaper than widening every code to count it
        used = np.array([v for v in range(span) if (codes == v).any()], dtype=np.int64)
    else:  # marking is cheaper than counting (no widening to intp, a byte per code)
        seen = np.zeros(span, dtype=bool)
        seen[codes] = True
        used = np.flatnonzero(seen)
    if used.shape[0] < span:
        lookup = np.zeros(span, dtype=code_type)
        lookup[used] = np.arange(used.shape[0], dtype=code_type)
        codes = lookup[codes]
    text = np.broadcast_to(present[0][0], (used.shape[0], width)).copy()
    rest = used.astype(np.int64)
    for c, weight, r in zip(varying.tolist(), weights.tolist(), radix.tolist()):
        text[:, c] = (rest // weight) % r + low[c]
    arrow_type = chunked.type
    offset_type = np.int64 if arrow_type in (pa.large_string(), pa.large_binary()) else np.int32
    label_offsets = np.arange(used.shape[0] + 1, dtype=offset_type) * offset_type(width)
    labels = pa.Array.from_buffers(
        arrow_type,
        used.shape[0],
        [None, pa.py_buffer(label_offsets), pa.py_buffer(text.tobytes())],
    )
    return codes, labels
