"""Property tests of hk_conv against numpy models of LiteRT's reference CONV_2D kernels.

Geometry covers LiteRT's SAME/VALID padding and arbitrary explicit padding (windows partly or
wholly outside the image), strides, dilations and grouped convolution. Integer kernels must match
exactly; the float model sums in the reference's order, so float must match bit for bit too.
The int8 kernel runs both with the converter's folded bias and scratch (its fast path; the host
build is the portable one) and without them (the generic loop); hk_conv_s8_generic (the
``kernel: generic`` knob, a family of its own) must give the same bytes and ignore both.
"""

from __future__ import annotations

import ctypes

import numpy as np
from helia_aot_ops_builtin.common.weighted_prepare import conv_s8_scratch_bytes, offset_bias
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cbuild import build_kernels

STATUS_OK, STATUS_BAD_PARAM = 0, 5
F32 = np.float32
P = ctypes.c_void_p


class ConvParams(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_int32)
        for n in (
            "batches",
            "input_height",
            "input_width",
            "input_channels",
            "filter_height",
            "filter_width",
            "filter_input_channels",
            "output_height",
            "output_width",
            "output_channels",
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
        ("scratch", ctypes.c_void_p),
        ("scratch_size", ctypes.c_int32),
    ]


def _fn(name):
    fn = getattr(build_kernels("conv", "conv_generic"), name)
    fn.argtypes = [ctypes.POINTER(ConvParams), P, P, P, P]
    fn.restype = ctypes.c_int32
    return fn


