"""Property tests of hk_pool against numpy models of LiteRT's reference pooling kernels.

Windows are clipped to the image (padding taps are not counted), integer averages round half
away from zero with truncating division, and every result is clamped to the activation range.
"""

from __future__ import annotations

import ctypes

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cbuild import build_kernels

STATUS_OK, STATUS_BAD_PARAM, STATUS_EMPTY_WINDOW = 0, 5, 7
F32 = np.float32
P = ctypes.c_void_p


class PoolParams(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_int32)
        for n in (
            "batches",
            "input_height",
            "input_width",
            "channels",
            "output_height",
            "output_width",
            "filter_height",
            "filter_width",
            "stride_height",
            "stride_width",
            "pad_top",
            "pad_left",
            "act_min",
            "act_max",
        )
    ] + [("act_min_f32", ctypes.c_float), ("act_max_f32", ctypes.c_float)]


def _fn(name):
    fn = getattr(build_kernels("pool"), name)
    fn.argtypes = [ctypes.POINTER(PoolParams), P, P]
    fn.restype = ctypes.c_int32
    return fn


@st.composite
def geometries(draw):
    geo = {
        "batches": draw(st.integers(1, 2)),
        "input_height": draw(st.integers(1, 8)),
        "input_width": draw(st.integers(1, 8)),
        "channels": draw(st.integers(1, 4)),
        "filter_height": draw(st.integers(1, 4)),
        "filter_width": draw(st.integers(1, 4)),
        "stride_height": draw(st.integers(1, 3)),
        "stride_width": draw(st.integers(1, 3)),
    }
    mode = draw(st.sampled_from(["SAME", "VALID"]))
    for axis, size in (("height", "input_height"), ("width", "input_width")):
        out, pad = ref.litert_out_pad(mode, geo[size], geo[f"filter_{axis}"], geo[f"stride_{axis}"], 1)
        if out < 1:
            out, pad = 1, 0
        geo[f"output_{axis}"] = out
        geo["pad_top" if axis == "height" else "pad_left"] = pad
    return geo, draw(st.integers(0, 2**32 - 1))


def _model_args(geo):
    return dict(
        out_hw=(geo["output_height"], geo["output_width"]),
        filt=(geo["filter_height"], geo["filter_width"]),
        stride=(geo["stride_height"], geo["stride_width"]),
        pad=(geo["pad_top"], geo["pad_left"]),
    )


def _run(name, geo, x, act=(0, 0), act_f=(0.0, 0.0)):
    y = np.zeros((geo["batches"], geo["output_height"], geo["output_width"], geo["channels"]), x.dtype)
    p = PoolParams(**geo, act_min=act[0], act_max=act[1], act_min_f32=act_f[0], act_max_f32=act_f[1])
    return _fn(name)(ctypes.byref(p), x.ctypes.data, y.ctypes.data), y


def _avg_int(x, geo, act):
    y = np.zeros((x.shape[0], geo["output_height"], geo["output_width"], x.shape[3]), np.int64)
    for oy, ox, win in ref.pool_windows(x.astype(np.int64), **_model_args(geo)):
        total = win.sum(axis=(1, 2))
        count = win.shape[1] * win.shape[2]
        # C integer division truncates toward zero.
        num = np.where(total > 0, total + count // 2, total - count // 2)
        y[:, oy, ox, :] = np.sign(num) * (np.abs(num) // count)
    return np.clip(y, *act)


def _max_int(x, geo, act):
    y = np.full(
        (x.shape[0], geo["output_height"], geo["output_width"], x.shape[3]), np.iinfo(x.dtype).min, np.int64
    )
    for oy, ox, win in ref.pool_windows(x.astype(np.int64), **_model_args(geo)):
        if win.size:
            y[:, oy, ox, :] = np.maximum(win.max(axis=(1, 2)), np.iinfo(x.dtype).min)
    return np.clip(y, *act)


@settings(max_examples=150)
@given(geometries(), st.sampled_from([np.int8, np.int16]), st.booleans())
def test_int_pools_match_reference(case, dtype, narrow_act):
    geo, seed = case
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    x = rng.integers(
        info.min,
        info.max,
        (geo["batches"], geo["input_height"], geo["input_width"], geo["channels"]),
        dtype=dtype,
        endpoint=True,
    )
    act = (int(info.min), int(info.max))
    if narrow_act:
        act = tuple(sorted(int(v) for v in rng.integers(info.min, info.max, 2, endpoint=True)))
    suffix = "s8" if dtype == np.int8 else "s16"
    status, y = _run(f"hk_avg_pool_{suffix}", geo, x, act)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, _avg_int(x, geo, act).astype(dtype))
    status, y = _run(f"hk_max_pool_{suffix}", geo, x, act)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, _max_int(x, geo, act).astype(dtype))


