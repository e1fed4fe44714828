"""Property test of hk_quantize_channel_f32_{s8,s16} against the numpy model of LiteRT's
AffineQuantize (elementwise_refmodels.affine_quantize, pinned by test_quantize.py), applied per
channel as PerChannelQuantize does: the element at [outer, c, inner] uses scale[c], zero_point[c].
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.elementwise_refmodels import affine_quantize


class ChannelParams(ctypes.Structure):
    _fields_ = [("outer", ctypes.c_int32), ("channels", ctypes.c_int32), ("inner", ctypes.c_int32)]


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@settings(max_examples=80, deadline=None)
@given(
    dims=st.tuples(st.integers(0, 4), st.integers(1, 6), st.integers(0, 5)),
    seed=st.integers(0, 2**32 - 1),
    spread=st.sampled_from([0.5, 40.0, 5000.0]),
)
def test_per_channel_quantize(dtype, dims, seed, spread):
    outer, channels, inner = dims
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((outer, channels, inner)) * spread).astype(np.float32)
    scales = rng.uniform(1e-3, 0.5, channels).astype(np.float32)
    bound = 128 if dtype == np.int8 else 4000
    zero_points = rng.integers(-bound, bound, channels).astype(np.int32)
    want = np.empty(x.shape, dtype)
    for c in range(channels):
        want[:, c, :] = affine_quantize(x[:, c, :], float(scales[c]), int(zero_points[c]), dtype)
    out = np.zeros(x.shape, dtype)
    fn = getattr(build_kernels("quantize"), f"hk_quantize_channel_f32_{'s8' if dtype == np.int8 else 's16'}")
    params = ChannelParams(outer, channels, inner)
    status = fn(
        ctypes.byref(params),
        scales.ctypes.data_as(ctypes.c_void_p),
        zero_points.ctypes.data_as(ctypes.c_void_p),
        x.ctypes.data_as(ctypes.c_void_p),
        out.ctypes.data_as(ctypes.c_void_p),
    )
    assert status == 0
    np.testing.assert_array_equal(out, want)
