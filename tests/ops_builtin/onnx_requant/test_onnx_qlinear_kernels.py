"""The onnx_qlinear kernels of ONNX_QUANTIZE and ONNX_SOFTMAX on the host against the numpy
models of QuantizeLinear and onnxruntime's QLinearSoftmax (support/onnx_qdq_refmodels.py), on
random shapes, scales and zero points; the quantizations are drawn onto rounding ties, where half
to even and LiteRT's half away from zero differ, and the float one checks that it met some. The
batch normalization kernel's test is test_onnx_batch_normalization.py."""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.onnx_requant.onnx_qlinear import qlinear_softmax_multiplier, qlinear_softmax_table
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import QuantizeParams, SoftmaxParams, call_qlinear
from ops_builtin.support import onnx_qdq_refmodels as ref

FEW = settings(max_examples=25, deadline=None)


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
    call_qlinear("onnx_quantize_f32_s8", QuantizeParams(n, 1.0, 0, scale, zp), x, out)
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
    call_qlinear("onnx_requantize_s8", QuantizeParams(x.size, sx, zx, sy, zy), x, out)
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
    call_qlinear("onnx_softmax_s8", params, x, out)
    np.testing.assert_array_equal(out, ref.qlinear_softmax(x, x_scale, sy, zy))
