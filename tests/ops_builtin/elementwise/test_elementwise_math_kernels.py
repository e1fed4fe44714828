"""The integer kernels of hk_unary, hk_math and hk_compare against numpy models of LiteRT's
reference arithmetic, over hypothesis-drawn data, shapes and broadcast patterns; and the int8
tables of elementwise_tables against the reference interpreter itself, over drawn quantizations.

The kernels run through ctypes (compiled with -Wall -Wextra -Werror and UBSan), fed the loop
geometry of walk_geometry; the numpy models broadcast by numpy's own rules.
"""

from __future__ import annotations

import ctypes

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.common.quantization import quantize_multiplier
from helia_aot_ops_builtin.elementwise.elementwise_tables import TABLES, TABLES_INT16
from helia_aot_ops_builtin.elementwise.walk_geometry import broadcast_shapes, walk_geometry
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.elementwise_refmodels import mbqm_smaller_than_one

I32 = ctypes.c_int32
fast = settings(max_examples=40, deadline=None)


class Walk(ctypes.Structure):
    _fields_ = [("size", I32), ("shape", I32 * 5), ("strides", (I32 * 5) * 3)]


class MathParams(ctypes.Structure):
    _fields_ = [
        ("walk", Walk),
        ("float_min", ctypes.c_float),
        ("float_max", ctypes.c_float),
        ("int_min", I32),
        ("int_max", I32),
    ]


class CompareParams(ctypes.Structure):
    _fields_ = [("walk", Walk), *((name, I32) for name in (
        "op", "left_shift", "input1_offset", "input2_offset",
        "input1_multiplier", "input1_shift", "input2_multiplier", "input2_shift",
    ))]  # fmt: skip


class LutParams(ctypes.Structure):
    _fields_ = [("table", ctypes.c_int8 * 256)]


def walk(out_shape, shapes) -> Walk:
    g = walk_geometry(out_shape, shapes)
    w = Walk()
    w.size = g["size"]
    for d in range(5):
        w.shape[d] = g["shape"][d]
        for k in range(3):
            w.strides[k][d] = g["strides"][k][d]
    return w


def ptr(array: np.ndarray):
    return array.ctypes.data_as(ctypes.c_void_p)


@st.composite
def broadcast_pair(draw, inputs: int = 2):
    """An output shape (rank 1..5) and ``inputs`` shapes that broadcast onto it."""
    out = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    shapes = []
    for _ in range(inputs):
        rank = draw(st.integers(0, len(out)))
        tail = out[len(out) - rank :]
        shapes.append(tuple(d if draw(st.booleans()) else 1 for d in tail))
    # the output is the broadcast of the inputs (extents nobody has collapse to 1)
    return broadcast_shapes(*shapes) if shapes else tuple(out), shapes


# -- hk_unary -------------------------------------------------------------------------------------


@fast
@given(st.binary(min_size=256, max_size=256), st.binary(min_size=1, max_size=300))
def test_lut_s8_looks_up_the_byte(table_bytes, data):
    lib = build_kernels("unary")
    params = LutParams()
    table = np.frombuffer(table_bytes, dtype=np.int8)
    for i in range(256):
        params.table[i] = int(table[i])
    x = np.frombuffer(data, dtype=np.int8).copy()
    y = np.zeros_like(x)
    assert lib.hk_unary_lut_s8(ctypes.byref(params), ptr(x), ptr(y), ctypes.c_size_t(x.size)) == 0
    np.testing.assert_array_equal(y, table[x.view(np.uint8)])


@fast
@given(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=1, max_size=64))
def test_int32_unary_follow_the_reference(values):
    lib = build_kernels("unary")
    x = np.array(values, dtype=np.int32)
    wide = x.astype(np.int64)
    wrap = lambda v: (((v + 2**31) % 2**32) - 2**31).astype(np.int32)  # noqa: E731
    for name, model in (
        ("abs", wrap(np.abs(wide))),
        ("neg", wrap(-wide)),
        ("sign", np.sign(wide).astype(np.int32)),
    ):
        y = np.zeros_like(x)
        assert getattr(lib, f"hk_{name}_s32")(ptr(x), ptr(y), ctypes.c_size_t(x.size)) == 0
        np.testing.assert_array_equal(y, model, err_msg=name)


