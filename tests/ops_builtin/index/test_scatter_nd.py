"""SCATTER_ND: updates summed into zeros of a constant shape at index vectors.

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
    OK,
    SCATTER_KINDS,
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
        "SCATTER_ND",
        [
            const((5, 2), "int32", [[0, 1], [1, 2], [0, 1], [1, 0], [0, 0]]),
            T((5, 4), "float32"),
            const((3,), "int32", [2, 3, 4]),
        ],
        [T((2, 3, 4), "float32")],
    ),
    "int32": SingleOp(
        "SCATTER_ND",
        [
            const((2, 2, 1), "int32", [[[5], [0]], [[5], [2]]]),
            T((2, 2, 3), "int32"),
            const((2,), "int32", [6, 3]),
        ],
        [T((6, 3), "int32")],
    ),
}
"""Case name -> its one-operator model."""


def test_scatter_nd_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


# The kernel against a numpy model of the reference (support/index_kernels.py).


@given(case=nd_case(), dtype=st.sampled_from(sorted(SCATTER_KINDS, key=lambda t: np.dtype(t).name)))
def test_scatter_nd_matches_reference(case, dtype):
    shape, depth, count, _, seed = case
    rng = np.random.default_rng(seed)
    vectors = index_vectors(rng, shape, depth, count, 4)
    updates = random_values(rng, (count, *shape[depth:]), dtype)
    expected = np.zeros(shape, dtype=dtype)
    for v, u in zip(vectors.astype(np.int64), updates):
        with np.errstate(over="ignore"):
            expected[tuple(v)] += u  # in index order; integers wrap
    out = np.full(shape, 7, dtype=dtype)
    p = nd_params(shape, depth, count, np.dtype(dtype).itemsize, 4, SCATTER_KINDS[dtype])
    assert index_lib().hk_scatter_nd(ctypes.byref(p), ptr(vectors), ptr(updates), ptr(out)) == OK
    np.testing.assert_array_equal(out, expected)
