"""Property tests of hk_softmax against numpy models of the LiteRT reference softmax kernels.

The int8 paths are modelled step by step on gemmlowp's fixed-point exp and reciprocal, the int16
path on LiteRT's interpolated tables; parameters and tables come from ``activation_quantization``
for random betas and scales. Integer results must match exactly.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from helia_aot_ops_builtin.activation import activation_quantization as aq
from hypothesis import given
from hypothesis import strategies as st

from ops_builtin.support import float16_cases
from ops_builtin.support.activation_refmodels import softmax_f32, softmax_s8, softmax_s16
from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.single_op import check_against_reference, options, unary

I32 = ctypes.c_int32


class SoftmaxF32C(ctypes.Structure):
    _fields_ = [("outer_size", I32), ("depth", I32), ("beta", ctypes.c_float)]


class SoftmaxS8C(ctypes.Structure):
    _fields_ = [(n, I32) for n in ("outer_size", "depth", "input_multiplier", "input_left_shift", "diff_min")]


class SoftmaxS16C(ctypes.Structure):
    _fields_ = [(n, I32) for n in ("outer_size", "depth", "input_multiplier", "input_shift")]


CTYPE = {np.int8: ctypes.c_int8, np.int16: ctypes.c_int16, np.float32: ctypes.c_float}


def ptr(arr: np.ndarray):
    return arr.ctypes.data_as(ctypes.POINTER(CTYPE[arr.dtype.type]))


def lib():
    return build_kernels("softmax")


betas = st.one_of(st.just(1.0), st.floats(0.05, 4.0)).map(lambda v: float(np.float32(v)))
seeds = st.integers(0, 2**32 - 1)
outer = st.integers(1, 6)
depth = st.integers(1, 70)


def rows_int(seed, rows, cols, dtype, spread: int):
    """Random rows clustered around a random centre, so many differences survive diff_min."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    centre = rng.integers(info.min, info.max + 1)
    x = centre + rng.integers(-spread, spread + 1, (rows, cols))
    return np.clip(x, info.min, info.max).astype(dtype)


@given(betas, st.floats(0.005, 0.5), outer, depth, seeds, st.integers(1, 255), st.booleans())
def test_softmax_s8_s8(beta, scale, rows, cols, seed, spread, in_place):
    scale = float(np.float32(scale))
    p = aq.softmax_s8_params(beta, scale)
    x = rows_int(seed, rows, cols, np.int8, spread)
    params = SoftmaxS8C(rows, cols, p.input_multiplier, p.input_left_shift, p.diff_min)
    out = x.copy() if in_place else np.zeros_like(x)
    src = out if in_place else x
    assert lib().hk_softmax_s8(ctypes.byref(params), ptr(src), ptr(out)) == 0
    np.testing.assert_array_equal(out, softmax_s8(x, p, 8))


@given(betas, st.floats(0.005, 0.5), outer, depth, seeds, st.integers(1, 255))
def test_softmax_s8_s16(beta, scale, rows, cols, seed, spread):
    p = aq.softmax_s8_params(beta, float(np.float32(scale)))
    x = rows_int(seed, rows, cols, np.int8, spread)
    params = SoftmaxS8C(rows, cols, p.input_multiplier, p.input_left_shift, p.diff_min)
    out = np.zeros(x.shape, np.int16)
    assert lib().hk_softmax_s8_s16(ctypes.byref(params), ptr(x), ptr(out)) == 0
    np.testing.assert_array_equal(out, softmax_s8(x, p, 16))


def test_softmax_s8_probabilities_are_sane():
    p = aq.softmax_s8_params(1.0, 0.1)
    x = np.array([[0, 10, 20, 30, -128, 127]], np.int8)
    params = SoftmaxS8C(1, 6, p.input_multiplier, p.input_left_shift, p.diff_min)
    out = np.zeros_like(x)
    assert lib().hk_softmax_s8(ctypes.byref(params), ptr(x), ptr(out)) == 0
    real = np.exp(0.1 * x[0].astype(float))
    real /= real.sum()
    assert np.max(np.abs((out[0].astype(int) + 128) / 256 - real)) <= 1 / 256


EXP_LUT = aq.softmax_exp_lut()
RECIP_LUT = aq.softmax_one_over_one_plus_x_lut()


@given(betas, st.floats(1e-5, 1e-3), outer, depth, seeds, st.integers(1, 32767), st.booleans())
def test_softmax_s16(beta, scale, rows, cols, seed, spread, in_place):
    p = aq.softmax_s16_params(beta, float(np.float32(scale)))
    x = rows_int(seed, rows, cols, np.int16, spread)
    params = SoftmaxS16C(rows, cols, p.input_multiplier, p.input_shift)
    out = x.copy() if in_place else np.zeros_like(x)
    src = out if in_place else x
    assert lib().hk_softmax_s16(ctypes.byref(params), ptr(EXP_LUT), ptr(RECIP_LUT), ptr(src), ptr(out)) == 0
    np.testing.assert_array_equal(out, softmax_s16(x, p, EXP_LUT, RECIP_LUT))


def test_softmax_s16_tables_match_their_functions():
    grid = np.arange(513)
    exp_ideal = np.exp(-10.0 + 10.0 * grid / 512) * 32767.5
    recip_ideal = 1 / (1 + grid / 512) * 32767.5
    assert np.max(np.abs(EXP_LUT - exp_ideal)) < 2
    assert np.max(np.abs(RECIP_LUT - recip_ideal)) < 2


@given(betas, outer, depth, seeds)
def test_softmax_f32(beta, rows, cols, seed):
    x = (np.random.default_rng(seed).standard_normal((rows, cols)) * 6).astype(np.float32)
    params = SoftmaxF32C(rows, cols, beta)
    out = np.zeros_like(x)
    assert lib().hk_softmax_f32(ctypes.byref(params), ptr(x), ptr(out)) == 0
    np.testing.assert_allclose(out, softmax_f32(x, beta), rtol=1e-5, atol=1e-7)


def test_softmax_rejects_empty_rows():
    x = np.zeros(4, np.float32)
    params = SoftmaxF32C(1, 0, 1.0)
    assert lib().hk_softmax_f32(ctypes.byref(params), ptr(x), ptr(x)) != 0


# SOFTMAX alone in a model, per element type, against LiteRT's reference kernels
# (tests/ops_builtin/support/single_op.py).

REFERENCE_CASES = {
    "float32": unary("SOFTMAX", "float32", shape=(3, 20), opts=options("SoftmaxOptionsT", beta=1.0)),
    "int8": unary(
        "SOFTMAX",
        "int8",
        shape=(3, 20),
        quant=(0.1, 3),
        out_quant=(1 / 256, -128),
        opts=options("SoftmaxOptionsT", beta=1.0),
    ),
    "int16": unary(
        "SOFTMAX",
        "int16",
        shape=(3, 20),
        quant=(0.0005, 0),
        out_quant=(1 / 32768, 0),
        opts=options("SoftmaxOptionsT", beta=1.0),
    ),
}
"""Case name -> its one-operator model."""


def test_softmax_matches_the_reference(tmp_path):
    check_against_reference(REFERENCE_CASES, tmp_path)


FLOAT16 = float16_cases.named("softmax")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_softmax_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
