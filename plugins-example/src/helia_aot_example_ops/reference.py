"""The numpy reference of EXAMPLE_GAIN_CLIP: what the C kernel must compute, bit for bit.

No interpreter runs a custom operator, so this function is the operator's definition: the model
builder writes golden data with it and the tests compare the generated module against it.
"""

from __future__ import annotations

import numpy as np

INT8_MIN, INT8_MAX = -128, 127
GAIN_MIN, GAIN_MAX = -32768, 32767
SHIFT_MAX = 24


def gain_clip(
    x: np.ndarray,
    *,
    gain: int,
    shift: int,
    clip_min: int = INT8_MIN,
    clip_max: int = INT8_MAX,
    input_zero_point: int = 0,
    output_zero_point: int = 0,
) -> np.ndarray:
    """Saturating int8 gain-and-clip.

    ``y = clamp(round((x - input_zero_point) * gain / 2**shift) + output_zero_point, clip_min,
    clip_max)``, rounding halves away from zero; the result is int8 with ``x``'s shape.
    """
    if not GAIN_MIN <= gain <= GAIN_MAX:
        raise ValueError(f"gain {gain} is outside {GAIN_MIN}..{GAIN_MAX}")
    if not 0 <= shift <= SHIFT_MAX:
        raise ValueError(f"shift {shift} is outside 0..{SHIFT_MAX}")
    if not INT8_MIN <= clip_min <= clip_max <= INT8_MAX:
        raise ValueError(f"clip range {clip_min}..{clip_max} is not inside {INT8_MIN}..{INT8_MAX}")
    product = (np.asarray(x, dtype=np.int64) - input_zero_point) * gain
    half = (1 << (shift - 1)) if shift > 0 else 0
    rounded = np.sign(product) * ((np.abs(product) + half) >> shift)
    return np.clip(rounded + output_zero_point, clip_min, clip_max).astype(np.int8)
