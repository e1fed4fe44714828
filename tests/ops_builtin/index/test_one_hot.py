"""ONE_HOT: on and off values at the positions of indices (outside the depth: all off).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.index_kernels import INDEX_DTYPES, OK, OneHotParams, index_lib, ptr
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "ONE_HOT",
        [
            T((2, 3), "int32", low=-1, high=6),
            const((), "int32", 5),
            const((), "float32", 3.0),
            const((), "float32", -1.0),
        ],
        [T((2, 3, 5), "float32")],
        options("OneHotOptionsT", axis=-1),
    ),
    "int32": SingleOp(
        "ONE_HOT",
        [
            T((4,), "int64", low=0, high=4),
            const((), "int32", 5),
            const((), "int32", 7),
            const((), "int32", 0),
        ],
        [T((5, 4), "int32")],
        options("OneHotOptionsT", axis=0),
    ),
}
"""Case name -> its one-operator model."""


def test_one_hot_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


# The kernel against a numpy model of the reference (support/index_kernels.py).


@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    data=st.data(),
    index_size=st.sampled_from([4, 8]),
    dtype=st.sampled_from([np.bool_, np.int8, np.int16, np.float32, np.int64]),
)
def test_one_hot_matches_reference(shape, data, index_size, dtype):
    depth = data.draw(st.integers(1, 6))
    axis = data.draw(st.integers(0, len(shape)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    indices = rng.integers(-2, depth + 2, size=shape).astype(INDEX_DTYPES[index_size])
    if index_size == 8 and indices.size:
        indices.flat[0] = 2**32 + 1  # LiteRT compares static_cast<int>(index): this is 1
    on, off = np.array([1], dtype=dtype), np.array([0], dtype=dtype)
    low = (indices.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    hot = np.moveaxis(low[..., None] == np.arange(depth), -1, axis)
    expected = np.where(hot, on[0], off[0]).astype(dtype)
    out = np.zeros(expected.shape, dtype=dtype)
    prefix = int(np.prod(shape[:axis], dtype=np.int64))
    p = OneHotParams(prefix, depth, int(np.prod(shape[axis:], dtype=np.int64)), out.itemsize, index_size)
    assert index_lib().hk_one_hot(ctypes.byref(p), ptr(indices), ptr(on), ptr(off), ptr(out)) == OK
    np.testing.assert_array_equal(out, expected)
