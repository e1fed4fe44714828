"""Property tests of hk_fully_connected against numpy models of LiteRT's reference kernel.

LiteRT's reference FULLY_CONNECTED requantizes in double precision (round(acc * scale)), so the
model does too; the per-tensor path also applies a filter offset. Integer outputs must match
exactly and float outputs bit for bit (the model sums in input order).
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from . import k1_reference_models as ref
from .cbuild import build_kernels

STATUS_OK, STATUS_BAD_PARAM = 0, 5
F32 = np.float32
P = ctypes.c_void_p


class FcParams(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in (
        "batches", "input_features", "output_features", "input_offset", "filter_offset",
        "output_offset", "act_min", "act_max")] + [
        ("output_scale", ctypes.POINTER(ctypes.c_double)), ("per_channel", ctypes.c_int32),
        ("act_min_f32", ctypes.c_float), ("act_max_f32", ctypes.c_float)]


def _fn(name):
    fn = getattr(build_kernels("fully_connected"), name)
    fn.argtypes = [ctypes.POINTER(FcParams), P, P, P, P]
    fn.restype = ctypes.c_int32
    return fn


def _scales(rng, n, per_channel, spread=(1e-4, 2e-2)):
    """Effective scales as LiteRT forms them: double(s_in) * double(s_w) / double(s_out)."""
    s_in, s_out = (np.float32(v) for v in rng.uniform(1e-3, 5e-2, 2))
    s_w = rng.uniform(*spread, n if per_channel else 1).astype(np.float32)
    return float(s_in) * s_w.astype(np.float64) / float(s_out)


def _run(name, x, w, bias, out_dtype, *, scales=None, per_channel=False, in_off=0, f_off=0,
         out_off=0, act=(0, 0), act_f=(0.0, 0.0)):
    y = np.zeros((x.shape[0], w.shape[0]), out_dtype)
    p = FcParams(batches=x.shape[0], input_features=x.shape[1], output_features=w.shape[0],
                 input_offset=in_off, filter_offset=f_off, output_offset=out_off,
                 act_min=act[0], act_max=act[1], per_channel=int(per_channel),
                 act_min_f32=act_f[0], act_max_f32=act_f[1])
    if scales is not None:
        scales = np.ascontiguousarray(scales, np.float64)
        p.output_scale = scales.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    status = _fn(name)(ctypes.byref(p), x.ctypes.data, w.ctypes.data,
                       None if bias is None else bias.ctypes.data, y.ctypes.data)
    return status, y


dims = st.tuples(st.integers(1, 4), st.integers(1, 40), st.integers(1, 12))


@settings(max_examples=200)
@given(dims, st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_fc_s8_matches_reference(shape, per_channel, with_bias, seed):
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 127, (b, k), dtype=np.int8, endpoint=True)
    w = rng.integers(-127, 127, (n, k), dtype=np.int8, endpoint=True)
    bias = rng.integers(-5000, 5000, n, dtype=np.int32) if with_bias else None
    zp_in, zp_out, zp_w = (int(v) for v in rng.integers(-128, 127, 3, endpoint=True))
    zp_w = 0 if per_channel else zp_w
    scales = _scales(rng, n, per_channel)
    lo, hi = sorted(int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    status, y = _run("hk_fully_connected_s8", x, w, bias, np.int8, scales=scales,
                     per_channel=per_channel, in_off=-zp_in, f_off=-zp_w, out_off=zp_out,
                     act=(lo, hi))
    expected = ref.fully_connected_int(x, w, bias, -zp_in, -zp_w, zp_out, scales, (lo, hi), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=150)
@given(dims, st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_fc_s16_matches_reference(shape, per_channel, with_bias, bias32, seed):
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.integers(-32768, 32767, (b, k), dtype=np.int16, endpoint=True)
    w = rng.integers(-127, 127, (n, k), dtype=np.int8, endpoint=True)
    bias_t = np.int32 if bias32 else np.int64
    bias = rng.integers(-(1 << 22), 1 << 22, n).astype(bias_t) if with_bias else None
    scales = _scales(rng, n, per_channel, (1e-6, 1e-4))
    status, y = _run("hk_fully_connected_s16_b32" if bias32 else "hk_fully_connected_s16", x, w,
                     bias, np.int16, scales=scales, per_channel=per_channel,
                     act=(-32768, 32767))
    expected = ref.fully_connected_int(x, w, bias, 0, 0, 0, scales, (-32768, 32767), np.int16)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


def test_fc_double_requantization_rounds_halves_away_from_zero():
    # acc * scale lands exactly on +-2.5 and +-0.5: std::round gives 3, -3, 1, -1.
    x = np.array([[5, -5, 1, -1]], np.int8).reshape(4, 1)
    w = np.ones((1, 1), np.int8)
    status, y = _run("hk_fully_connected_s8", x, w, None, np.int8, scales=np.array([0.5]),
                     act=(-128, 127))
    assert status == STATUS_OK
    assert y.ravel().tolist() == [3, -3, 1, -1]


@settings(max_examples=120)
@given(dims, st.booleans(), st.sampled_from([(-3.4028235e38, 3.4028235e38), (0.0, 6.0), (-1.0, 1.0)]),
       st.integers(0, 2**32 - 1))
def test_fc_f32_matches_reference_bit_for_bit(shape, with_bias, act, seed):
    b, k, n = shape
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((b, k)).astype(F32)
    w = rng.standard_normal((n, k)).astype(F32)
    bias = rng.standard_normal(n).astype(F32) if with_bias else None
    status, y = _run("hk_fully_connected_f32", x, w, bias, F32, act_f=act)
    expected = ref.fully_connected_float(x, w, bias, act)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_fc_rejects_missing_scales_and_negative_sizes():
    x = np.zeros((2, 3), np.int8)
    w = np.zeros((4, 3), np.int8)
    status, _ = _run("hk_fully_connected_s8", x, w, None, np.int8, act=(-128, 127))
    assert status == STATUS_BAD_PARAM
    status, _ = _run("hk_fully_connected_s8", x, w, None, np.int8, scales=np.ones(1),
                     act=(1, 0))
    assert status == STATUS_BAD_PARAM
    p = FcParams(batches=-1, input_features=3, output_features=4)
    status = _fn("hk_fully_connected_f32")(ctypes.byref(p), x.ctypes.data, w.ctypes.data, None,
                                           x.ctypes.data)
    assert status == STATUS_BAD_PARAM
