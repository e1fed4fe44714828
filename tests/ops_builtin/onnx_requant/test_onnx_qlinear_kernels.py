"""The onnx_qlinear kernels (ONNX_QUANTIZE, ONNX_SOFTMAX, ONNX_BATCH_NORMALIZATION) on the host
against the numpy models of QuantizeLinear, onnxruntime's QLinearSoftmax and a QDQ
BatchNormalization (support/onnx_qdq_refmodels.py), on random shapes, scales and zero points;
the quantizations are drawn onto rounding ties, where half to even and LiteRT's half away from
zero differ, and each test checks that it met some."""

from __future__ import annotations

import ctypes

import numpy as np
from helia_aot_ops_builtin.onnx_requant.onnx_qlinear import qlinear_softmax_multiplier, qlinear_softmax_table
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import ptr
from ops_builtin.support import onnx_qdq_refmodels as ref
from ops_builtin.support.cbuild import build_kernels

FEW = settings(max_examples=25, deadline=None)
I32, F = ctypes.c_int32, ctypes.c_float


class QuantizeParams(ctypes.Structure):
    _fields_ = [
        ("size", I32),
        ("input_scale", F),
        ("input_zero_point", I32),
        ("output_scale", F),
        ("output_zero_point", I32),
    ]


class SoftmaxParams(ctypes.Structure):
    _fields_ = [
        ("outer_size", I32),
        ("depth", I32),
        ("output_multiplier", F),
        ("output_zero_point", I32),
        ("table", ctypes.c_void_p),
    ]


class BatchNormParams(ctypes.Structure):
    _fields_ = [
        ("outer", I32),
        ("channels", I32),
        ("inner", I32),
        ("input_scale", F),
        ("input_zero_point", I32),
        ("output_scale", F),
        ("output_zero_point", I32),
    ]


def _call(function: str, params: ctypes.Structure, *arrays) -> None:
    fn = getattr(build_kernels("onnx_qlinear"), f"hk_{function}")
    assert fn(ctypes.byref(params), *[ptr(a) for a in arrays]) == 0


def _away(v: np.ndarray, zp: int) -> np.ndarray:
    """LiteRT's rounding (half away from zero) of already-scaled values, for the tie check."""
    return np.clip(np.trunc(v + np.copysign(0.5, v)) + zp, -128, 127)


@FEW
@given(n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1))
def test_quantize_from_float(n, seed):
    rng = np.random.default_rng(seed)
    scale = float(np.float32(rng.integers(1, 8) * 2.0 ** rng.integers(-8, -2)))
    zp = int(rng.integers(-128, 128))
    x = ((rng.integers(-300, 300, n) + 0.5) * scale).astype(np.float32)  # halves of a step
    x[::5] = (rng.standard_normal(x[::5].size) * 200 * scale).astype(np.float32)
    x[:3] = [np.nan, np.inf, -np.inf][: min(3, n)]
    out = np.zeros(n, np.int8)
    _call("onnx_quantize_f32_s8", QuantizeParams(n, 1.0, 0, scale, zp), x, out)
    want = ref.quantize_linear(x, scale, zp)
    np.testing.assert_array_equal(out, want)
    finite = np.isfinite(x)
    ties = (want[finite] != _away(x[finite] / np.float32(scale), zp)).sum()
    assert ties > 0 or n < 20


@FEW
@given(seed=st.integers(0, 2**32 - 1))
def test_requantize(seed):
    rng = np.random.default_rng(seed)
    x = np.arange(-128, 128, dtype=np.int8)
    sy = float(np.float32(rng.integers(1, 8) * 2.0 ** rng.integers(-8, -2)))
    sx = float(np.float32(sy / 2 * rng.integers(1, 4)))  # (q - zx) * sx / sy on halves
    zx, zy = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    out = np.zeros_like(x)
    _call("onnx_requantize_s8", QuantizeParams(x.size, sx, zx, sy, zy), x, out)
    np.testing.assert_array_equal(out, ref.requantize_linear(x, sx, zx, sy, zy))


@FEW
@given(
    rows=st.integers(1, 6),
    depth=st.integers(1, 40),
    x_scale=st.floats(0.002, 1.0),
    output=st.sampled_from([(1 / 256, -128), (1 / 255, -128), (0.002, -100), (0.006, 0)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_softmax(rows, depth, x_scale, output, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, (rows, depth)).astype(np.int8)
    sy, zy = output
    table = qlinear_softmax_table(x_scale, depth)
    params = SoftmaxParams(rows, depth, qlinear_softmax_multiplier(sy), zy, table.ctypes.data)
    out = np.zeros_like(x)
    _call("onnx_softmax_s8", params, x, out)
    np.testing.assert_array_equal(out, ref.qlinear_softmax(x, x_scale, sy, zy))


@FEW
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 20), st.integers(1, 5)),
    seed=st.integers(0, 2**32 - 1),
)
def test_batch_norm(shape, seed):
    rng = np.random.default_rng(seed)
    outer, channels, inner = shape
    x = rng.integers(-128, 128, shape).astype(np.int8)
    sx, zx = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-20, 20))
    mean, offset = (rng.standard_normal(channels).astype(np.float32) for _ in range(2))
    multiplier = rng.uniform(0.5, 2.0, channels).astype(np.float32)
    sy, zy = float(np.float32(rng.uniform(0.01, 0.1))), int(rng.integers(-128, 0))
    out = np.zeros_like(x)
    params = BatchNormParams(outer, channels, inner, sx, zx, sy, zy)
    _call("onnx_batch_norm_s8", params, mean, multiplier, offset, x, out)
    np.testing.assert_array_equal(out, ref.batch_norm(x, 1, sx, zx, mean, multiplier, offset, sy, zy))
