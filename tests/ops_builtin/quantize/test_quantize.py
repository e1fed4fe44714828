"""Property tests of hk_quantize against numpy models of LiteRT's reference QUANTIZE/DEQUANTIZE.

Float inputs include exact halves (rounding away from zero), NaN, infinities and values beyond
the int32 range, which the reference converts the way x86 does. The float16 conversion is checked
exhaustively over all 65536 bit patterns.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot_ops_builtin.common.rescale import requantize_rescale
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.elementwise_ctypes import I32, QuantizeParams, RequantizeParams, run_unary
from ops_builtin.support.elementwise_refmodels import affine_quantize, dequantize, requantize

NAMES = {np.dtype(np.int8): "s8", np.dtype(np.int16): "s16", np.dtype(np.float32): "f32"}


def _call(name: str, params, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    return run_unary("quantize", name, params, x, out)


scales = st.floats(1e-5, 2.0).map(lambda s: float(np.float32(s)))
seeds = st.integers(0, 2**32 - 1)
sizes = st.integers(0, 300)


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@settings(max_examples=80)
@given(scale=scales, zp=st.integers(-128, 127), size=sizes, seed=seeds)
def test_quantize_float(dtype, scale, zp, size, seed):
    rng = np.random.default_rng(seed)
    levels = rng.integers(-40000, 40000, size=size) + rng.choice([0.0, 0.5, 0.25], size=size)
    x = (levels * np.float32(scale)).astype(np.float32)
    special = np.array([np.nan, np.inf, -np.inf, 3e9 * scale, -3e9 * scale, -0.0], np.float32)
    x[: min(size, 6)] = special[: min(size, 6)]
    got = _call(
        f"hk_quantize_f32_{NAMES[np.dtype(dtype)]}", QuantizeParams(size, scale, zp), x, np.zeros(size, dtype)
    )
    np.testing.assert_array_equal(got, affine_quantize(x, scale, zp, dtype))


@pytest.mark.parametrize(
    "src,dst", [(np.int8, np.int8), (np.int8, np.int16), (np.int16, np.int8), (np.int16, np.int16)]
)
@settings(max_examples=80)
@given(
    s_in=scales,
    s_out=scales,
    zps=st.tuples(st.integers(-128, 127), st.integers(-128, 127)),
    size=sizes,
    seed=seeds,
)
def test_requantize(src, dst, s_in, s_out, zps, size, seed):
    zp_in = 0 if src == np.int16 else zps[0]
    zp_out = 0 if dst == np.int16 else zps[1]
    multiplier, shift = requantize_rescale(s_in, s_out)
    info = np.iinfo(src)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=size).astype(src)
    params = RequantizeParams(size, zp_in, zp_out, multiplier, shift)
    name = f"hk_requantize_{NAMES[np.dtype(src)]}_{NAMES[np.dtype(dst)]}"
    got = _call(name, params, x, np.zeros(size, dst))
    np.testing.assert_array_equal(got, requantize(x, multiplier, shift, zp_in, zp_out, dst))


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
@settings(max_examples=80)
@given(
    scale=st.floats(1e-8, 1e3).map(lambda s: float(np.float32(s))),
    zp=st.integers(-128, 127),
    size=sizes,
    seed=seeds,
)
def test_dequantize(dtype, scale, zp, size, seed):
    zp = 0 if dtype == np.int16 else zp
    info = np.iinfo(dtype)
    x = np.random.default_rng(seed).integers(info.min, info.max + 1, size=size).astype(dtype)
    got = _call(
        f"hk_dequantize_{NAMES[np.dtype(dtype)]}_f32",
        QuantizeParams(size, scale, zp),
        x,
        np.zeros(size, np.float32),
    )
    np.testing.assert_array_equal(got.view(np.uint32), dequantize(x, scale, zp).view(np.uint32))


def test_half_to_float_every_bit_pattern():
    """Every binary16 value, NaN payloads included, widens exactly as numpy (and Eigen) do."""
    lib = build_kernels("quantize")
    lib.hk_dequantize_f16_f32.argtypes = [I32, ctypes.c_void_p, ctypes.c_void_p]
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    out = np.zeros(bits.size, np.float32)
    assert lib.hk_dequantize_f16_f32(bits.size, bits.ctypes.data, out.ctypes.data) == 0
    np.testing.assert_array_equal(
        out.view(np.uint32), bits.view(np.float16).astype(np.float32).view(np.uint32)
    )


def test_in_place_narrowing_and_widening():
    """Narrowing walks forwards, widening backwards: both are safe on one shared buffer."""
    buf = np.zeros(64, np.float32)
    x = np.linspace(-3, 3, 16).astype(np.float32)
    buf[:16] = x
    params = QuantizeParams(16, 0.05, 3)
    _call("hk_quantize_f32_s8", params, buf, buf)
    q = buf.view(np.int8)[:16].copy()
    np.testing.assert_array_equal(q, affine_quantize(x, 0.05, 3, np.int8))
    multiplier, shift = requantize_rescale(0.05, 0.001)
    wide = _call("hk_requantize_s8_s16", RequantizeParams(16, 3, 0, multiplier, shift), buf, buf)
    np.testing.assert_array_equal(wide.view(np.int16)[:16], requantize(q, multiplier, shift, 3, 0, np.int16))


def test_rejects_missing_buffers():
    lib = build_kernels("quantize")
    lib.hk_quantize_f32_s8.argtypes = [ctypes.POINTER(QuantizeParams), ctypes.c_void_p, ctypes.c_void_p]
    assert lib.hk_quantize_f32_s8(ctypes.byref(QuantizeParams(4, 1.0, 0)), None, None) == 5
    assert lib.hk_quantize_f32_s8(ctypes.byref(QuantizeParams(0, 1.0, 0)), None, None) == 0
