"""Conversion-time quantization arithmetic, computed exactly as the LiteRT kernels prepare it.

The integer kernels are bit-exact only if the multipliers and shifts they are handed are the ones
LiteRT computes in its Prepare step, so these follow its double-precision steps literally.
"""

from __future__ import annotations

import math

import numpy as np


def round_half_away(x: float) -> int:
    """``std::round``: halves round away from zero (Python's ``round`` rounds to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def quantize_multiplier(real_multiplier: float) -> tuple[int, int]:
    """LiteRT ``QuantizeMultiplier``: ``real = multiplier * 2^(shift - 31)``, multiplier in Q31.

    Returns ``(multiplier, shift)`` with ``shift`` positive for a left shift.
    """
    if not math.isfinite(real_multiplier):
        raise ValueError(
            f"requantization multiplier {real_multiplier} is not finite: the model's "
            "scales (or an activation parameter) are out of range"
        )
    if real_multiplier == 0.0:
        return 0, 0
    q, shift = math.frexp(real_multiplier)
    q_fixed = round_half_away(q * (1 << 31))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        shift = 0
        q_fixed = 0
    return int(q_fixed), int(shift)


def per_channel_multipliers(
    input_scale: float, filter_scales: np.ndarray, output_scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """Multipliers and shifts of a convolution's per-channel requantization (int32 arrays).

    Follows LiteRT ``PopulateConvolutionQuantizationParams``: the effective scale is
    ``double(input_scale) * double(filter_scale) / double(output_scale)`` with float32 scales.
    """
    mults, shifts = [], []
    for fs in np.asarray(filter_scales, dtype=np.float32).reshape(-1):
        effective = float(np.float32(input_scale)) * float(fs) / float(np.float32(output_scale))
        m, s = quantize_multiplier(effective)
        mults.append(m)
        shifts.append(s)
    return np.asarray(mults, dtype=np.int32), np.asarray(shifts, dtype=np.int32)


def activation_range(activation: str, dtype: np.dtype, scale: float, zero_point: int) -> tuple[int, int]:
    """LiteRT ``CalculateActivationRangeQuantized``: the clamp of a fused activation, quantized."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)

    def q(v: float) -> int:
        return zero_point + round_half_away(float(np.float32(v) / np.float32(scale)))

    activation = activation.upper()
    if activation == "RELU":
        lo = max(lo, q(0.0))
    elif activation == "RELU6":
        lo, hi = max(lo, q(0.0)), min(hi, q(6.0))
    elif activation == "RELU_N1_TO_1":
        lo, hi = max(lo, q(-1.0)), min(hi, q(1.0))
    elif activation == "RELU_0_TO_1":
        lo, hi = max(lo, q(0.0)), min(hi, q(1.0))
    elif activation not in ("NONE", ""):
        raise ValueError(f"fused activation {activation} has no quantized range")
    return lo, hi


def activation_range_float(activation: str) -> tuple[float, float]:
    """LiteRT ``CalculateActivationRange`` for float: the clamp of a fused activation."""
    activation = activation.upper()
    inf = float(np.finfo(np.float32).max)
    return {
        "NONE": (-inf, inf),
        "": (-inf, inf),
        "RELU": (0.0, inf),
        "RELU6": (0.0, 6.0),
        "RELU_N1_TO_1": (-1.0, 1.0),
        "RELU_0_TO_1": (0.0, 1.0),
    }[activation]
