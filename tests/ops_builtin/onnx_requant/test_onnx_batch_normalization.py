"""ONNX_BATCH_NORMALIZATION, which the ONNX front end writes for a BatchNormalization between a
DequantizeLinear and a QuantizeLinear (no LiteRT model holds one): its kernel on the host against
the numpy model (support/onnx_qdq_refmodels.py ``batch_norm``: the float32 steps of onnxruntime's
float kernel, then QuantizeLinear) on random shapes, parameters and quantizations, both as the
float32 steps and as the per-channel integer lines the converter fits where they give the same
bytes on every int8 input. The QDQ AD autoencoder (helia_aot_frontend_onnx/tests) runs nine of
them bit-exact in a module. The Helium and DSP builds run in test_onnx_requant_fast_paths.py's
cross program."""

from __future__ import annotations

import numpy as np
from helia_aot_ops_builtin.onnx_requant.onnx_qlinear import batch_norm_outputs, fit_affine_outputs
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.onnx_requant.onnx_requant_ctypes import BatchNormAffineParams, BatchNormParams, call_qlinear
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


def draw_batch_norm(rng: np.random.Generator, channels: int, ties: bool) -> dict:
    """Per-channel parameters as a dense layer's BatchNorm1d gives them (``ties``: scales and
    parameters on coarse binary fractions, where some outputs fall exactly on a half step)."""
    if ties:
        sx, sy = float(rng.integers(1, 8) / 64), float(rng.integers(1, 8) / 64)
        mean, offset = (rng.integers(-8, 8, channels).astype(np.float32) / 8 for _ in range(2))
        multiplier = rng.integers(1, 16, channels).astype(np.float32) / 8
    else:
        sx, sy = float(np.float32(rng.uniform(0.01, 0.1))), float(np.float32(rng.uniform(0.01, 0.1)))
        mean, offset = (rng.standard_normal(channels).astype(np.float32) for _ in range(2))
        multiplier = (rng.uniform(0.3, 3.0, channels) * rng.choice([-1, 1], channels)).astype(np.float32)
    zx, zy = int(rng.integers(-20, 20)), int(rng.integers(-128, 0))
    return {"sx": sx, "zx": zx, "mean": mean, "multiplier": multiplier, "offset": offset, "sy": sy, "zy": zy}


def fit(d: dict):
    """The converter's integer lines for drawn parameters (None where none fits)."""
    outputs = batch_norm_outputs(d["sx"], d["zx"], d["mean"], d["multiplier"], d["offset"], d["sy"], d["zy"])
    slopes = np.float32(d["sx"]) * d["multiplier"].astype(np.float64) / float(np.float32(d["sy"]))
    return fit_affine_outputs(outputs, slopes)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 40), st.sampled_from([1, 1, 2, 5])),
    ties=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_batch_norm_as_integer_lines(shape, ties, seed):
    """The integer kernel with the fitted lines gives the float32 steps' bytes (every int8 value
    in every channel, so every input the model can give); without ties every draw fits."""
    rng = np.random.default_rng(seed)
    outer, channels, inner = shape
    d = draw_batch_norm(rng, channels, ties)
    fitted = fit(d)
    if fitted is None:
        assert ties, "random float parameters always fit"
        return
    scale, bias, shift = fitted
    x = np.resize(np.arange(-128, 128, dtype=np.int8), shape)
    x = rng.permuted(x, axis=0) if outer > 1 else x
    out = np.zeros_like(x)
    call_qlinear(
        "onnx_batch_norm_affine_s8", BatchNormAffineParams(outer, channels, inner, shift), scale, bias, x, out
    )
    want = ref.batch_norm(x, 1, d["sx"], d["zx"], d["mean"], d["multiplier"], d["offset"], d["sy"], d["zy"])
    np.testing.assert_array_equal(out, want)
