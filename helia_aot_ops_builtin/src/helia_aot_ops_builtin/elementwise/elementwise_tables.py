"""The int8 tables of the quantized unary math operators (ABS, SQRT, RSQRT, EXP, LOG).

An int8 unary operator is a function of one byte, so the converter evaluates the LiteRT
reference kernel's arithmetic once per possible input (256 values) and the C kernel only looks
the answer up (``hk_unary_lut_s8``). Each function here repeats its reference kernel's steps
in the same precision: ABS and RSQRT in gemmlowp fixed point (scalar int32 with wrap), SQRT in
float32, EXP and LOG through LiteRT's ``LUTPopulate`` with the C library's ``expf``/``logf``.
Inputs the reference refuses at run time (SQRT of a negative value, RSQRT below the zero point)
have no reference answer; their entries hold what the table's neighbours imply (0 for SQRT,
the int8 maximum for RSQRT, as RSQRT's own zero input gives).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from helia_aot_ops_builtin.common.libm import expf, logf
from helia_aot_ops_builtin.common.quantization import quantize_multiplier, round_half_away

F32 = np.float32
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def _wrap(x: int) -> int:
    return ((x + (1 << 31)) % (1 << 32)) - (1 << 31)


def srdhm(a: int, b: int) -> int:
    """gemmlowp SaturatingRoundingDoublingHighMul (int32)."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    v = ab + nudge
    return v >> 31 if v >= 0 else -((-v) >> 31)


def rdbpot(x: int, exponent: int) -> int:
    """gemmlowp RoundingDivideByPOT: x / 2^exponent, halves away from zero."""
    if exponent <= 0:
        return x
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def mbqm(x: int, multiplier: int, shift: int) -> int:
    """LiteRT MultiplyByQuantizedMultiplier (int32, double rounding)."""
    left, right = max(shift, 0), max(-shift, 0)
    return rdbpot(srdhm(_wrap(x << left), multiplier), right)


def _sat_shift_left(x: int, exponent: int) -> int:
    """gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent."""
    threshold = (1 << (31 - exponent)) - 1
    if x > threshold:
        return INT32_MAX
    if x < -threshold:
        return INT32_MIN
    return _wrap(x << exponent)


def inv_sqrt_multiplier(value: int, reverse_shift: int = -1) -> tuple[int, int]:
    """LiteRT GetInvSqrtQuantizedMultiplierExp: 1/sqrt(value) as (multiplier, shift).

    Five Newton-Raphson steps in gemmlowp FixedPoint<int32, 3>, exactly as the reference."""
    if value <= 1:
        return INT32_MAX, 0
    shift = 11
    while value >= (1 << 29):
        value //= 4
        shift += 1
    clz = 32 - value.bit_length()
    pairs = (clz - 1) // 2 - 1
    shift -= pairs
    value <<= 2 * pairs
    half_input = rdbpot(value >> 1, 1)
    half_three = (1 << 28) + (1 << 27)
    x = 1 << 28
    for _ in range(5):
        x3 = _sat_shift_left(srdhm(srdhm(x, x), x), 6)
        x = _sat_shift_left(_wrap(srdhm(half_three, x) - srdhm(half_input, x3)), 3)
    x = srdhm(x, 1518500250)
    if shift < 0:
        x = _wrap(x << -shift)
        shift = 0
    return x, shift * reverse_shift


def _expf32(value: np.float32) -> np.float32:
    """C ``expf`` of a float32 value."""
    return expf(float(value))


def _clamp8(v: int) -> int:
    return max(-128, min(127, v))


def _table(values: list[int]) -> np.ndarray:
    table = np.zeros(256, dtype=np.int8)
    for q, v in zip(range(-128, 128), values):
        table[q & 0xFF] = v
    return table


def abs_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT AbsEvalQuantized (int8): |q - zp_in|, rescaled only when the float scales differ."""
    rescale = F32(in_scale) != F32(out_scale)
    m, s = quantize_multiplier(float(F32(in_scale) / F32(out_scale))) if rescale else (0, 0)
    out = []
    for q in range(-128, 128):
        value = abs(q - in_zp)
        out.append(_clamp8((mbqm(value, m, s) if rescale else value) + out_zp))
    return _table(out)


def rsqrt_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT RsqrtEvalQuantizedInt8: integer 1/sqrt then one rescale, with a 2^20 carry."""
    scale = 1.0 / float(F32(math.sqrt(float(F32(in_scale)))) * F32(out_scale))
    m, s = quantize_multiplier(scale)
    k_shift = 20
    out = []
    for q in range(-128, 128):
        value = q - in_zp
        if value <= 0:  # 0 is the reference's maximum; below zero the reference stops
            out.append(127)
            continue
        inv_m, inv_s = inv_sqrt_multiplier(value)
        data = mbqm(1, inv_m, inv_s + k_shift)
        out.append(_clamp8(mbqm(data, m, s - k_shift) + out_zp))
    return _table(out)


