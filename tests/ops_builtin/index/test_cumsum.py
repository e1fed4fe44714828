"""CUMSUM: running sums along a constant axis (exclusive and reversed too).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot.errors import UnsupportedModelError
from helia_aot.testing import convert_model
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.index_kernels import CUMSUM_KINDS, OK, CumsumParams, index_lib, ptr, random_values
from ops_builtin.support.single_op import SingleOp, T, build, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "CUMSUM",
        [T((2, 3, 4), "float32"), const((), "int32", 1)],
        [T((2, 3, 4), "float32")],
        options("CumsumOptionsT"),
    ),
    "int32_exclusive_reverse": SingleOp(
        "CUMSUM",
        [T((2, 3, 4), "int32"), const((), "int32", -1)],
        [T((2, 3, 4), "int32")],
        options("CumsumOptionsT", exclusive=True, reverse=True),
    ),
}
"""Case name -> its one-operator model."""


def test_cumsum_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)


# The kernel against a numpy model of the reference (support/index_kernels.py).


@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    data=st.data(),
    dtype=st.sampled_from([np.float32, np.int32, np.int64]),
    exclusive=st.booleans(),
    reverse=st.booleans(),
)
def test_cumsum_matches_reference(shape, data, dtype, exclusive, reverse):
    axis = data.draw(st.integers(0, len(shape) - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    source = random_values(rng, shape, dtype)
    walk = np.flip(source, axis) if reverse else source
    with np.errstate(over="ignore"):
        sums = np.add.accumulate(walk, axis=axis, dtype=dtype)
    if exclusive:
        sums = np.concatenate([np.zeros_like(np.take(sums, [0], axis)), np.delete(sums, -1, axis)], axis)
    expected = np.flip(sums, axis) if reverse else sums
    out = np.zeros_like(source)
    p = CumsumParams(
        int(np.prod(shape[:axis], dtype=np.int64)),
        shape[axis],
        int(np.prod(shape[axis + 1 :], dtype=np.int64)),
        CUMSUM_KINDS[dtype],
        exclusive,
        reverse,
    )
    assert index_lib().hk_cumsum(ctypes.byref(p), ptr(source), ptr(out)) == OK
    np.testing.assert_array_equal(out, expected)


def test_cumsum_of_int8_is_refused_naming_the_supported_types(tmp_path):
    x = T((4,), "int8", (0.1, 0))
    model = build(SingleOp("CUMSUM", [x, const((), "int32", 0)], [x]), tmp_path / "model.tflite")
    with pytest.raises(UnsupportedModelError, match="supported: float32, int32, int64"):
        convert_model(model, tmp_path / "out")
