"""Conversion-time quantization arithmetic, computed exactly as the LiteRT kernels prepare it.

The integer kernels are bit-exact only if the multipliers and shifts they are handed are the ones
LiteRT computes in its Prepare step, so these follow its double-precision steps literally. The
module also holds the one check of a tensor's quantization every built-in operator runs
(:func:`quantization_problems`) and the fused activations the weighted and binary operators
apply.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirTensor

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.libm import logf

F32 = np.float32

FUSED_ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
"""Fused activations the weighted, pooling and binary operators apply. LiteRT's kernels silently
ignore the others (TANH, SIGN_BIT, RELU_0_TO_1), so a model carrying one is refused rather than
guessed at."""

ACTIVATION_RESTRICTION = "The fused activation must be NONE, RELU, RELU6 or RELU_N1_TO_1."


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


def quantized_clamp(activation: str, output: AirTensor) -> tuple[int, int]:
    """``CalculateActivationRangeQuantized`` for the output's type, scale and zero point."""
    return activation_range(activation, output.dtype.numpy, output.scale(), output.zero_point())


def float_clamp(activation: str) -> tuple[float, float]:
    """``CalculateActivationRange`` (float)."""
    return activation_range_float(activation)


def checked_log2(x: float) -> int | None:
    """LiteRT ``CheckedLog2``: the exponent when ``x`` is a power of two (within 1e-3), else None.

    The reference computes ``logf(x) * (1 / logf(2))`` in float32, rounds it half away from zero
    and accepts a fractional part below ``1e-3f``; every step here is that float32 step, with the
    C library's ``logf``. A scale of 0, a negative or a non-finite one is no power of two.
    """
    x_log2 = F32(logf(x) * (F32(1.0) / logf(2.0)))
    if not math.isfinite(float(x_log2)):
        return None
    rounded = F32(round_half_away(float(x_log2)))
    fraction = F32(x_log2 - rounded)
    return int(rounded) if abs(fraction) < F32(1e-3) else None


def quantization_problems(
    tensors: Iterable[AirTensor], *, like: AirTensor | None = None, symmetric_int16: bool = True
) -> list[str]:
    """What keeps a kernel from reading ``tensors``, one sentence per tensor at fault.

    Without ``like``: every int8/int16 tensor must be quantized per tensor with a positive scale,
    and (``symmetric_int16``) an int16 one with zero point 0, as LiteRT's int16 kernels assume.
    With ``like`` (operators that move values without requantizing them): every tensor must have
    ``like``'s element type and quantization, whatever that is.
    """
    problems = []
    for tensor in tensors:
        if like is not None:
            if tensor.dtype != like.dtype:
                problems.append(f"{label(tensor)} is {tensor.dtype} but {label(like)} is {like.dtype}")
            elif tensor.quantization != like.quantization:
                problems.append(f"{label(tensor)} is quantized differently from {label(like)}")
            continue
        if tensor.dtype.numpy not in (np.dtype(np.int8), np.dtype(np.int16)):
            continue
        q = tensor.quantization
        if q is None:
            problems.append(f"{label(tensor)} is {tensor.dtype} without quantization parameters")
        elif q.per_channel:
            problems.append(f"{label(tensor)} is quantized per channel; only per-tensor is supported")
        elif not float(q.scale[0]) > 0.0:
            problems.append(f"{label(tensor)} has a non-positive scale {float(q.scale[0])}")
        elif symmetric_int16 and tensor.dtype.numpy == np.dtype(np.int16) and int(q.zero_point[0]) != 0:
            problems.append(f"{label(tensor)} is int16 with zero point {int(q.zero_point[0])}, not 0")
    return problems