# -- the int8 tables, against LiteRT itself ---------------------------------------------------------


def reference_unary(op: str, x: np.ndarray, in_q, out_q) -> np.ndarray:
    b = LiteRTModelBuilder()
    i = b.add_tensor("x", x.shape, "int8", quantization=in_q)
    o = b.add_tensor("y", x.shape, "int8", quantization=out_q)
    b.add_operator(op, [i], [o])
    b.set_inputs([i])
    b.set_outputs([o])
    it = Interpreter(model_content=b.to_bytes(), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


scales = st.floats(0.002, 0.8, allow_nan=False).map(lambda s: float(np.float32(s)))
zero_points = st.integers(-128, 127)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(TABLES)), scales, zero_points, scales, zero_points)
def test_int8_tables_match_the_reference(op, in_scale, in_zp, out_scale, out_zp):
    """Every input byte the reference accepts (SQRT and RSQRT refuse values below zero)."""
    low = in_zp if op in ("SQRT", "RSQRT") else -128
    x = np.arange(low, 128, dtype=np.int8)
    table = TABLES[op](in_scale, in_zp, out_scale, out_zp)
    want = reference_unary(op, x, (in_scale, in_zp), (out_scale, out_zp))
    np.testing.assert_array_equal(table[x.view(np.uint8)], want)


# -- hk_math (int32) -------------------------------------------------------------------------------


def _floor_mod(a, b):
    r = np.fmod(a, b)
    return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r)


@fast
@given(broadcast_pair(), st.data())
def test_int32_math_follows_the_reference(shapes, data):
    lib = build_kernels("math")
    out, (sa, sb) = shapes
    a = np.array(
        data.draw(
            st.lists(st.integers(-(10**6), 10**6), min_size=int(np.prod(sa)), max_size=int(np.prod(sa)))
        ),
        np.int32,
    ).reshape(sa)  # noqa: E501
    nonzero = st.integers(-999, 999).filter(bool)
    b = np.array(
        data.draw(st.lists(nonzero, min_size=int(np.prod(sb)), max_size=int(np.prod(sb)))), np.int32
    ).reshape(sb)  # noqa: E501
    params = MathParams(walk(out, [sa, sb]), 0.0, 0.0, -(2**31), 2**31 - 1)
    A, B = np.broadcast_arrays(a.astype(np.int64), b.astype(np.int64))
    models = {
        "div": np.trunc(A / B),  # exact: |a| < 2^53
        "floor_div": np.floor(A.astype(np.float64) / B.astype(np.float64)),
        "floor_mod": _floor_mod(A, B),
    }
    for name, model in models.items():
        y = np.zeros(out, np.int32)
        assert getattr(lib, f"hk_{name}_s32")(ctypes.byref(params), ptr(a), ptr(b), ptr(y)) == 0
        np.testing.assert_array_equal(y, model.astype(np.int32), err_msg=name)
    # a zero divisor is the reference's error, here a status
    b.flat[0] = 0
    y = np.zeros(out, np.int32)
    assert lib.hk_div_s32(ctypes.byref(params), ptr(a), ptr(b), ptr(y)) != 0


@fast
@given(broadcast_pair(), st.data())
def test_int32_pow_follows_the_reference(shapes, data):
    lib = build_kernels("math")
    out, (sa, sb) = shapes
    a = np.array(
        data.draw(st.lists(st.integers(-20, 20), min_size=int(np.prod(sa)), max_size=int(np.prod(sa)))),
        np.int32,
    ).reshape(sa)  # noqa: E501
    b = np.array(
        data.draw(st.lists(st.integers(0, 7), min_size=int(np.prod(sb)), max_size=int(np.prod(sb)))), np.int32
    ).reshape(sb)  # noqa: E501
    params = MathParams(walk(out, [sa, sb]), 0.0, 0.0, 0, 0)
    y = np.zeros(out, np.int32)
    assert lib.hk_pow_s32(ctypes.byref(params), ptr(a), ptr(b), ptr(y)) == 0
    A, B = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_array_equal(y, np.power(A, B).astype(np.int32))


# -- hk_compare ------------------------------------------------------------------------------------

