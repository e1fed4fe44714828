"""Property tests of hk_argminmax against a numpy model of LiteRT's ArgMinMax.

The model walks the reduced axis like the reference: a later element replaces the running best
only when strictly better, so ties keep the first index; for float32 a NaN is never chosen over
a number and an all-NaN run gives index 0 (LiteRT's NaN-aware comparator).
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels

STATUS_OK = 0
STATUS_BAD_PARAM = 5
KERNELS = {np.int8: "s8", np.uint8: "u8", np.int16: "s16", np.int32: "s32", np.float32: "f32"}


class ArgMinMaxParams(ctypes.Structure):
    _fields_ = [
        ("outer_size", ctypes.c_int32),
        ("axis_size", ctypes.c_int32),
        ("inner_size", ctypes.c_int32),
        ("is_arg_max", ctypes.c_bool),
        ("output_int64", ctypes.c_bool),
    ]


def _kernel(dtype):
    fn = getattr(build_kernels("argminmax"), f"hk_argminmax_{KERNELS[dtype]}")
    fn.argtypes = [ctypes.POINTER(ArgMinMaxParams), ctypes.c_void_p, ctypes.c_void_p]
    return fn


def _reference(x: np.ndarray, is_max: bool) -> np.ndarray:
    """x [outer, axis, inner] -> first index of the max/min per (outer, inner)."""
    best = x[:, 0, :].copy()
    index = np.zeros(best.shape, dtype=np.int64)
    for i in range(1, x.shape[1]):
        value = x[:, i, :]
        with np.errstate(invalid="ignore"):
            better = value > best if is_max else value < best
        if x.dtype.kind == "f":
            better = ~np.isnan(value) & (np.isnan(best) | better)
        best = np.where(better, value, best)
        index = np.where(better, i, index)
    return index


@st.composite
def _values(draw, dtype, shape):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype == np.float32:
        # Few distinct values so ties are common; some NaN and signed zeros.
        pool = np.array([np.nan, -0.0, 0.0, 1.5, -2.25, np.inf, -np.inf, 3.0], dtype=np.float32)
        return rng.choice(pool[: draw(st.integers(2, len(pool)))], size=shape)
    info = np.iinfo(dtype)
    narrow = draw(st.booleans())
    lo, hi = (-2, 3) if narrow else (info.min, info.max + 1)
    return rng.integers(max(lo, info.min), min(hi, info.max + 1), size=shape, dtype=dtype)


@given(data=st.data(), dtype=st.sampled_from(list(KERNELS)), is_max=st.booleans(), output_int64=st.booleans())
def test_argminmax_matches_reference(data, dtype, is_max, output_int64):
    shape = (data.draw(st.integers(0, 4)), data.draw(st.integers(1, 9)), data.draw(st.integers(0, 5)))
    x = data.draw(_values(dtype, shape))
    out = np.full((shape[0], shape[2]), -7, dtype=np.int64 if output_int64 else np.int32)
    params = ArgMinMaxParams(*shape, is_max, output_int64)
    assert _kernel(dtype)(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == STATUS_OK
    np.testing.assert_array_equal(out, _reference(x, is_max))


def test_argminmax_nan_cases_from_litert():
    """Rows checked against the installed LiteRT interpreter (ARG_MAX over the last axis)."""
    nan = np.nan
    rows = np.array(
        [[nan, 0.1, 0.5, 0.2, 0], [0.1, nan, 0.5, 0.2, 0], [nan] * 5, [nan, -1, -1, 3, 3]], dtype=np.float32
    )
    out = np.zeros(4, dtype=np.int32)
    params = ArgMinMaxParams(4, 5, 1, True, False)
    assert _kernel(np.float32)(ctypes.byref(params), rows.ctypes.data, out.ctypes.data) == STATUS_OK
    np.testing.assert_array_equal(out, [2, 2, 0, 3])


def test_argminmax_rejects_empty_axis():
    x = np.zeros(4, dtype=np.int8)
    out = np.zeros(4, dtype=np.int32)
    params = ArgMinMaxParams(1, 0, 1, True, False)
    assert _kernel(np.int8)(ctypes.byref(params), x.ctypes.data, out.ctypes.data) == STATUS_BAD_PARAM
