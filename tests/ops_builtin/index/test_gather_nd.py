"""GATHER_ND: slices of the input at index vectors.

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
    INDEX_RANGE,
    OK,
    index_lib,
    index_vectors,
    nd_case,
    nd_params,
    ptr,
    random_values,
)
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "GATHER_ND",
        [
            T((3, 4, 5), "float32"),
            const((2, 3, 2), "int32", [[[0, 1], [2, 3], [1, 0]], [[2, 2], [0, 0], [1, 3]]]),
        ],
        [T((2, 3, 5), "float32")],
    ),
    "int8": SingleOp(
        "GATHER_ND",
        [T((3, 4, 5), "int8", (0.05, 3)), const((2, 1), "int64", [[2], [0]])],
        [T((2, 4, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_gather_nd_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


# The kernel against a numpy model of the reference (support/index_kernels.py).


@given(case=nd_case(), dtype=st.sampled_from([np.int8, np.int16, np.float32, np.int64]))
def test_gather_nd_matches_reference(case, dtype):
    shape, depth, count, index_size, seed = case
    rng = np.random.default_rng(seed)
    params = random_values(rng, shape, dtype)
    vectors = index_vectors(rng, shape, depth, count, index_size)
    expected = np.stack([params[tuple(v)] for v in vectors.astype(np.int64)])
    out = np.zeros_like(expected)
    p = nd_params(shape, depth, count, params.itemsize, index_size)
    assert index_lib().hk_gather_nd(ctypes.byref(p), ptr(params), ptr(vectors), ptr(out)) == OK
    np.testing.assert_array_equal(out, expected)


@given(case=nd_case(), bad=st.sampled_from(["negative", "past_end", "huge"]))
def test_gather_nd_refuses_vectors_outside_without_writing(case, bad):
    shape, depth, count, index_size, seed = case
    if depth == 0:
        depth = 1
    rng = np.random.default_rng(seed)
    params = random_values(rng, shape, np.int8)
    vectors = index_vectors(rng, shape, depth, count, index_size)
    # LiteRT's reference refuses a negative coordinate or a flat position past the end.
    row = int(rng.integers(0, count))
    if bad == "negative":
        vectors[row, int(rng.integers(0, depth))] = -1
    elif bad == "past_end":
        vectors[row, 0] = shape[0]
    else:
        vectors[row, depth - 1] = np.iinfo(vectors.dtype).max
    out = np.full((count, *shape[depth:]), 0x5A, dtype=np.int8)
    p = nd_params(shape, depth, count, 1, index_size)
    assert index_lib().hk_gather_nd(ctypes.byref(p), ptr(params), ptr(vectors), ptr(out)) == INDEX_RANGE
    assert (out == 0x5A).all()
