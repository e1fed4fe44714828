"""Property tests of hk_math's int32/int64 ADD, SUB, MUL, MAXIMUM and MINIMUM and hk_compare's
int64 comparisons against numpy models of LiteRT's reference arithmetic (two's-complement
wrap-around, then the int32 fused activation clamp), over hypothesis-drawn broadcasts and values.
The models are pinned to the reference interpreter by the builder-model tests in
tests/ops_builtin/elementwise/test_int32_arithmetic_ops.py.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.elementwise.test_elementwise_math_kernels import (
    CompareParams,
    MathParams,
    broadcast_pair,
    fast,
    ptr,
    walk,
)
from ops_builtin.support.cbuild import build_kernels

OPS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
COMPARE = {0: np.equal, 1: np.not_equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal}
CLAMPS = {"NONE": (-(2**31), 2**31 - 1), "RELU": (0, 2**31 - 1), "RELU6": (0, 6), "RELU_N1_TO_1": (-1, 1)}


def values(rng, shape, dtype, narrow):
    info = np.iinfo(dtype)
    low, high = (-9, 9) if narrow else (info.min, info.max)
    return rng.integers(low, high, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@fast
@given(
    case=broadcast_pair(),
    seed=st.integers(0, 2**32 - 1),
    narrow=st.booleans(),
    clamp=st.sampled_from(sorted(CLAMPS)),
)
def test_integer_arithmetic(op, dtype, case, seed, narrow, clamp):
    out_shape, (s1, s2) = case
    if dtype == np.int64 or op in ("maximum", "minimum"):
        clamp = "NONE"  # int64 and MAXIMUM/MINIMUM take no activation
    rng = np.random.default_rng(seed)
    a, b = values(rng, s1, dtype, narrow), values(rng, s2, dtype, narrow)
    with np.errstate(over="ignore"):
        want = OPS[op](a, b).astype(dtype)
    if dtype == np.int32:
        want = np.clip(want, *CLAMPS[clamp]).astype(dtype)
    want = np.broadcast_to(want, out_shape)
    lo, hi = CLAMPS[clamp]
    params = MathParams(walk(out_shape, [s1, s2]), -3.4e38, 3.4e38, lo, hi)
    out = np.zeros(out_shape, dtype)
    suffix = "s32" if dtype == np.int32 else "s64"
    fn = getattr(build_kernels("math"), f"hk_{op}_{suffix}")
    assert fn(ctypes.byref(params), ptr(a), ptr(b), ptr(out)) == 0
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("code", sorted(COMPARE))
@fast
@given(case=broadcast_pair(), seed=st.integers(0, 2**32 - 1), narrow=st.booleans())
def test_int64_comparisons(code, case, seed, narrow):
    out_shape, (s1, s2) = case
    rng = np.random.default_rng(seed)
    a, b = values(rng, s1, np.int64, narrow), values(rng, s2, np.int64, narrow)
    params = CompareParams(walk(out_shape, [s1, s2]), code)
    out = np.zeros(out_shape, np.bool_)
    assert build_kernels("compare").hk_compare_s64(ctypes.byref(params), ptr(a), ptr(b), ptr(out)) == 0
    np.testing.assert_array_equal(out, np.broadcast_to(COMPARE[code](a, b), out_shape))