@settings(max_examples=120)
@given(geometries(), st.sampled_from([(-3.4028235e38, 3.4028235e38), (0.0, 6.0), (-1.0, 1.0)]))
def test_float_pools_match_reference_bit_for_bit(case, act):
    geo, seed = case
    rng = np.random.default_rng(seed)
    x = (
        rng.standard_normal((geo["batches"], geo["input_height"], geo["input_width"], geo["channels"])) * 3
    ).astype(F32)
    out_shape = (geo["batches"], geo["output_height"], geo["output_width"], geo["channels"])
    avg = np.zeros(out_shape, F32)
    mx = np.zeros(out_shape, F32)
    for oy, ox, win in ref.pool_windows(x, **_model_args(geo)):
        total = np.zeros((x.shape[0], x.shape[3]), F32)
        best = np.full((x.shape[0], x.shape[3]), F32(-3.4028235e38))
        for iy in range(win.shape[1]):
            for ix in range(win.shape[2]):
                total = total + win[:, iy, ix, :]
                best = np.where(best < win[:, iy, ix, :], win[:, iy, ix, :], best)
        avg[:, oy, ox, :] = total / F32(win.shape[1] * win.shape[2])
        mx[:, oy, ox, :] = best
    lo, hi = F32(act[0]), F32(act[1])
    status, y = _run("hk_avg_pool_f32", geo, x, act_f=act)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), ref.clamp(avg, lo, hi).astype(F32).view(np.uint32))
    status, y = _run("hk_max_pool_f32", geo, x, act_f=act)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), ref.clamp(mx, lo, hi).astype(F32).view(np.uint32))


def test_average_rounds_half_away_from_zero():
    geo = dict(
        batches=1,
        input_height=1,
        input_width=2,
        channels=1,
        output_height=1,
        output_width=1,
        filter_height=1,
        filter_width=2,
        stride_height=1,
        stride_width=1,
        pad_top=0,
        pad_left=0,
    )
    for pair, want in (((1, 2), 2), ((-1, -2), -2), ((2, 2), 2), ((0, -1), -1), ((0, 1), 1)):
        status, y = _run("hk_avg_pool_s8", geo, np.array(pair, np.int8), (-128, 127))
        assert status == STATUS_OK and y.item() == want, pair


def test_average_of_window_outside_image_fails_like_reference():
    geo = dict(
        batches=1,
        input_height=2,
        input_width=2,
        channels=1,
        output_height=1,
        output_width=1,
        filter_height=2,
        filter_width=2,
        stride_height=1,
        stride_width=1,
        pad_top=5,
        pad_left=0,
    )
    x = np.zeros(4, np.int8)
    assert _run("hk_avg_pool_s8", geo, x, (-128, 127))[0] == STATUS_EMPTY_WINDOW
    assert _run("hk_avg_pool_f32", geo, x.astype(F32), act_f=(-1.0, 1.0))[0] == STATUS_EMPTY_WINDOW
    # max pooling of an empty window yields the type minimum, clamped (as the reference does)
    status, y = _run("hk_max_pool_s8", geo, x, (-100, 127))
    assert status == STATUS_OK and y.item() == -100
    bad = {**geo, "stride_width": 0}
    assert _run("hk_max_pool_s8", bad, x, (-128, 127))[0] == STATUS_BAD_PARAM