@st.composite
def geometries(draw, grouped: bool = True):
    """A convolution geometry (dict) and a seed for its data."""
    g = draw(st.integers(1, 3)) if grouped else 1
    fic = draw(st.integers(1, 4))
    geo = {
        "batches": draw(st.integers(1, 2)),
        "input_height": draw(st.integers(1, 7)),
        "input_width": draw(st.integers(1, 7)),
        "filter_input_channels": fic,
        "input_channels": fic * g,
        "output_channels": g * draw(st.integers(1, 3)),
        "filter_height": draw(st.integers(1, 4)),
        "filter_width": draw(st.integers(1, 4)),
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
            if out < 1:  # VALID with a filter wider than the image: no LiteRT model has it
                out, pad = 1, 0
        geo[f"output_{axis}"] = out
        geo["pad_top" if axis == "height" else "pad_left"] = pad
    return geo, draw(st.integers(0, 2**32 - 1))


def _geometry_args(geo):
    return dict(
        out_hw=(geo["output_height"], geo["output_width"]),
        stride=(geo["stride_height"], geo["stride_width"]),
        pad=(geo["pad_top"], geo["pad_left"]),
        dilation=(geo["dilation_height"], geo["dilation_width"]),
    )


def _shapes(geo):
    x = (geo["batches"], geo["input_height"], geo["input_width"], geo["input_channels"])
    w = (geo["output_channels"], geo["filter_height"], geo["filter_width"], geo["filter_input_channels"])
    y = (geo["batches"], geo["output_height"], geo["output_width"], geo["output_channels"])
    return x, w, y


def _quant(rng, geo, dtype, shift_range=(-18, 1)):
    oc = geo["output_channels"]
    mult = rng.integers(1 << 30, (1 << 31) - 1, oc, dtype=np.int32, endpoint=True)
    shift = rng.integers(*shift_range, oc, dtype=np.int32, endpoint=True)
    info = np.iinfo(dtype)
    lo, hi = sorted(rng.integers(info.min, info.max, 2, endpoint=True))
    if rng.random() < 0.5:
        lo, hi = info.min, info.max
    return mult, shift, int(lo), int(hi)


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
    """Call the kernel; ``fast`` passes the folded bias and scratch the converter would."""
    _, _, y_shape = _shapes(geo)
    y = np.zeros(y_shape, out_dtype)
    p = ConvParams(
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
        folded = offset_bias(w, bias, in_off, 0, pad_to=4)
        size = conv_s8_scratch_bytes(
            geo["filter_height"],
            geo["filter_width"],
            geo["filter_input_channels"],
            geo["input_channels"],
            geo["output_channels"],
        )
        scratch = np.zeros(max(size // 4, 1), np.int32)  # int32: word-aligned, as planned
        p.offset_bias = folded.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
        p.scratch, p.scratch_size = scratch.ctypes.data, size
        assert _scratch_size(p) == size
    status = _fn(name)(
        ctypes.byref(p),
        x.ctypes.data,
        w.ctypes.data,
        None if bias is None else bias.ctypes.data,
        y.ctypes.data,
    )
    return status, y


def _scratch_size(p):
    fn = build_kernels("conv").hk_conv_s8_scratch_size
    fn.argtypes = [ctypes.POINTER(ConvParams)]
    fn.restype = ctypes.c_int32
    return fn(ctypes.byref(p))


@settings(max_examples=200)
@given(geometries(), st.booleans(), st.booleans(), st.sampled_from(["hk_conv_s8", "hk_conv_s8_generic"]))
def test_conv_s8_matches_reference(case, with_bias, fast, entry):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, _ = _shapes(geo)
    x = rng.integers(-128, 127, xs, dtype=np.int8, endpoint=True)
    w = rng.integers(-127, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 16), 1 << 16, geo["output_channels"], dtype=np.int32) if with_bias else None
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    mult, shift, lo, hi = _quant(rng, geo, np.int8)
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
        act=(lo, hi),
        fast=fast,
    )
    acc = ref.conv_accumulate(x, w, input_offset=-zp_in, **_geometry_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, zp_out, (lo, hi), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@st.composite
def wide_geometries(draw):
    """Ungrouped geometries with enough channels for whole vectors, partial ones and tails."""
    c = draw(st.sampled_from([1, 3, 8, 15, 16, 17, 33, 64]))
    kh, kw = draw(st.sampled_from([(1, 1), (1, 1), (3, 3), (2, 5), (10, 4)]))
    geo = {
        "batches": 1,
        "input_height": draw(st.integers(1, 9)),
        "input_width": draw(st.integers(1, 9)),
        "filter_input_channels": c,
        "input_channels": c,
        "output_channels": draw(st.sampled_from([1, 2, 3, 4, 5, 8, 13])),
        "filter_height": kh,
        "filter_width": kw,
        "stride_height": draw(st.integers(1, 2)),
        "stride_width": draw(st.integers(1, 2)),
        "dilation_height": draw(st.integers(1, 2)),
        "dilation_width": draw(st.integers(1, 2)),
    }
    mode = draw(st.sampled_from(["SAME", "VALID"]))
    for axis, size in (("height", "input_height"), ("width", "input_width")):
        out, pad = ref.litert_out_pad(
            mode, geo[size], geo[f"filter_{axis}"], geo[f"stride_{axis}"], geo[f"dilation_{axis}"]
        )
        geo[f"output_{axis}"], geo["pad_top" if axis == "height" else "pad_left"] = max(out, 1), pad
    return geo, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=60)
@given(wide_geometries(), st.sampled_from([-128, -1, 0, 5, 127]))
def test_conv_s8_fast_path_matches_reference_on_wide_channels(case, zp_in):
    """Whole and partial vectors of input channels, filter-count tails, the zero-point extremes
    (the fill value of padded taps) and a clamp wider than int8."""
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, _ = _shapes(geo)
    x = rng.integers(-128, 127, xs, dtype=np.int8, endpoint=True)
    w = rng.integers(-128, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 20), 1 << 20, geo["output_channels"], dtype=np.int32)
    mult, shift, _, _ = _quant(rng, geo, np.int8, (-12, 3))
    zp_out = int(rng.integers(-128, 127, endpoint=True))
    status, y = _run(
        "hk_conv_s8",
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
    acc = ref.conv_accumulate(x, w, input_offset=-zp_in, **_geometry_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, zp_out, (-300, 300), np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=120)
@given(geometries(), st.booleans(), st.booleans())
def test_conv_s16_matches_reference(case, with_bias, bias32):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, _ = _shapes(geo)
    x = rng.integers(-32768, 32767, xs, dtype=np.int16, endpoint=True)
    w = rng.integers(-127, 127, ws, dtype=np.int8, endpoint=True)
    bias_t = np.int32 if bias32 else np.int64
    bias = rng.integers(-(1 << 24), 1 << 24, geo["output_channels"]).astype(bias_t) if with_bias else None
    mult, shift, lo, hi = _quant(rng, geo, np.int16, (-24, 0))
    name = "hk_conv_s16_b32" if bias32 else "hk_conv_s16"
    status, y = _run(name, geo, x, w, bias, np.int16, mult=mult, shift=shift, act=(lo, hi))
    acc = ref.conv_accumulate(x, w, **_geometry_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, 0, (lo, hi), np.int16, wide=not bias32)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=120)
@given(
    geometries(), st.booleans(), st.sampled_from([(-np.inf, np.inf), (0.0, np.inf), (0.0, 6.0), (-1.0, 1.0)])
)
def test_conv_f32_matches_reference_bit_for_bit(case, with_bias, act):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, _ = _shapes(geo)
    x = rng.standard_normal(xs).astype(F32)
    w = rng.standard_normal(ws).astype(F32)
    bias = rng.standard_normal(geo["output_channels"]).astype(F32) if with_bias else None
    act = (max(act[0], -3.4028235e38), min(act[1], 3.4028235e38))
    status, y = _run("hk_conv_f32", geo, x, w, bias, F32, act_f=act)
    expected = ref.conv_float(x, w, bias, act=act, **_geometry_args(geo))
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_conv_f32_keeps_reference_sign_of_zero_without_bias():
    # An all-padding window sums to +0.0 and the reference adds a 0.0 bias term; a negative-zero
    # product sum (-0.0 + 0.0) must come out as +0.0 as well.
    geo = dict(
        batches=1,
        input_height=1,
        input_width=1,
        input_channels=1,
        filter_height=1,
        filter_width=1,
        filter_input_channels=1,
        output_height=1,
        output_width=1,
        output_channels=1,
        stride_height=1,
        stride_width=1,
        dilation_height=1,
        dilation_width=1,
        pad_top=0,
        pad_left=0,
    )
    x = np.array([[[[-0.0]]]], F32)
    w = np.array([[[[1.0]]]], F32)
    status, y = _run("hk_conv_f32", geo, x, w, None, F32, act_f=(-np.inf, np.inf))
    assert status == STATUS_OK and y.item() == 0.0 and not np.signbit(y.item())


def _base_geometry(**overrides):
    geo = dict(
        batches=1,
        input_height=3,
        input_width=3,
        input_channels=4,
        filter_height=2,
        filter_width=2,
        filter_input_channels=2,
        output_height=2,
        output_width=2,
        output_channels=4,
        stride_height=1,
        stride_width=1,
        dilation_height=1,
        dilation_width=1,
        pad_top=0,
        pad_left=0,
    )
    geo.update(overrides)
    return geo


def test_conv_rejects_bad_geometry_and_missing_multipliers():
    x = np.zeros(64, np.int8)
    w = np.zeros(64, np.int8)
    mult = np.full(8, 1 << 30, np.int32)
    shift = np.zeros(8, np.int32)
    bad = [
        dict(input_channels=3),  # not a multiple of filter_input_channels
        dict(output_channels=3),  # 2 groups cannot split 3 filters
        dict(stride_height=0),
        dict(dilation_width=0),
        dict(filter_height=0),
    ]
    for overrides in bad:
        status, _ = _run(
            "hk_conv_s8",
            _base_geometry(**overrides),
            x,
            w,
            None,
            np.int8,
            mult=mult,
            shift=shift,
            act=(-128, 127),
        )
        assert status == STATUS_BAD_PARAM, overrides
    status, _ = _run("hk_conv_s8", _base_geometry(), x, w, None, np.int8, act=(-128, 127))
    assert status == STATUS_BAD_PARAM  # no multipliers
    status, _ = _run("hk_conv_s8", _base_geometry(), x, w, None, np.int8, mult=mult, shift=shift, act=(5, -5))
    assert status == STATUS_BAD_PARAM  # empty activation range
    status, _ = _run(
        "hk_conv_s8", _base_geometry(), x, w, None, np.int8, mult=mult, shift=shift, act=(-128, 127)
    )
    assert status == STATUS_OK
