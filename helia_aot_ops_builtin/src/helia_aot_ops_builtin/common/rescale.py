"""Rescaling constants of the quantized binary, (re)quantize and reduction kernels.

Each function mirrors the Prepare step of the LiteRT kernel named in its docstring, including
which intermediate values are float32 and which are double, since a multiplier one unit off
breaks bit-exactness. Functions raise ValueError where LiteRT's Prepare would refuse the model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from helia_aot_ops_builtin.common.quantization import checked_log2, quantize_multiplier

_F32 = np.float32


def _smaller_than_one(real: float, what: str) -> tuple[int, int]:
    """``QuantizeMultiplierSmallerThanOneExp``, which aborts outside (0, 1)."""
    if not 0.0 < real < 1.0:
        raise ValueError(f"{what} rescale factor {real:.6g} is outside (0, 1)")
    return quantize_multiplier(real)


@dataclass(slots=True)
class BinaryRescale:
    """The integer fields of ``hk_binary_quant_t`` (activation clamp excluded)."""

    input1_offset: int = 0
    input2_offset: int = 0
    output_offset: int = 0
    left_shift: int = 0
    input1_multiplier: int = 0
    input1_shift: int = 0
    input2_multiplier: int = 0
    input2_shift: int = 0
    output_multiplier: int = 0
    output_shift: int = 0
    pot_scale: bool = False


def add_sub_rescale(
    op: str,
    int16: bool,
    scale1: float,
    zp1: int,
    scale2: float,
    zp2: int,
    scale_out: float,
    zp_out: int,
    pot_scale_int16: bool = True,
) -> BinaryRescale:
    """LiteRT add.cc / sub.cc Prepare for int8 and int16 (``op`` is "ADD" or "SUB").

    int16 takes the power-of-two path when the option ``pot_scale_int16`` is set and all three
    scales are powers of two; otherwise the general path with a left shift of 15 (20 for int8).
    """
    if int16 and (zp1, zp2, zp_out) != (0, 0, 0):
        raise ValueError("int16 ADD/SUB needs zero points of 0")
    if int16 and pot_scale_int16:
        log1, log2, log_out = (checked_log2(s) for s in (scale1, scale2, scale_out))
        if log1 is not None and log2 is not None and log_out is not None:
            shift1 = log1 - log_out
            shift2 = log2 - log_out
            if not (shift1 == 0 or shift2 == 0) or shift1 > 0 or shift2 > 0:
                raise ValueError(
                    "int16 power-of-two ADD/SUB needs one input at the output's "
                    "scale and the other at a finer one"
                )
            if min(shift1, shift2) < -15:
                raise ValueError("int16 power-of-two ADD/SUB shifts by more than 15 bits")
            return BinaryRescale(input1_shift=shift1, input2_shift=shift2, pot_scale=True)
    left_shift = 15 if int16 else 20
    # 2 * max(float, float) stays float (exact); the ratios are double.
    twice_max = float(2 * max(_F32(scale1), _F32(scale2)))
    real1 = float(_F32(scale1)) / twice_max
    real2 = float(_F32(scale2)) / twice_max
    real_out = twice_max / float(_F32(1 << left_shift) * _F32(scale_out))
    m1, s1 = _smaller_than_one(real1, "input 1")
    m2, s2 = _smaller_than_one(real2, "input 2")
    if op == "SUB" and real_out > 1.0:
        # sub.cc switches to QuantizeMultiplierGreaterThanOne, whose left shift the reference
        # then feeds to a right-shift-only helper (undefined behaviour): refuse instead.
        raise ValueError(f"output rescale factor {real_out:.6g} exceeds 1")
    mo, so = _smaller_than_one(real_out, "output")
    return BinaryRescale(-zp1, -zp2, zp_out, left_shift, m1, s1, m2, s2, mo, so)


def mul_rescale(
    scale1: float, zp1: int, scale2: float, zp2: int, scale_out: float, zp_out: int
) -> BinaryRescale:
    """LiteRT mul.cc Prepare: ``input1_scale * input2_scale / output_scale`` in float32."""
    real = float(_F32(_F32(scale1) * _F32(scale2)) / _F32(scale_out))
    m, s = quantize_multiplier(real)
    return BinaryRescale(-zp1, -zp2, zp_out, 0, 0, 0, 0, 0, m, s)


def squared_difference_rescale(
    scale1: float, zp1: int, scale2: float, zp2: int, scale_out: float, zp_out: int
) -> BinaryRescale:
    """LiteRT squared_difference.cc Prepare (int8): left shift 7, squared output rescale."""
    left_shift = 7
    twice_max = float(2 * max(_F32(scale1), _F32(scale2)))
    real1 = float(_F32(scale1)) / twice_max
    real2 = float(_F32(scale2)) / twice_max
    real_out = (twice_max * twice_max) / float(_F32(1 << (2 * left_shift)) * _F32(scale_out))
    m1, s1 = _smaller_than_one(real1, "input 1")
    m2, s2 = _smaller_than_one(real2, "input 2")
    mo, so = _smaller_than_one(real_out, "output")
    return BinaryRescale(-zp1, -zp2, zp_out, left_shift, m1, s1, m2, s2, mo, so)


def requantize_rescale(scale_in: float, scale_out: float) -> tuple[int, int]:
    """LiteRT quantize.cc Prepare: QuantizeMultiplier(double(in_scale) / double(out_scale))."""
    return quantize_multiplier(float(_F32(scale_in)) / float(_F32(scale_out)))


def reduce_rescale(scale_in: float, scale_out: float, count: int, mean: bool) -> tuple[int, int]:
    """Multiplier and shift of LiteRT reference QuantizedMeanOrSum.

    Prepare quantizes ``in_scale / out_scale``; for MEAN the kernel then folds ``1 / count``
    into it: the multiplier is scaled up by ``2^shift`` (shift = floor(log2(count)), capped at
    32 and at ``31 + output_shift``) and divided by ``count`` with truncation.
    """
    multiplier, shift = quantize_multiplier(float(_F32(scale_in)) / float(_F32(scale_out)))
    if mean and count > 0:
        extra = min(count.bit_length() - 1, 32, 31 + shift)
        multiplier = (multiplier << extra) // count
        shift -= extra
    return multiplier, shift


def prod_rescale(scale_in: float, scale_out: float, count: int) -> tuple[int, int]:
    """Multiplier and shift of LiteRT's quantized REDUCE_PROD.

    The product of ``count`` values carries ``in_scale^count``; to keep the int32 accumulator in
    range LiteRT rescales after every multiplication by ``in_scale / out_scale^(1 / count)``
    (in double, ``std::pow``), ``count`` times in all.
    """
    real = float(_F32(scale_in)) / math.pow(float(_F32(scale_out)), 1.0 / count)
    return quantize_multiplier(real)
