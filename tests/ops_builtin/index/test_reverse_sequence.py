"""REVERSE_SEQUENCE: the first lengths[b] elements of each batch's sequence reversed.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.index_kernels import (
    INDEX_DTYPES,
    INDEX_RANGE,
    OK,
    ReverseSequenceParams,
    dims_of,
    index_lib,
    ptr,
    random_values,
)
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "REVERSE_SEQUENCE",
        [T((3, 4, 5), "float32"), T((5,), "int32", low=0, high=4)],
        [T((3, 4, 5), "float32")],
        options("ReverseSequenceOptionsT", seqDim=1, batchDim=2),
    ),
    "int32": SingleOp(
        "REVERSE_SEQUENCE",
        [T((3, 4, 5), "int32"), const((3,), "int64", [3, 0, 5])],
        [T((3, 4, 5), "int32")],
        options("ReverseSequenceOptionsT", seqDim=2, batchDim=0),
    ),
}
"""Case name -> its one-operator model."""


def test_reverse_sequence_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


# The kernel against a numpy model of the reference (support/index_kernels.py).


@given(
    shape=st.lists(st.integers(1, 5), min_size=2, max_size=4),
    data=st.data(),
    index_size=st.sampled_from([4, 8]),
    dtype=st.sampled_from([np.uint8, np.int16, np.float32, np.int64]),
)
def test_reverse_sequence_matches_reference(shape, data, index_size, dtype):
    seq_dim, batch_dim = data.draw(st.permutations(range(len(shape))))[:2]
    lengths = np.array(
        [data.draw(st.integers(0, shape[seq_dim])) for _ in range(shape[batch_dim])],
        dtype=INDEX_DTYPES[index_size],
    )
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    source = random_values(rng, shape, dtype)
    expected = source.copy()
    for b, length in enumerate(lengths.astype(np.int64)):
        at = [slice(None)] * len(shape)
        at[batch_dim] = b
        at[seq_dim] = slice(0, length)
        expected[tuple(at)] = np.flip(source[tuple(at)], axis=seq_dim - (batch_dim < seq_dim))
    out = np.zeros_like(source)
    p = ReverseSequenceParams(len(shape), source.itemsize, index_size, seq_dim, batch_dim, dims_of(shape))
    lib = index_lib()
    assert lib.hk_reverse_sequence(ctypes.byref(p), ptr(source), ptr(lengths), ptr(out)) == OK
    np.testing.assert_array_equal(out, expected)
    lengths[int(rng.integers(0, lengths.size))] = shape[seq_dim] + 1
    untouched = np.zeros_like(source)
    assert lib.hk_reverse_sequence(ctypes.byref(p), ptr(source), ptr(lengths), ptr(untouched)) == INDEX_RANGE
    assert not untouched.any()
