"""Property tests of the activation kernel families against numpy models of the LiteRT reference.

Kernel parameters come from ``activation_quantization`` for random scales, zero points and
alphas, so the tests cover the Prepare arithmetic the operators use together with the kernels.
Integer kernels must match the models exactly; float kernels that use only +, *, / and compares
must match bit for bit, the exp/tanh ones to within a few float32 ulps.
"""

from __future__ import annotations

import ctypes

import numpy as np
from helia_aot_ops_builtin.activation import activation_quantization as aq
from hypothesis import assume, given
from hypothesis import strategies as st

from ops_builtin.support.activation_refmodels import (
    SIGMOID_TABLE,
    hard_swish_q,
    leaky_relu_q,
    logistic_s16,
    prelu_q,
    relu_q,
    tanh_s16,
)
from ops_builtin.support.cbuild import build_kernels

I32 = ctypes.c_int32
I16 = ctypes.c_int16


def _struct(name, fields):
    return type(name, (ctypes.Structure,), {"_fields_": fields})


ReluC = _struct(
    "ReluC",
    [
        (n, I32)
        for n in (
            "input_zero_point",
            "output_zero_point",
            "output_multiplier",
            "output_shift",
            "activation_min",
            "activation_max",
        )
    ],
)
ReluF32C = _struct("ReluF32C", [("activation_min", ctypes.c_float), ("activation_max", ctypes.c_float)])
LeakyC = _struct(
    "LeakyC",
    [
        (n, I32)
        for n in (
            "input_zero_point",
            "output_zero_point",
            "identity_multiplier",
            "identity_shift",
            "alpha_multiplier",
            "alpha_shift",
        )
    ],
)
LeakyF32C = _struct("LeakyF32C", [("alpha", ctypes.c_float)])
HardSwishC = _struct(
    "HardSwishC",
    [
        ("input_zero_point", I32),
        ("output_zero_point", I32),
        ("reluish_multiplier", I16),
        ("reluish_exponent", I32),
        ("output_multiplier", I16),
        ("output_exponent", I32),
    ],
)
PreluShapeC = _struct("PreluShapeC", [("rank", I32), ("dims", I32 * 6), ("alpha_strides", I32 * 6)])
PreluC = _struct(
    "PreluC",
    [("shape", PreluShapeC)]
    + [
        (n, I32)
        for n in (
            "input_zero_point",
            "alpha_zero_point",
            "output_zero_point",
            "identity_multiplier",
            "identity_shift",
            "alpha_multiplier",
            "alpha_shift",
        )
    ],
)
SigmoidC = _struct("SigmoidC", [("input_multiplier", I32), ("input_left_shift", I32)])

CTYPE = {np.int8: ctypes.c_int8, np.int16: ctypes.c_int16, np.float32: ctypes.c_float}


def ptr(arr: np.ndarray):
    return arr.ctypes.data_as(ctypes.POINTER(CTYPE[arr.dtype.type]))


def lib():
    return build_kernels("relu", "leaky_relu", "hard_swish", "prelu", "sigmoid")


def from_record(cstruct, record):
    return cstruct(*[getattr(record, name) for name, _ in cstruct._fields_])


def run_unary(fn, params, x: np.ndarray, in_place: bool = False) -> np.ndarray:
    out = x.copy() if in_place else np.zeros_like(x)
    src = out if in_place else x
    args = ([ctypes.byref(params)] if params is not None else []) + [
        ptr(src),
        ptr(out),
        ctypes.c_size_t(x.size),
    ]
    assert fn(*args) == 0
    return out


scales = st.floats(1e-3, 1.0).map(lambda v: float(np.float32(v)))
zero_points8 = st.integers(-128, 127)
seeds = st.integers(0, 2**32 - 1)


