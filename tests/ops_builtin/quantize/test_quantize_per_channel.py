"""Per-channel QUANTIZE (float32 -> int8/int16 with one scale and zero point per index of the
quantized dimension, LiteRT's PerChannelQuantize) against the reference interpreter, exactly.

Every quantized dimension of a rank-3 tensor is tried, with zero points on both types (LiteRT's
per-channel path accepts them on int16 too) and inputs that cross the clamp limits and halfway
points; a per-channel requantization (int8 input) is refused with a typed error.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import AirQuantization
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert.builder import LiteRTModelBuilder

from ops_builtin.activation.test_activation_ops import golden
from ops_builtin.elementwise.test_cast_ops import convert_and_run

SHAPE = (3, 4, 5)


def per_channel(axis: int, dtype: str, rng) -> AirQuantization:
    n = SHAPE[axis]
    scales = rng.uniform(0.005, 0.2, n).astype(np.float32)
    bound = 100 if dtype == "int8" else 3000
    return AirQuantization(scales, rng.integers(-bound, bound, n), axis=axis)


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_per_channel_quantize_matches_reference(dtype, tmp_path):
    rng = np.random.default_rng(5 if dtype == "int8" else 6)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", SHAPE, "float32")
    outputs = []
    for axis in range(len(SHAPE)):
        y = b.add_tensor(f"q{axis}", SHAPE, dtype, quantization=per_channel(axis, dtype, rng))
        b.add_operator("QUANTIZE", [x], [y])
        outputs.append(y)
    b.set_inputs([x])
    b.set_outputs(outputs)
    model = b.save(tmp_path / "m.tflite")
    samples = []
    for spread in (1.0, 30.0, 3000.0):
        value = (rng.standard_normal(SHAPE) * spread).astype(np.float32)
        value.flat[:4] = [0.5 * 0.005, -0.0, 1e9, -1e9]
        samples.append([value])
    convert_and_run(model, golden(model, samples, tmp_path / "g.npz"), tmp_path)


def test_per_channel_requantize_is_refused(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", SHAPE, "int8", quantization=(0.1, 0))
    y = b.add_tensor("y", SHAPE, "int16", quantization=per_channel(1, "int16", np.random.default_rng(0)))
    b.add_operator("QUANTIZE", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    config = {"model": {"path": str(b.save(tmp_path / "m.tflite"))}, "module": {"path": str(tmp_path / "o")}}
    with pytest.raises(UnsupportedModelError, match="per channel"):
        AotConverter(ConvertArgs.model_validate(config)).convert()
