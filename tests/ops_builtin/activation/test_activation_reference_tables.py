"""Hypothesis tests of int8 LOG_SOFTMAX, the GELU/ELU tables and float32 GELU against LiteRT.

Each example builds a one-operator model with drawn shapes, quantizations and data, runs it in
LiteRT's reference interpreter, and compares bit for bit with what a module computes: the
converter's own parameter code (activation_quantization: the log-softmax multipliers, the int8 and
int16 tables) feeding the C kernels (built under UBSan by cbuild). So the whole chain is checked
against the reference itself, over far more quantizations than the corpus models hold, and no
hand-written model of the arithmetic stands between the kernel and LiteRT.
"""

from __future__ import annotations

import ctypes

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.activation import activation_quantization as aq
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.cbuild import build_kernels

I32 = ctypes.c_int32
P8 = ctypes.POINTER(ctypes.c_int8)
P16 = ctypes.POINTER(ctypes.c_int16)

# Scales drawn log-uniformly over the range real models use (2^-14 to 2^1).
scales = st.floats(-14.0, 1.0).map(lambda e: float(np.float32(2.0**e)))
seeds = st.integers(0, 2**32 - 1)


class LogSoftmaxS8(ctypes.Structure):
    _fields_ = [
        ("outer_size", I32),
        ("depth", I32),
        ("input_multiplier", I32),
        ("input_left_shift", I32),
        ("reverse_multiplier", I32),
        ("reverse_shift", I32),
        ("diff_min", I32),
    ]


def reference(name, x, in_quant, out_quant, options=None, resolver=OpResolverType.BUILTIN_REF):
    """The output of one ``name`` operator on ``x`` in LiteRT's interpreter (``resolver``)."""
    dtype = x.dtype.name
    b = LiteRTModelBuilder()
    src = b.add_tensor("x", x.shape, dtype, quantization=in_quant)
    dst = b.add_tensor("y", x.shape, dtype, quantization=out_quant)
    b.add_operator(name, [src], [dst], options)
    b.set_inputs([src])
    b.set_outputs([dst])
    it = Interpreter(model_content=b.to_bytes(), experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy()


def gelu_options(approximate: bool):
    options = litert.GeluOptionsT()
    options.approximate = approximate
    return options


@settings(deadline=None, max_examples=80)
@given(st.integers(1, 4), st.integers(1, 300), scales, st.integers(-128, 127), seeds)
def test_log_softmax_s8(outer, depth, in_scale, zero_point, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (outer, depth)).astype(np.int8)
    if seed % 4 == 0:
        x[0] = x[0, 0]  # a row of equal values: every difference is zero
    if seed % 4 == 1:
        x[-1] = np.where(rng.random(depth) < 0.5, -128, 127)  # the widest differences
    expected = reference("LOG_SOFTMAX", x, (in_scale, zero_point), (16 / 256, 127))
    p = aq.log_softmax_s8_params(in_scale)
    params = LogSoftmaxS8(
        outer,
        depth,
        p.input_multiplier,
        p.input_left_shift,
        p.reverse_multiplier,
        p.reverse_shift,
        p.diff_min,
    )
    out = np.zeros_like(x)
    fn = build_kernels("log_softmax").hk_log_softmax_s8
    assert fn(ctypes.byref(params), x.ctypes.data_as(P8), out.ctypes.data_as(P8)) == 0
    np.testing.assert_array_equal(out, expected)


def table_s8(table: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    fn = build_kernels("table").hk_table_s8
    assert (
        fn(table.ctypes.data_as(P8), x.ctypes.data_as(P8), out.ctypes.data_as(P8), ctypes.c_size_t(x.size))
        == 0
    )
    return out


EVERY_INT8 = np.arange(-128, 128, dtype=np.int8)


@settings(deadline=None, max_examples=80)
@given(st.booleans(), scales, st.integers(-128, 127), scales, st.integers(-128, 127))
def test_gelu_int8_table(approximate, in_scale, in_zp, out_scale, out_zp):
    """All 256 inputs: the table LiteRT's GeluPrepare fills equals the converter's."""
    expected = reference(
        "GELU", EVERY_INT8, (in_scale, in_zp), (out_scale, out_zp), gelu_options(approximate)
    )
    table = aq.gelu_lut_int8(approximate, in_scale, in_zp, out_scale, out_zp)
    np.testing.assert_array_equal(table_s8(table, EVERY_INT8), expected)


@settings(deadline=None, max_examples=80)
@given(scales, st.integers(-128, 127), scales, st.integers(-128, 127))
def test_elu_int8_table(in_scale, in_zp, out_scale, out_zp):
    """ELU is absent from the reference resolver; the built-in kernel fills the same table."""
    expected = reference(
        "ELU",
        EVERY_INT8,
        (in_scale, in_zp),
        (out_scale, out_zp),
        resolver=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    table = aq.elu_lut_int8(in_scale, in_zp, out_scale, out_zp)
    np.testing.assert_array_equal(table_s8(table, EVERY_INT8), expected)


@settings(deadline=None, max_examples=40)
@given(st.booleans(), st.floats(-16.0, -6.0), st.floats(-1.0, 1.0), seeds)
def test_gelu_int16_table(approximate, in_exponent, out_ratio, seed):
    """int16 GELU (zero points 0): the 513-entry table and its interpolation, on random inputs
    plus both ends and zero."""
    in_scale = float(np.float32(2.0**in_exponent))
    out_scale = float(np.float32(in_scale * 2.0**out_ratio))
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.integers(-32768, 32768, 2000), [-32768, -1, 0, 1, 32767]]).astype(np.int16)
    expected = reference("GELU", x, (in_scale, 0), (out_scale, 0), gelu_options(approximate))
    table = aq.gelu_lut_int16(approximate, in_scale, 0, out_scale, 0)
    out = np.zeros_like(x)
    fn = build_kernels("table").hk_table_s16
    assert (
        fn(table.ctypes.data_as(P16), x.ctypes.data_as(P16), out.ctypes.data_as(P16), ctypes.c_size_t(x.size))
        == 0
    )
    np.testing.assert_array_equal(out, expected)


PF = ctypes.POINTER(ctypes.c_float)


@settings(deadline=None, max_examples=60)
@given(st.booleans(), st.integers(1, 70), st.floats(0.5, 12.0), seeds)
def test_gelu_f32_bit_exact(approximate, size, spread, seed):
    """float32 GELU, bit for bit (NaN for NaN): sizes with every remainder after whole packets of
    four (the reference's scalar tail), values on both sides of erfc's |x| = 1 switch and past its
    clamps, and the special values."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(size) * spread).astype(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -14.5, 1.4142135], np.float32)
    x[rng.random(size) < 0.1] = rng.choice(specials)
    expected = reference("GELU", x, None, None, gelu_options(approximate))
    out = np.zeros_like(x)
    lib = build_kernels("gelu")
    fn = lib.hk_gelu_tanh_f32 if approximate else lib.hk_gelu_f32
    assert fn(x.ctypes.data_as(PF), out.ctypes.data_as(PF), ctypes.c_size_t(size)) == 0
    np.testing.assert_array_equal(
        out.view(np.uint32)[~np.isnan(out)], expected.view(np.uint32)[~np.isnan(out)]
    )
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
