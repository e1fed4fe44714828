"""Conversion-time scaling of the int8 and int16 SOFTMAX kernels (LiteRT's Prepare arithmetic).

Re-exported by :mod:`helia_aot_ops_builtin.activation.activation_quantization`, which holds the other
activations' parameters and tables; kept apart so a model whose only such operator is an int8
SOFTMAX (most classifiers) does not import the activation tables and their dataclasses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from helia_aot_ops_builtin.common.quantization import quantize_multiplier

F32 = np.float32


# Read field by field into a params struct, never compared or printed: no generated __eq__/__repr__.
@dataclass(slots=True, eq=False, repr=False)
class SoftmaxS8Params:
    """The fixed-point half of ``hk_softmax_s8_params_t``."""

    input_multiplier: int
    input_left_shift: int
    diff_min: int


def softmax_s8_params(beta: float, in_scale: float) -> SoftmaxS8Params:
    """LiteRT ``PreprocessSoftmaxScaling`` and ``CalculateInputRadius`` with 5 integer bits."""
    integer_bits = 5
    real = min(
        float(F32(beta)) * float(F32(in_scale)) * float(1 << (31 - integer_bits)), float((1 << 31) - 1)
    )
    mult, shift = quantize_multiplier(real)
    radius = math.floor(1.0 * ((1 << integer_bits) - 1) * float(1 << (31 - integer_bits)) / float(1 << shift))
    return SoftmaxS8Params(mult, shift, -int(radius))


# Read field by field into a params struct, never compared or printed: no generated __eq__/__repr__.
@dataclass(slots=True, eq=False, repr=False)
class SoftmaxS16Params:
    """The scaling half of ``hk_softmax_s16_params_t``."""

    input_multiplier: int
    input_shift: int


def softmax_s16_params(beta: float, in_scale: float) -> SoftmaxS16Params:
    """LiteRT ``SoftmaxPrepare`` (int16): maps input differences onto the exp table's [-10, 0]."""
    real = float(F32(in_scale) * F32(beta)) / (10.0 / 65535.0)
    mult, shift = quantize_multiplier(real)
    return SoftmaxS16Params(mult, shift)


__all__ = ["SoftmaxS8Params", "SoftmaxS16Params", "softmax_s8_params", "softmax_s16_params"]
