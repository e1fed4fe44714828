"""A model whose size is one number: a chain of int8 1x1 convolutions, to measure how conversion scales.

Conversion should cost time in proportion to the model. A chain of ``layers`` identical-shape
pointwise convolutions (16x16x8 activations, 8 filters each, own weights and bias per layer) has
exactly ``layers`` operators and ``2 * layers`` constants, so a quadratic step anywhere in the
pipeline (one operator asking about every tensor, say) shows as soon as the chain gets long.
``bench/conversion_time.py`` times it; the linearity test counts work on it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

CHAIN_SHAPE = (1, 16, 16, 8)
"""NHWC of every activation of the chain."""


def conv_chain_model(layers: int, path: Path, *, seed: int = 0) -> Path:
    """Write a chain of ``layers`` int8 1x1 CONV_2D operators (16x16x8 in and out) to ``path``."""
    if layers < 1:
        raise ValueError("a chain needs at least one layer")
    rng = np.random.default_rng(seed)
    channels = CHAIN_SHAPE[-1]
    builder = LiteRTModelBuilder(f"helia-aot conversion-time chain of {layers} 1x1 convolutions")
    act_scale, act_zp = 0.05, -3
    x = builder.add_tensor("x", CHAIN_SHAPE, "int8", quantization=(act_scale, act_zp))
    builder.set_inputs([x])
    options = litert.Conv2DOptionsT()
    options.padding = litert.Padding.VALID
    options.strideW = options.strideH = 1
    options.dilationWFactor = options.dilationHFactor = 1
    for layer in range(layers):
        scales = rng.uniform(0.004, 0.012, channels).astype(np.float32)
        weights = builder.add_tensor(
            f"w{layer}",
            (channels, 1, 1, channels),
            "int8",
            data=rng.integers(-127, 128, (channels, 1, 1, channels)),
            quantization=(scales, np.zeros(channels, np.int64), 0),
        )
        bias = builder.add_tensor(
            f"b{layer}",
            (channels,),
            "int32",
            data=rng.integers(-2000, 2000, channels),
            quantization=(scales * act_scale, np.zeros(channels, np.int64), 0),
        )
        y = builder.add_tensor(f"y{layer}", CHAIN_SHAPE, "int8", quantization=(act_scale, act_zp))
        builder.add_operator("CONV_2D", [x, weights, bias], [y], options)
        x = y
    builder.set_outputs([x])
    return builder.save(path)


__all__ = ["CHAIN_SHAPE", "conv_chain_model"]
