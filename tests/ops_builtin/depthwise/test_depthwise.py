"""Property tests of hk_depthwise against numpy models of LiteRT's reference DEPTHWISE_CONV_2D.

Covers depth multipliers, strides, dilations, SAME/VALID and arbitrary explicit padding. Integer
kernels must match exactly and the float kernel bit for bit (the model sums in reference order).
The int8 kernel runs with and without the converter's folded bias (the host build's fast path is
the portable one; without it, the generic loop).
"""

from __future__ import annotations

import ctypes

import numpy as np
from helia_aot_ops_builtin.common.weighted_prepare import offset_bias
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cbuild import build_kernels

STATUS_OK, STATUS_BAD_PARAM = 0, 5
F32 = np.float32
P = ctypes.c_void_p


class DepthwiseParams(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_int32)
        for n in (
            "batches",
            "input_height",
            "input_width",
            "input_channels",
            "depth_multiplier",
            "filter_height",
            "filter_width",
            "output_height",
            "output_width",
            "stride_height",
            "stride_width",
            "dilation_height",
            "dilation_width",
            "pad_top",
            "pad_left",
            "input_offset",
            "output_offset",
            "act_min",
            "act_max",
        )
    ] + [
        ("output_multiplier", ctypes.POINTER(ctypes.c_int32)),
        ("output_shift", ctypes.POINTER(ctypes.c_int32)),
        ("act_min_f32", ctypes.c_float),
        ("act_max_f32", ctypes.c_float),
        ("offset_bias", ctypes.POINTER(ctypes.c_int32)),
    ]


def _fn(name):
    fn = getattr(build_kernels("depthwise", "depthwise_generic"), name)
    fn.argtypes = [ctypes.POINTER(DepthwiseParams), P, P, P, P]
    fn.restype = ctypes.c_int32
    return fn


@st.composite
def geometries(draw):
    geo = {
        "batches": draw(st.integers(1, 2)),
        "input_height": draw(st.integers(1, 8)),
        "input_width": draw(st.integers(1, 8)),
        "input_channels": draw(st.integers(1, 5)),
        "depth_multiplier": draw(st.integers(1, 4)),
        "filter_height": draw(st.integers(1, 5)),
        "filter_width": draw(st.integers(1, 5)),
        "stride_height": draw(st.integers(1, 3)),
        "stride_width": draw(st.integers(1, 3)),
        "dilation_height": draw(st.integers(1, 3)),
        "dilation_width": draw(st.integers(1, 3)),
    }
    mode = draw(st.sampled_from(["SAME", "VALID", "FREE"]))
    for axis, size in (("height", "input_height"), ("width", "input_width")):
        if mode == "FREE":
            out, pad = draw(st.integers(1, 5)), draw(st.integers(0, 4))
        else:
            out, pad = ref.litert_out_pad(
                mode, geo[size], geo[f"filter_{axis}"], geo[f"stride_{axis}"], geo[f"dilation_{axis}"]
            )
            if out < 1:
                out, pad = 1, 0
        geo[f"output_{axis}"] = out
        geo["pad_top" if axis == "height" else "pad_left"] = pad
    return geo, draw(st.integers(0, 2**32 - 1))


def _shapes(geo):
    oc = geo["input_channels"] * geo["depth_multiplier"]
    x = (geo["batches"], geo["input_height"], geo["input_width"], geo["input_channels"])
    w = (1, geo["filter_height"], geo["filter_width"], oc)
    y = (geo["batches"], geo["output_height"], geo["output_width"], oc)
    return x, w, y


def _model_args(geo):
    return dict(
        dm=geo["depth_multiplier"],
        out_hw=(geo["output_height"], geo["output_width"]),
        stride=(geo["stride_height"], geo["stride_width"]),
        pad=(geo["pad_top"], geo["pad_left"]),
        dilation=(geo["dilation_height"], geo["dilation_width"]),
    )


def _run(
    name,
    geo,
    x,
    w,
    bias,
    out_dtype,
    *,
    mult=None,
    shift=None,
    in_off=0,
    out_off=0,
    act=(0, 0),
    act_f=(0.0, 0.0),
    fast=False,
):
    """Call the kernel; ``fast`` passes the folded bias the converter would."""
    y = np.zeros(_shapes(geo)[2], out_dtype)
    p = DepthwiseParams(
        **geo,
        input_offset=in_off,
        output_offset=out_off,
        act_min=act[0],
        act_max=act[1],
        act_min_f32=act_f[0],
        act_max_f32=act_f[1],
    )
    if mult is not None:
        p.output_multiplier = mult.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        p.output_shift = shift.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    if fast:
        folded = offset_bias(w, bias, in_off, 3)
        p.offset_bias = folded.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    status = _fn(name)(
        ctypes.byref(p),
        x.ctypes.data,
        w.ctypes.data,
        None if bias is None else bias.ctypes.data,
        y.ctypes.data,
    )
    return status, y