def sqrt_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT SqrtEvalQuantized (int8): float32 dequantize, sqrt, divide, truncate toward zero."""
    out = []
    for q in range(-128, 128):
        dequantized = F32(in_scale) * F32(q - in_zp)
        if dequantized < 0:  # the reference stops; 0 is the nearest defined result
            out.append(_clamp8(out_zp))
            continue
        root = F32(np.sqrt(dequantized))
        out.append(_clamp8(int(F32(root / F32(out_scale))) + out_zp))
    return _table(out)


def _lut_populate(
    transform: Callable[[np.float32], np.float32], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """LiteRT ``LUTPopulate<int8_t>``: dequantize in float32, transform, scale by the inverse
    output scale, round half away, add the zero point, clamp. A transform that overflows to an
    infinity (EXP of a large input) saturates, as the reference's table does."""
    inverse_scale = F32(1.0) / F32(out_scale)
    out = []
    for q in range(-128, 128):
        dequantized = F32(in_scale) * F32(q - in_zp)
        scaled = F32(F32(transform(dequantized)) * inverse_scale)
        if math.isinf(scaled):
            out.append(127 if scaled > 0 else -128)
            continue
        rescaled = F32(round_half_away(float(scaled)))
        out.append(_clamp8(int(F32(rescaled + F32(out_zp)))))
    return _table(out)


def exp_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT exp Prepare (int8): LUTPopulate with expf."""
    return lut_populate(_expf32, in_scale, in_zp, out_scale, out_zp)


def log_table(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT LogLUTPrepare (int8): LUTPopulate with logf, non-positive inputs at the output
    range's lowest real value."""
    output_min = F32((-128 - out_zp) * F32(out_scale))

    def transform(value: np.float32) -> np.float32:
        return output_min if value <= F32(0.0) else logf(float(value))

    return lut_populate(transform, in_scale, in_zp, out_scale, out_zp)


TABLES = {"ABS": abs_table, "RSQRT": rsqrt_table, "SQRT": sqrt_table, "EXP": exp_table, "LOG": log_table}
"""The int8 table builder of each unary operator with a quantized reference path."""


def _lut_populate_int16(
    transform: Callable[[np.float32], np.float32], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """LiteRT ``LUTPopulate<int16_t>`` (``LUTPopulateInt16<float>``), step for step in float32:
    512 segments over the int16 input range, each anchor biased by half the interpolation error
    at the segment's midpoint, and a closing anchor."""

    def rnd(x: np.float32) -> np.float32:
        if not math.isfinite(float(x)):
            return F32(x)
        return F32(math.copysign(math.floor(abs(float(x)) + 0.5), float(x)))

    def anchor(x: np.float32) -> int:
        # std::min/std::max pass NaN through and the x86 conversion of NaN to int16 gives 0.
        if math.isnan(float(x)):
            return 0
        return int(min(max(float(x), -32768.0), 32767.0))

    in_scale32, out_scale32 = F32(in_scale), F32(out_scale)
    input_min = in_scale32 * F32(-32768 - in_zp)
    input_max = in_scale32 * F32(32767 - in_zp)
    output_min = out_scale32 * F32(-32768 - out_zp)
    output_max = out_scale32 * F32(32767 - out_zp)
    step = F32((input_max - input_min) / F32(512))
    half_step = F32(step / F32(2))
    inverse = F32(F32(65536) / F32(output_max - output_min))
    table = np.zeros(513, dtype=np.int16)
    for i in range(512):
        at = F32(input_min + F32(F32(i) * step))
        value = F32(transform(at))
        mid = F32(transform(F32(at + half_step)))
        after = F32(transform(F32(input_min + F32(F32(i + 1) * step))))
        sample = rnd(F32(value * inverse))
        interpolated = rnd(F32(F32(F32(after * inverse) + rnd(F32(value * inverse))) / F32(2)))
        bias = rnd(F32(F32(interpolated - rnd(F32(mid * inverse))) / F32(2)))
        table[i] = anchor(F32(sample - bias))
    table[512] = anchor(rnd(F32(F32(transform(input_max)) * inverse)))
    return table


def _rsqrt16(out_scale: float) -> Callable[[np.float32], np.float32]:
    def transform(value: np.float32) -> np.float32:
        if value <= F32(0.0):
            return F32(F32(32767) * F32(out_scale))
        return F32(F32(1.0) / F32(np.sqrt(F32(value))))

    return transform


def rsqrt_table_int16(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT RSQRT Prepare (int16): the table of 1/sqrt, non-positive inputs at 32767 * scale."""
    return lut_populate_int16(_rsqrt16(out_scale), in_scale, in_zp, out_scale, out_zp)


def exp_table_int16(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT exp Prepare (int16): the table of expf."""
    return lut_populate_int16(_expf32, in_scale, in_zp, out_scale, out_zp)


def log_table_int16(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """LiteRT LogLUTPrepare (int16): the table of logf, non-positive inputs at the output range's
    lowest real value."""
    output_min = F32(F32(-32768 - out_zp) * F32(out_scale))

    def transform(value: np.float32) -> np.float32:
        return output_min if value <= F32(0.0) else logf(float(value))

    return lut_populate_int16(transform, in_scale, in_zp, out_scale, out_zp)


TABLES_INT16 = {"RSQRT": rsqrt_table_int16, "EXP": exp_table_int16, "LOG": log_table_int16}
"""The int16 (513-anchor) table builder of each unary operator LiteRT tabulates in int16."""


def lut_populate(
    transform: Callable[[np.float32], np.float32], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """:func:`_lut_populate` without numpy's overflow warnings (an infinity is a defined case here)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _lut_populate(transform, in_scale, in_zp, out_scale, out_zp)


def lut_populate_int16(
    transform: Callable[[np.float32], np.float32], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """:func:`_lut_populate_int16` without numpy's overflow warnings (an infinity is a defined case here)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _lut_populate_int16(transform, in_scale, in_zp, out_scale, out_zp)
