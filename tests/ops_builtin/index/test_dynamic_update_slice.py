"""DYNAMIC_UPDATE_SLICE: an update written into the input at run-time starts (clamped into range).

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
    OK,
    UpdateSliceParams,
    dims_of,
    index_lib,
    ptr,
    random_values,
)
from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "DYNAMIC_UPDATE_SLICE",
        [T((3, 4, 5), "float32"), T((2, 2, 3), "float32"), T((3,), "int32", low=-2, high=6)],
        [T((3, 4, 5), "float32")],
    ),
    "int8": SingleOp(
        "DYNAMIC_UPDATE_SLICE",
        [T((3, 4, 5), "int8", (0.05, 3)), T((2, 2, 3), "int8", (0.05, 3)), const((3,), "int32", [1, 9, -4])],
        [T((3, 4, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_dynamic_update_slice_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


# The kernel against a numpy model of the reference (support/index_kernels.py).


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    data=st.data(),
    index_size=st.sampled_from([4, 8]),
    dtype=st.sampled_from([np.int8, np.int16, np.float32, np.int64]),
)
def test_dynamic_update_slice_clamps_starts_as_the_reference(shape, data, index_size, dtype):
    update_shape = [data.draw(st.integers(1, n)) for n in shape]
    starts = np.array([data.draw(st.integers(-3, n + 3)) for n in shape], dtype=INDEX_DTYPES[index_size])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    operand, update = random_values(rng, shape, dtype), random_values(rng, update_shape, dtype)
    expected = operand.copy()
    clamped = [min(max(0, int(s)), n - u) for s, n, u in zip(starts, shape, update_shape)]
    expected[tuple(slice(c, c + u) for c, u in zip(clamped, update_shape))] = update
    out = np.zeros_like(operand)
    p = UpdateSliceParams(len(shape), operand.itemsize, index_size, dims_of(shape), dims_of(update_shape))
    assert (
        index_lib().hk_dynamic_update_slice(ctypes.byref(p), ptr(operand), ptr(update), ptr(starts), ptr(out))
        == OK
    )
    np.testing.assert_array_equal(out, expected)
