"""Property tests of hk_transpose_conv against a numpy model of LiteRT's reference scatter loop.

The C kernel gathers each output's contributions instead of scattering into a scratch buffer;
the model scatters exactly as the reference does, so these tests show the two orders agree:
exactly for integers and bit for bit for float.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot.litert import schema_py_generated as litert
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support import float16_cases
from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.single_op import (
    SingleOp,
    T,
    check_against_reference,
    const,
    options,
    seeded_integers,
    seeded_uniform,
)

STATUS_OK, STATUS_BAD_PARAM = 0, 5
F32 = np.float32
P = ctypes.c_void_p


class TransposeConvParams(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_int32)
        for n in (
            "batches",
            "input_height",
            "input_width",
            "input_channels",
            "filter_height",
            "filter_width",
            "output_height",
            "output_width",
            "output_channels",
            "stride_height",
            "stride_width",
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
    ]


def _fn(name):
    fn = getattr(build_kernels("transpose_conv"), name)
    fn.argtypes = [ctypes.POINTER(TransposeConvParams), P, P, P, P]
    fn.restype = ctypes.c_int32
    return fn


@st.composite
def geometries(draw):
    """LiteRT geometry: the output size is given and padding derives from it (SAME/VALID), or
    anything explicit (FREE)."""
    geo = {
        "batches": draw(st.integers(1, 2)),
        "input_height": draw(st.integers(1, 5)),
        "input_width": draw(st.integers(1, 5)),
        "input_channels": draw(st.integers(1, 4)),
        "output_channels": draw(st.integers(1, 4)),
        "filter_height": draw(st.integers(1, 4)),
        "filter_width": draw(st.integers(1, 4)),
        "stride_height": draw(st.integers(1, 3)),
        "stride_width": draw(st.integers(1, 3)),
    }
    mode = draw(st.sampled_from(["SAME", "VALID", "FREE"]))
    for axis, size in (("height", "input_height"), ("width", "input_width")):
        s, f, n = geo[f"stride_{axis}"], geo[f"filter_{axis}"], geo[size]
        if mode == "SAME":
            out = n * s
        elif mode == "VALID":
            out = (n - 1) * s + f
        else:
            out = draw(st.integers(1, 12))
        pad = max((n - 1) * s + f - out, 0) // 2 if mode != "FREE" else draw(st.integers(0, 4))
        geo[f"output_{axis}"] = out
        geo["pad_top" if axis == "height" else "pad_left"] = pad
    return geo, draw(st.integers(0, 2**32 - 1))


def _shapes(geo):
    x = (geo["batches"], geo["input_height"], geo["input_width"], geo["input_channels"])
    w = (geo["output_channels"], geo["filter_height"], geo["filter_width"], geo["input_channels"])
    y = (geo["batches"], geo["output_height"], geo["output_width"], geo["output_channels"])
    return x, w, y


def _model_args(geo):
    return dict(
        out_hw=(geo["output_height"], geo["output_width"]),
        stride=(geo["stride_height"], geo["stride_width"]),
        pad=(geo["pad_top"], geo["pad_left"]),
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
):
    y = np.full(_shapes(geo)[2], 99, out_dtype)  # stale data: every element must be written
    p = TransposeConvParams(
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


@settings(max_examples=150)
@given(geometries(), st.booleans())
def test_transpose_conv_s8_matches_reference(case, with_bias):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.integers(-128, 127, xs, dtype=np.int8, endpoint=True)
    w = rng.integers(-127, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 16), 1 << 16, ys[3], dtype=np.int32) if with_bias else None
    zp_in, zp_out = (int(v) for v in rng.integers(-128, 127, 2, endpoint=True))
    mult, shift, act = _quant(rng, ys[3], np.int8, (-18, 1))
    status, y = _run(
        "hk_transpose_conv_s8",
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
    )
    acc = ref.transpose_conv_scatter(x, w, input_offset=-zp_in, **_model_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, zp_out, act, np.int8)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=100)
@given(geometries(), st.booleans(), st.booleans())
def test_transpose_conv_s16_matches_reference(case, with_bias, bias32):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.integers(-32768, 32767, xs, dtype=np.int16, endpoint=True)
    w = rng.integers(-127, 127, ws, dtype=np.int8, endpoint=True)
    bias = (
        rng.integers(-(1 << 24), 1 << 24, ys[3]).astype(np.int32 if bias32 else np.int64)
        if with_bias
        else None
    )
    mult, shift, act = _quant(rng, ys[3], np.int16, (-22, 0))
    status, y = _run(
        "hk_transpose_conv_s16_b32" if bias32 else "hk_transpose_conv_s16",
        geo,
        x,
        w,
        bias,
        np.int16,
        mult=mult,
        shift=shift,
        act=act,
    )
    acc = ref.transpose_conv_scatter(x, w, **_model_args(geo))
    expected = ref.requantize(acc, bias, mult, shift, 0, act, np.int16, wide=not bias32)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y, expected)


@settings(max_examples=100)
@given(geometries(), st.booleans(), st.sampled_from([(-3.4028235e38, 3.4028235e38), (0.0, 6.0)]))
def test_transpose_conv_f32_matches_reference_bit_for_bit(case, with_bias, act):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.standard_normal(xs).astype(F32)
    w = rng.standard_normal(ws).astype(F32)
    bias = rng.standard_normal(ys[3]).astype(F32) if with_bias else None
    status, y = _run("hk_transpose_conv_f32", geo, x, w, bias, F32, act_f=act)
    total = ref.transpose_conv_scatter(x, w, dtype=F32, **_model_args(geo))
    if bias is not None:
        total = total + bias
    expected = ref.clamp(total, F32(act[0]), F32(act[1])).astype(F32)
    assert status == STATUS_OK
    np.testing.assert_array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_transpose_conv_rejects_bad_geometry():
    geo = dict(
        batches=1,
        input_height=2,
        input_width=2,
        input_channels=1,
        filter_height=2,
        filter_width=2,
        output_height=4,
        output_width=4,
        output_channels=1,
        stride_height=2,
        stride_width=2,
        pad_top=0,
        pad_left=0,
    )
    buf = np.zeros(64, np.int8)
    mult, shift = np.full(1, 1 << 30, np.int32), np.zeros(1, np.int32)
    for key in ("stride_height", "filter_width", "input_channels", "output_channels"):
        status, _ = _run(
            "hk_transpose_conv_s8",
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
    status, _ = _run(
        "hk_transpose_conv_s8", geo, buf, buf, None, np.int8, mult=mult, shift=shift, act=(-128, 127)
    )
    assert status == STATUS_OK


# TRANSPOSE_CONV alone in a model, per element type, against LiteRT's reference kernels
# (tests/ops_builtin/support/single_op.py).

PADDING_SAME, PADDING_VALID = litert.Padding.SAME, litert.Padding.VALID

REFERENCE_CASES = {
    "float32": SingleOp(
        "TRANSPOSE_CONV",
        [
            const((4,), "int32", [1, 6, 8, 3]),
            const((3, 3, 3, 5), "float32", seeded_uniform(24603, -1, 1, 135)),
            T((1, 3, 4, 5), "float32"),
        ],
        [T((1, 6, 8, 3), "float32")],
        options("TransposeConvOptionsT", padding=PADDING_SAME, strideW=2, strideH=2),
    ),
    "int8": SingleOp(
        "TRANSPOSE_CONV",
        [
            const((4,), "int32", [1, 5, 5, 2]),
            const(
                (2, 3, 3, 4),
                "int8",
                seeded_integers(24604, -127, 128, 72),
                (np.array([0.01, 0.02]), np.zeros(2, np.int64), 0),
            ),
            T((1, 3, 3, 4), "int8", (0.05, 3)),
        ],
        [T((1, 5, 5, 2), "int8", (0.1, -5))],
        options("TransposeConvOptionsT", padding=PADDING_VALID, strideW=1, strideH=1),
    ),
}
"""Case name -> its one-operator model."""


def test_transpose_conv_matches_the_reference(tmp_path):
    check_against_reference(REFERENCE_CASES, tmp_path)


FLOAT16 = float16_cases.named("transpose_conv_3x3_s2_same", "transpose_conv_2x2_valid_no_bias")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_transpose_conv_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