OPS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")
NUMPY = (np.equal, np.not_equal, np.greater, np.greater_equal, np.less, np.less_equal)


@fast
@given(broadcast_pair(), st.data(), scales, zero_points, scales, zero_points)
def test_int8_comparisons_rescale_as_the_reference(shapes, data, s1, z1, s2, z2):
    lib = build_kernels("compare")
    out, (sa, sb) = shapes
    byte = st.integers(-128, 127)
    a = np.array(
        data.draw(st.lists(byte, min_size=int(np.prod(sa)), max_size=int(np.prod(sa)))), np.int8
    ).reshape(sa)  # noqa: E501
    b = np.array(
        data.draw(st.lists(byte, min_size=int(np.prod(sb)), max_size=int(np.prod(sb)))), np.int8
    ).reshape(sb)  # noqa: E501
    m1, sh1 = quantize_multiplier(s1)
    m2, sh2 = quantize_multiplier(s2)
    # ComparisonWithScaling: (q - zp) << 8, then each input's scale as a multiplier below one
    A = mbqm_smaller_than_one((a.astype(np.int64) - z1) * 256, m1, sh1)
    B = mbqm_smaller_than_one((b.astype(np.int64) - z2) * 256, m2, sh2)
    for code, model in enumerate(NUMPY):
        params = CompareParams(walk(out, [sa, sb]), code, 8, -z1, -z2, m1, sh1, m2, sh2)
        y = np.zeros(out, np.bool_)
        assert lib.hk_compare_s8(ctypes.byref(params), ptr(a), ptr(b), ptr(y)) == 0
        np.testing.assert_array_equal(y, model(A, B), err_msg=OPS[code])


@fast
@given(broadcast_pair(), st.data())
def test_int32_and_bool_comparisons(shapes, data):
    lib = build_kernels("compare")
    out, (sa, sb) = shapes
    small = st.integers(-3, 3)
    a = np.array(
        data.draw(st.lists(small, min_size=int(np.prod(sa)), max_size=int(np.prod(sa)))), np.int32
    ).reshape(sa)  # noqa: E501
    b = np.array(
        data.draw(st.lists(small, min_size=int(np.prod(sb)), max_size=int(np.prod(sb)))), np.int32
    ).reshape(sb)  # noqa: E501
    for code, model in enumerate(NUMPY):
        params = CompareParams(walk(out, [sa, sb]), code)
        y = np.zeros(out, np.bool_)
        assert lib.hk_compare_s32(ctypes.byref(params), ptr(a), ptr(b), ptr(y)) == 0
        np.testing.assert_array_equal(y, model(a, b), err_msg=OPS[code])
        ab, bb = np.asarray(a > 0), np.asarray(b > 0)
        assert lib.hk_compare_b(ctypes.byref(params), ptr(ab), ptr(bb), ptr(y)) == 0
        np.testing.assert_array_equal(y, model(ab, bb), err_msg=f"bool {OPS[code]}")
    w = walk(out, [sa, sb])
    for name, model in (("and", np.logical_and), ("or", np.logical_or)):
        y = np.zeros(out, np.bool_)
        p, n = np.asarray(a > 0), np.asarray(b < 0)
        assert getattr(lib, f"hk_logical_{name}")(ctypes.byref(w), ptr(p), ptr(n), ptr(y)) == 0
        np.testing.assert_array_equal(y, model(p, n), err_msg=name)


@fast
@given(broadcast_pair(inputs=3), st.sampled_from([np.int8, np.int16, np.int32]), st.data())
def test_select_broadcasts_three_inputs(shapes, dtype, data):
    lib = build_kernels("compare")
    out, (sc, sx, sy) = shapes
    info = np.iinfo(dtype)
    value = st.integers(int(info.min), int(info.max))
    c = np.array(
        data.draw(st.lists(st.booleans(), min_size=int(np.prod(sc)), max_size=int(np.prod(sc)))), np.bool_
    ).reshape(sc)  # noqa: E501
    x = np.array(
        data.draw(st.lists(value, min_size=int(np.prod(sx)), max_size=int(np.prod(sx)))), dtype
    ).reshape(sx)  # noqa: E501
    y = np.array(
        data.draw(st.lists(value, min_size=int(np.prod(sy)), max_size=int(np.prod(sy)))), dtype
    ).reshape(sy)  # noqa: E501
    w = walk(out, [sc, sx, sy])
    result = np.zeros(out, dtype)
    width = {1: "x8", 2: "x16", 4: "x32"}[np.dtype(dtype).itemsize]
    assert getattr(lib, f"hk_select_{width}")(ctypes.byref(w), ptr(c), ptr(x), ptr(y), ptr(result)) == 0
    np.testing.assert_array_equal(result, np.where(c, x, y))