def all_int8(seed: int, extra: int) -> np.ndarray:
    """Every int8 value (shuffled) plus a random tail, so odd sizes are exercised too."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([np.arange(-128, 128), rng.integers(-128, 128, extra)])
    return rng.permutation(values).astype(np.int8)


def random_int16(seed: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    edges = np.array([-32768, -32767, -1, 0, 1, 32766, 32767])
    return np.concatenate([edges, rng.integers(-32768, 32768, size)]).astype(np.int16)


@given(
    st.sampled_from(["RELU", "RELU6", "RELU_N1_TO_1"]),
    scales,
    zero_points8,
    scales,
    zero_points8,
    seeds,
    st.integers(0, 40),
    st.booleans(),
)
def test_relu_s8(kind, si, zi, so, zo, seed, extra, in_place):
    p = aq.relu_params(kind, np.int8, si, zi, so, zo)
    x = all_int8(seed, extra)
    got = run_unary(lib().hk_relu_s8, from_record(ReluC, p), x, in_place)
    np.testing.assert_array_equal(got, relu_q(x, p, p.activation_min, p.activation_max))


@given(st.sampled_from(["RELU", "RELU6"]), scales, scales, seeds, st.integers(0, 300))
def test_relu_s16(kind, si, so, seed, size):
    p = aq.relu_params(kind, np.int16, si * 0.01, 0, so * 0.01, 0)
    x = random_int16(seed, size)
    got = run_unary(lib().hk_relu_s16, from_record(ReluC, p), x)
    np.testing.assert_array_equal(got, relu_q(x, p, p.activation_min, p.activation_max))


@given(st.sampled_from([(0.0, np.inf), (0.0, 6.0), (-1.0, 1.0)]), seeds, st.integers(1, 200))
def test_relu_f32(bounds, seed, size):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(size) * 5).astype(np.float32)
    x[: min(size, 3)] = [np.nan, np.inf, -np.inf][: min(size, 3)]
    got = run_unary(lib().hk_relu_f32, ReluF32C(*bounds), x)
    lo, hi = np.float32(bounds[0]), np.float32(bounds[1])
    want = np.where(x > hi, hi, np.where(x < lo, lo, x))
    np.testing.assert_array_equal(got, want)


alphas = st.one_of(st.floats(0.0, 1.0), st.floats(-2.0, 2.0)).map(lambda v: float(np.float32(v)))


@given(alphas, scales, zero_points8, scales, zero_points8, seeds, st.integers(0, 40))
def test_leaky_relu_s8(alpha, si, zi, so, zo, seed, extra):
    p = aq.leaky_relu_params(alpha, si, zi, so, zo)
    x = all_int8(seed, extra)
    got = run_unary(lib().hk_leaky_relu_s8, from_record(LeakyC, p), x)
    np.testing.assert_array_equal(got, leaky_relu_q(x, p, -128, 127))


@given(alphas, scales, scales, seeds, st.integers(0, 300))
def test_leaky_relu_s16(alpha, si, so, seed, size):
    p = aq.leaky_relu_params(alpha, si * 0.01, 0, so * 0.01, 0)
    x = random_int16(seed, size)
    got = run_unary(lib().hk_leaky_relu_s16, from_record(LeakyC, p), x, in_place=True)
    np.testing.assert_array_equal(got, leaky_relu_q(x, p, -32768, 32767))


@given(alphas, seeds, st.integers(1, 200))
def test_leaky_relu_f32(alpha, seed, size):
    x = (np.random.default_rng(seed).standard_normal(size) * 4).astype(np.float32)
    got = run_unary(lib().hk_leaky_relu_f32, LeakyF32C(alpha), x)
    np.testing.assert_array_equal(got, np.where(x > 0, x, x * np.float32(alpha)))


@given(scales, zero_points8, st.floats(0.2, 3.0), zero_points8, seeds, st.integers(0, 40))
def test_hard_swish_s8(si, zi, ratio, zo, seed, extra):
    so = float(np.float32(si * ratio))
    p = aq.hard_swish_params(si * 20, zi, so * 20, zo)
    assume(p.output_exponent <= 0)  # LiteRT's Prepare rejects the other case
    x = all_int8(seed, extra)
    got = run_unary(lib().hk_hard_swish_s8, from_record(HardSwishC, p), x)
    np.testing.assert_array_equal(got, hard_swish_q(x, p))


@given(seeds, st.integers(1, 200))
def test_hard_swish_f32(seed, size):
    x = (np.random.default_rng(seed).standard_normal(size) * 5).astype(np.float32)
    got = run_unary(lib().hk_hard_swish_f32, None, x)
    relu6 = np.minimum(np.float32(6), np.maximum(np.float32(0), x + np.float32(3)))
    np.testing.assert_array_equal(got, x * relu6 / np.float32(6))


@st.composite
def prelu_case(draw):
    rank = draw(st.integers(1, 6))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    alpha_rank = draw(st.integers(1, rank))
    alpha_shape = tuple(d if draw(st.booleans()) else 1 for d in shape[rank - alpha_rank :])
    return shape, alpha_shape


def prelu_shape(shape, alpha_shape) -> PreluShapeC:
    strides = aq.prelu_alpha_strides(shape, alpha_shape)
    pad = [0] * (6 - len(shape))
    return PreluShapeC(len(shape), (I32 * 6)(*shape, *pad), (I32 * 6)(*strides, *pad))


@given(prelu_case(), scales, zero_points8, scales, zero_points8, scales, zero_points8, seeds)
def test_prelu_s8(case, si, zi, sa, za, so, zo, seed):
    shape, alpha_shape = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, shape).astype(np.int8)
    alpha = rng.integers(-128, 128, alpha_shape).astype(np.int8)
    q = aq.prelu_quant_params(si, zi, sa, za, so, zo)
    params = PreluC(prelu_shape(shape, alpha_shape), *[getattr(q, n) for n, _ in PreluC._fields_[1:]])
    out = np.zeros_like(x)
    assert lib().hk_prelu_s8(ctypes.byref(params), ptr(x), ptr(alpha), ptr(out)) == 0
    np.testing.assert_array_equal(out, prelu_q(x, np.broadcast_to(alpha, shape), q))


@given(prelu_case(), seeds)
def test_prelu_f32(case, seed):
    shape, alpha_shape = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    alpha = rng.standard_normal(alpha_shape).astype(np.float32)
    out = np.zeros_like(x)
    shape_c = prelu_shape(shape, alpha_shape)
    assert lib().hk_prelu_f32(ctypes.byref(shape_c), ptr(x), ptr(alpha), ptr(out)) == 0
    np.testing.assert_array_equal(out, np.where(x >= 0, x, x * np.broadcast_to(alpha, shape)))


def test_prelu_rejects_bad_rank():
    shape_c = PreluShapeC(7, (I32 * 6)(*[1] * 6), (I32 * 6)(*[0] * 6))
    x = np.zeros(1, np.float32)
    assert lib().hk_prelu_f32(ctypes.byref(shape_c), ptr(x), ptr(x), ptr(x)) != 0


@given(
    st.sampled_from(["LOGISTIC", "TANH"]),
    st.floats(0.01, 0.5),
    zero_points8,
    zero_points8,
    st.floats(1 / 256, 1 / 64),
    seeds,
)
def test_lut_s8_with_litert_tables(op, si, zi, zo, so, seed):
    if op == "LOGISTIC":
        table = aq.logistic_lut_int8(si, zi, 1 / 256, zo)
    else:
        table = aq.tanh_lut_int8(si, zi, so, zo)
    x = all_int8(seed, 17)
    got = run_unary(lambda *a: lib().hk_lut_s8(ptr(table), *a), None, x)
    np.testing.assert_array_equal(got, table[x.view(np.uint8)])
    # The tables sample increasing functions, so they must be monotone in the input.
    ordered = table[np.arange(-128, 128).astype(np.int8).view(np.uint8)].astype(int)
    assert np.all(np.diff(ordered) >= 0)


sigmoid_scales = st.one_of(
    st.sampled_from([2.0**-12, 2.0**-11, 2.0**-10]), st.floats(1e-5, 1e-2).map(lambda v: float(np.float32(v)))
)


@given(st.sampled_from(["LOGISTIC", "TANH"]), sigmoid_scales, seeds, st.integers(0, 500))
def test_sigmoid_s16(op, scale, seed, size):
    p = aq.sigmoid_s16_params(op, scale)
    x = random_int16(seed, size)
    fn = lib().hk_logistic_s16 if op == "LOGISTIC" else lib().hk_tanh_s16
    got = run_unary(fn, from_record(SigmoidC, p), x)
    model = logistic_s16 if op == "LOGISTIC" else tanh_s16
    np.testing.assert_array_equal(got, model(x, p, SIGMOID_TABLE))
    # Sanity against the real function: the table interpolation is accurate to a few LSBs.
    real = x.astype(np.float64) * scale
    ideal = 1 / (1 + np.exp(-real)) if op == "LOGISTIC" else np.tanh(real)
    assert np.max(np.abs(got / 32768.0 - ideal)) < 2e-3


def test_sigmoid_s16_power_of_two_scales_use_zero_multiplier():
    assert aq.sigmoid_s16_params("LOGISTIC", 2.0**-12) == aq.SigmoidS16Params(0, 0)
    assert aq.sigmoid_s16_params("TANH", 2.0**-11) == aq.SigmoidS16Params(0, 1)
    assert aq.sigmoid_s16_params("LOGISTIC", 2.0**-11).input_multiplier > 0


@given(seeds, st.integers(1, 300))
def test_logistic_tanh_f32(seed, size):
    x = (np.random.default_rng(seed).standard_normal(size) * 8).astype(np.float32)
    x[0] = 20.0  # above the saturation cutoff
    got = run_unary(lib().hk_logistic_f32, None, x)
    wide = x.astype(np.float64)
    want = np.where(x > 16.619047164916992, 1.0, np.where(x < -9.0, np.exp(wide), 1 / (1 + np.exp(-wide))))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)
    got = run_unary(lib().hk_tanh_f32, None, x)
    np.testing.assert_allclose(got, np.tanh(x.astype(np.float64)), rtol=2e-6, atol=1e-7)
