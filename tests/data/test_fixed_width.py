"""Codes of fixed-width text read from its bytes agree with hashing and sorting."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvreport.data.fixed_width import fixed_width_codes
from cvreport.data.labels import encode_labels


def _by_hashing(values: list[str]) -> tuple[list[int], list[str]]:
    labels = sorted(set(values))
    position = {v: t for t, v in enumerate(labels)}
    return [position[v] for v in values], labels


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(0, 6),
    alphabet=st.sampled_from(["01", "0123456789", "abcXYZ", "aé€😀", "\x00\x7f "]),
    n=st.integers(1, 60),
    chunks=st.integers(1, 3),
    data=st.data(),
)
def test_codes_and_labels_equal_sorting_the_distinct_values(width, alphabet, n, chunks, data):
    texts = st.text(alphabet=alphabet, min_size=width, max_size=width)
    values = data.draw(st.lists(texts, min_size=n, max_size=n))
    widths = {len(v.encode()) for v in values}
    cut = sorted(data.draw(st.lists(st.integers(0, n), min_size=chunks - 1, max_size=chunks - 1)))
    bounds = [0, *cut, n]
    chunked = pa.chunked_array(
        [pa.array(values[a:b], pa.large_string()) for a, b in itertools.pairwise(bounds)],
        type=pa.large_string(),
    )
    limit = 10**6
    found = fixed_width_codes(chunked, limit)
    if len(widths) > 1:  # several byte widths (multi-byte characters): left to hashing
        assert found is None
        return
    columns = np.array([list(v.encode()) for v in values], dtype=np.int64).reshape(n, -1)
    span = int(np.prod(columns.max(axis=0) - columns.min(axis=0) + 1, dtype=object))
    if span > limit:  # too many possible codes to count: left to hashing
        assert found is None
        return
    assert found is not None
    codes, labels = _by_hashing(values)
    assert found[0].tolist() == codes
    assert found[1].to_pylist() == labels


def test_a_large_span_nulls_or_several_widths_are_left_to_hashing():
    assert fixed_width_codes(pa.chunked_array([["a0", "zz", "Q5"]]), 100) is None
    assert fixed_width_codes(pa.chunked_array([["ab", None]]), 100) is None
    assert fixed_width_codes(pa.chunked_array([["ab", "abc"]]), 100) is None
    assert fixed_width_codes(pa.chunked_array([pa.array([1, 2])]), 100) is None


def test_a_sliced_array_reads_its_own_rows():
    array = pa.array(["k03", "k01", "k02", "k09"]).slice(1, 2)
    codes, labels = fixed_width_codes(pa.chunked_array([array]), 100)
    assert codes.tolist() == [0, 1]
    assert labels.to_pylist() == ["k01", "k02"]


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", pd.ArrowDtype(pa.string())])
@pytest.mark.parametrize("order", ["sorted", "appearance"])
def test_encode_labels_gives_the_same_codes_as_for_python_strings(dtype, order):
    rng = np.random.default_rng(4)
    values = [f"id{v:05d}" for v in rng.integers(0, 3000, size=5000)]
    arrow_codes, arrow_labels = encode_labels(pd.Series(values, dtype=dtype), "r", "record", order)
    plain_codes, plain_labels = encode_labels(pd.Series(values, dtype=object), "r", "record", order)
    assert arrow_codes.tolist() == plain_codes.tolist()
    assert arrow_labels.tolist() == plain_labels.tolist()
    assert arrow_labels.dtype == pd.Series(values, dtype=dtype).dtype


def test_byte_sums_beyond_int32_are_summed_in_int64():
    """16 characters out of 'ý', 'þ', 'ÿ' (UTF-8 C3 BD–BF): 3¹⁶ ≈ 43M codes fit int32, but the
    raw byte sum 191·(3¹⁶ − 1)/2 ≈ 4.1e9 of the largest id does not: it is summed in int64."""
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 3, size=(200, 16))
    rows[0], rows[1] = 0, 2  # every varying byte spans BD to BF
    values = ["".join("ýþÿ"[d] for d in row) for row in rows]
    assert 191 * (3**16 - 1) // 2 > np.iinfo(np.int32).max
    codes, labels = fixed_width_codes(pa.chunked_array([values]), 3**16)
    expected_codes, expected_labels = _by_hashing(values)
    assert codes.tolist() == expected_codes
    assert labels.to_pylist() == expected_labels


def test_one_varying_byte_over_its_whole_range_is_its_own_code():
    """Model names such as 'model_0'…: one byte varies; from 0x00 to 0xFF it needs int16 codes."""
    values = ["m" + bytes([b]).decode("latin-1") for b in (0xFF, 0x00, 0x41, 0xFF)]
    raw = pa.chunked_array([pa.array([v.encode("latin-1") for v in values], pa.binary())] * 2)
    codes, labels = fixed_width_codes(raw, 1000)
    assert codes.dtype == np.int16
    assert codes.tolist() == [2, 0, 1, 2] * 2
    assert labels.to_pylist() == [b"m\x00", b"mA", b"m\xff"]
