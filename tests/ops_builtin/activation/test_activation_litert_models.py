"""The numpy models and Prepare arithmetic of the activation kernel tests agree with LiteRT itself.

The kernel tests compare the C kernels with ``activation_refmodels`` fed by ``activation_quantization``;
this file closes the loop by running single-operator models through the BUILTIN_REF interpreter
for random scales, zero points, alphas and betas and comparing with the same models, exactly.
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.activation import activation_quantization as aq
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ops_builtin.support.activation_refmodels import (
    SIGMOID_TABLE,
    hard_swish_q,
    leaky_relu_q,
    logistic_s16,
    prelu_q,
    relu_q,
    softmax_s8,
    softmax_s16,
    tanh_s16,
)

ALL_INT8 = np.arange(-128, 128, dtype=np.int8).reshape(1, 256)
ALL_INT16 = np.arange(-32768, 32768, 7, dtype=np.int64).astype(np.int16).reshape(1, -1)


def run_litert(op, x, in_quant, out_dtype, out_quant, options=None, alpha=None):
    b = LiteRTModelBuilder()
    src = b.add_tensor("x", x.shape, x.dtype, quantization=in_quant)
    dst = b.add_tensor("y", x.shape, out_dtype, quantization=out_quant)
    extra = []
    if alpha is not None:
        extra.append(
            b.add_tensor("alpha", alpha[0].shape, alpha[0].dtype, data=alpha[0], quantization=alpha[1])
        )
    b.add_operator(op, [src, *extra], [dst], options)
    b.set_inputs([src])
    b.set_outputs([dst])
    interpreter = Interpreter(
        model_content=b.to_bytes(), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
    )
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


f32 = st.floats(1e-3, 1.0).map(lambda v: float(np.float32(v)))
zp8 = st.integers(-128, 127)
fast = settings(max_examples=25)


@fast
@given(st.sampled_from(["RELU", "RELU6", "RELU_N1_TO_1"]), f32, zp8, f32, zp8)
def test_relu_family_int8(kind, si, zi, so, zo):
    p = aq.relu_params(kind, np.int8, si, zi, so, zo)
    got = run_litert(kind, ALL_INT8, (si, zi), np.int8, (so, zo))
    np.testing.assert_array_equal(got, relu_q(ALL_INT8, p, p.activation_min, p.activation_max))


@fast
@given(st.sampled_from(["RELU", "RELU6"]), f32, f32)
def test_relu_family_int16(kind, si, so):
    si, so = si * 1e-2, so * 1e-2
    p = aq.relu_params(kind, np.int16, si, 0, so, 0)
    got = run_litert(kind, ALL_INT16, (si, 0), np.int16, (so, 0))
    np.testing.assert_array_equal(got, relu_q(ALL_INT16, p, p.activation_min, p.activation_max))


@fast
@given(st.floats(-2.0, 2.0).map(lambda v: float(np.float32(v))), f32, zp8, f32, zp8)
def test_leaky_relu(alpha, si, zi, so, zo):
    options = litert.LeakyReluOptionsT()
    options.alpha = alpha
    p = aq.leaky_relu_params(alpha, si, zi, so, zo)
    got = run_litert("LEAKY_RELU", ALL_INT8, (si, zi), np.int8, (so, zo), options)
    np.testing.assert_array_equal(got, leaky_relu_q(ALL_INT8, p, -128, 127))
    p16 = aq.leaky_relu_params(alpha, si * 1e-2, 0, so * 1e-2, 0)
    got = run_litert("LEAKY_RELU", ALL_INT16, (si * 1e-2, 0), np.int16, (so * 1e-2, 0), options)
    np.testing.assert_array_equal(got, leaky_relu_q(ALL_INT16, p16, -32768, 32767))


@fast
@given(f32, zp8, st.floats(0.2, 3.0), zp8)
def test_hard_swish(si, zi, ratio, zo):
    so = float(np.float32(si * ratio))
    p = aq.hard_swish_params(si, zi, so, zo)
    assume(p.output_exponent <= 0)
    got = run_litert("HARD_SWISH", ALL_INT8, (si, zi), np.int8, (so, zo))
    np.testing.assert_array_equal(got, hard_swish_q(ALL_INT8, p))


@fast
@given(
    st.sampled_from([(1, 1, 24), (24,), (3, 1, 24), (1,), (2, 3, 1, 24)]),
    f32,
    zp8,
    f32,
    zp8,
    f32,
    zp8,
    st.integers(0, 2**32 - 1),
)
def test_prelu(alpha_shape, si, zi, sa, za, so, zo, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (2, 3, 5, 24)).astype(np.int8)
    alpha = rng.integers(-128, 128, alpha_shape).astype(np.int8)
    q = aq.prelu_quant_params(si, zi, sa, za, so, zo)
    got = run_litert("PRELU", x, (si, zi), np.int8, (so, zo), alpha=(alpha, (sa, za)))
    np.testing.assert_array_equal(got, prelu_q(x, np.broadcast_to(alpha, x.shape), q))


@fast
@given(st.floats(0.005, 0.5), zp8, zp8, st.floats(1 / 256, 1 / 32))
def test_int8_logistic_and_tanh_tables(si, zi, zo, so):
    si, so = float(np.float32(si)), float(np.float32(so))
    index = ALL_INT8[0].view(np.uint8)
    got = run_litert("LOGISTIC", ALL_INT8, (si, zi), np.int8, (1 / 256, zo))
    np.testing.assert_array_equal(got[0], aq.logistic_lut_int8(si, zi, 1 / 256, zo)[index])
    got = run_litert("TANH", ALL_INT8, (si, zi), np.int8, (so, zo))
    np.testing.assert_array_equal(got[0], aq.tanh_lut_int8(si, zi, so, zo)[index])


@fast
@given(
    st.one_of(
        st.sampled_from([2.0**-12, 2.0**-11]), st.floats(1e-5, 1e-2).map(lambda v: float(np.float32(v)))
    )
)
def test_int16_logistic_and_tanh(scale):
    for op, model in (("LOGISTIC", logistic_s16), ("TANH", tanh_s16)):
        got = run_litert(op, ALL_INT16, (scale, 0), np.int16, (1 / 32768, 0))
        np.testing.assert_array_equal(got, model(ALL_INT16, aq.sigmoid_s16_params(op, scale), SIGMOID_TABLE))


def softmax_options(beta: float):
    options = litert.SoftmaxOptionsT()
    options.beta = beta
    return options


@fast
@given(
    st.floats(0.1, 3.0).map(lambda v: float(np.float32(v))),
    st.floats(0.01, 0.5),
    zp8,
    st.integers(0, 2**32 - 1),
)
def test_softmax_int8(beta, scale, zi, seed):
    scale = float(np.float32(scale))
    x = np.random.default_rng(seed).integers(-128, 128, (4, 29)).astype(np.int8)
    p = aq.softmax_s8_params(beta, scale)
    got = run_litert("SOFTMAX", x, (scale, zi), np.int8, (1 / 256, -128), softmax_options(beta))
    np.testing.assert_array_equal(got, softmax_s8(x, p, 8))
    got = run_litert("SOFTMAX", x, (scale, zi), np.int16, (1 / 65536, -32768), softmax_options(beta))
    np.testing.assert_array_equal(got, softmax_s8(x, p, 16))


@fast
@given(
    st.floats(0.1, 3.0).map(lambda v: float(np.float32(v))), st.floats(1e-5, 1e-3), st.integers(0, 2**32 - 1)
)
def test_softmax_int16(beta, scale, seed):
    scale = float(np.float32(scale))
    x = np.random.default_rng(seed).integers(-32768, 32768, (4, 29)).astype(np.int16)
    got = run_litert("SOFTMAX", x, (scale, 0), np.int16, (1 / 32768, 0), softmax_options(beta))
    want = softmax_s16(
        x, aq.softmax_s16_params(beta, scale), aq.softmax_exp_lut(), aq.softmax_one_over_one_plus_x_lut()
    )
    np.testing.assert_array_equal(got, want)