def _quant(rng, n, dtype, shift_range):
    mult = rng.integers(1 << 30, (1 << 31) - 1, n, dtype=np.int32, endpoint=True)
    shift = rng.integers(*shift_range, n, dtype=np.int32, endpoint=True)
    info = np.iinfo(dtype)
    lo, hi = sorted(int(v) for v in rng.integers(info.min, info.max, 2, endpoint=True))
    return mult, shift, ((lo, hi) if rng.random() < 0.5 else (int(info.min), int(info.max)))


@settings(max_examples=200)
@given(
    geometries(),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["hk_depthwise_s8", "hk_depthwise_s8_generic"]),
)
def test_depthwise_s8_matches_reference(case, with_bias, fast, entry):
    """Both int8 entries: hk_depthwise_s8_generic (``kernel: generic``) ignores the folded bias."""
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.integers(-128, 127, xs, dtype=np.int8, endpoint=True)
    w = rng.integers(-127, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 15), 1 << 15, ys[3], dtype=np.int32) if with_bias else None
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    mult, shift, act = _quant(rng, ys[3], np.int8, (-16, 1))
    status, y = _run(
        entry,
        geo,
        x,
        w,
        bias,
        np.int8,
        mult=mult,
        shift=shift,
        in_off=-zp_in,
        out_off=zp_out,
        act=act,
        fast=fast,
    )
    acc = ref.depthwise_accumulate(x, w, input_offset=-zp_in, **_model_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, zp_out, act, np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=60)
@given(geometries(), st.sampled_from([1, 7, 8, 16, 20, 35, 64]), st.sampled_from([-128, -3, 0, 127]))
def test_depthwise_s8_fast_path_matches_reference_on_wide_channels(case, channels, zp_in):
    """Depth multiplier 1 with whole and partial blocks of channels, the zero-point extremes
    (padded taps are corrected by zero_point * filter) and a clamp wider than int8."""
    geo, seed = case
    geo = {**geo, "input_channels": channels, "depth_multiplier": 1}
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.integers(-128, 127, xs, dtype=np.int8, endpoint=True)
    w = rng.integers(-128, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 20), 1 << 20, ys[3], dtype=np.int32)
    mult, shift, _ = _quant(rng, ys[3], np.int8, (-12, 3))
    zp_out = int(rng.integers(-128, 127, endpoint=True))
    status, y = _run(
        "hk_depthwise_s8",
        geo,
        x,
        w,
        bias,
        np.int8,
        mult=mult,
        shift=shift,
        in_off=-zp_in,
        out_off=zp_out,
        act=(-300, 300),
        fast=True,
    )
    acc = ref.depthwise_accumulate(x, w, input_offset=-zp_in, **_model_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, zp_out, (-300, 300), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=120)
@given(geometries(), st.booleans())
def test_depthwise_s16_matches_reference(case, with_bias):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.integers(-32768, 32767, xs, dtype=np.int16, endpoint=True)
    w = rng.integers(-127, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 30), 1 << 30, ys[3]).astype(np.int64) if with_bias else None
    mult, shift, act = _quant(rng, ys[3], np.int16, (-22, 0))
    status, y = _run("hk_depthwise_s16", geo, x, w, bias, np.int16, mult=mult, shift=shift, act=act)
    acc = ref.depthwise_accumulate(x, w, **_model_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, 0, act, np.int16, wide=True)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=120)
@given(geometries(), st.booleans(), st.sampled_from([(-3.4028235e38, 3.4028235e38), (0.0, 6.0)]))
def test_depthwise_f32_matches_reference_bit_for_bit(case, with_bias, act):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.standard_normal(xs).astype(F32)
    w = rng.standard_normal(ws).astype(F32)
    bias = rng.standard_normal(ys[3]).astype(F32) if with_bias else None
    status, y = _run("hk_depthwise_f32", geo, x, w, bias, F32, act_f=act)
    expected = ref.depthwise_float(x, w, bias, act=act, **_model_args(geo))
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_depthwise_rejects_bad_geometry():
    geo = dict(
        batches=1,
        input_height=2,
        input_width=2,
        input_channels=2,
        depth_multiplier=1,
        filter_height=1,
        filter_width=1,
        output_height=2,
        output_width=2,
        stride_height=1,
        stride_width=1,
        dilation_height=1,
        dilation_width=1,
        pad_top=0,
        pad_left=0,
    )
    buf = np.zeros(64, np.int8)
    mult, shift = np.full(4, 1 << 30, np.int32), np.zeros(4, np.int32)
    for key in ("depth_multiplier", "stride_width", "dilation_height", "input_channels"):
        status, _ = _run(
            "hk_depthwise_s8",
            {**geo, key: 0},
            buf,
            buf,
            None,
            np.int8,
            mult=mult,
            shift=shift,
            act=(-128, 127),
        )
        assert status == STATUS_BAD_PARAM, key
    status, _ = _run("hk_depthwise_s8", geo, buf, buf, None, np.int8, act=(-128, 127))
    assert status == STATUS_BAD_PARAM
    status, _ = _run("hk_depthwise_s8", geo, buf, buf, None, np.int8, mult=mult, shift=shift, act=(-128, 127))
    assert status == STATUS_OK
