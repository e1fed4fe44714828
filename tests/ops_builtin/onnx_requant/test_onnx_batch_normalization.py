"""ONNX_BATCH_NORMALIZATION, which the ONNX front end writes for a BatchNormalization between a
DequantizeLinear and a QuantizeLinear (no LiteRT model holds one): its kernel on the host against
the numpy model (support/onnx_qdq_refmodels.py ``batch_norm``: the float32 steps of onnxruntime's
float kernel, then QuantizeLinear) on random shapes, parameters and quantizations. The QDQ AD
autoencoder (helia_aot_frontend_onnx/tests) runs nine of them bit-exact in a module."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import BatchNormParams, call_qlinear
from ops_builtin.support import onnx_qdq_refmodels as ref


@settings(max_examples=25, deadline=None)
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
    call_qlinear("onnx_batch_norm_s8", params, mean, multiplier, offset, x, out)
    np.testing.assert_array_equal(out, ref.batch_norm(x, 1, sx, zx, mean, multiplier, offset, sy, zy))