# -- int16 paths, against LiteRT itself -------------------------------------------------------------


class Lut16Params(ctypes.Structure):
    _fields_ = [("table", ctypes.c_int16 * 513)]


class Abs16Params(ctypes.Structure):
    _fields_ = [
        ("input_offset", I32),
        ("output_offset", I32),
        ("multiplier", I32),
        ("shift", I32),
        ("needs_rescale", ctypes.c_bool),
        ("quantized", ctypes.c_bool),
    ]


class Sqrt16Params(ctypes.Structure):
    _fields_ = [
        ("input_scale", ctypes.c_float),
        ("input_zero_point", I32),
        ("output_scale", ctypes.c_float),
        ("output_zero_point", I32),
    ]


def reference_unary16(op: str, x: np.ndarray, in_q, out_q) -> np.ndarray:
    b = LiteRTModelBuilder()
    i = b.add_tensor("x", x.shape, "int16", quantization=in_q)
    o = b.add_tensor("y", x.shape, "int16", quantization=out_q)
    b.add_operator(op, [i], [o])
    b.set_inputs([i])
    b.set_outputs([o])
    it = Interpreter(model_content=b.to_bytes(), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


scales16 = st.floats(1e-5, 0.01, allow_nan=False).map(lambda s: float(np.float32(s)))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(sorted(TABLES_INT16)), scales16, scales16)
def test_int16_tables_and_lookup_match_the_reference(op, in_scale, out_scale):
    """Every int16 input the reference accepts, through the table and hk_unary_lut_s16."""
    lib = build_kernels("unary")
    x = np.arange(0 if op == "RSQRT" else -32768, 32768, dtype=np.int16)
    params = Lut16Params()
    for i, v in enumerate(TABLES_INT16[op](in_scale, 0, out_scale, 0)):
        params.table[i] = int(v)
    y = np.zeros_like(x)
    assert lib.hk_unary_lut_s16(ctypes.byref(params), ptr(x), ptr(y), ctypes.c_size_t(x.size)) == 0
    np.testing.assert_array_equal(y, reference_unary16(op, x, (in_scale, 0), (out_scale, 0)))


@settings(max_examples=15, deadline=None)
@given(scales16, scales16, st.booleans())
def test_int16_abs_and_sqrt_match_the_reference(in_scale, out_scale, same_scale):
    lib = build_kernels("unary")
    out_scale = in_scale if same_scale else out_scale
    x = np.arange(-32768, 32768, dtype=np.int16)
    m, s = quantize_multiplier(float(np.float32(in_scale) / np.float32(out_scale)))
    abs_params = Abs16Params(0, 0, m, s, not same_scale, True)
    y = np.zeros_like(x)
    assert lib.hk_abs_s16(ctypes.byref(abs_params), ptr(x), ptr(y), ctypes.c_size_t(x.size)) == 0
    np.testing.assert_array_equal(y, reference_unary16("ABS", x, (in_scale, 0), (out_scale, 0)))
    p = np.arange(0, 32768, dtype=np.int16)
    sqrt_params = Sqrt16Params(in_scale, 0, out_scale, 0)
    y = np.zeros_like(p)
    assert lib.hk_sqrt_s16(ctypes.byref(sqrt_params), ptr(p), ptr(y), ctypes.c_size_t(p.size)) == 0
    np.testing.assert_array_equal(y, reference_unary16("SQRT", p, (in_scale, 0), (out_scale, 0)))
    # a negative real input is the reference's error, here a status
    assert lib.hk_sqrt_s16(ctypes.byref(sqrt_params), ptr(x), ptr(y), ctypes.c_size_t(x.size)) != 0
