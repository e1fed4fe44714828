"""Conversion-time parameters and tables of the activation and softmax kernels.

LiteRT computes these in the Prepare step of each activation kernel, partly in ``float`` and
partly in ``double``, and its integer kernels are bit-exact only with those exact values. Every
function here repeats the Prepare arithmetic literally: float32 steps go through ``numpy.float32``
and the float transcendental functions through the C library's ``expf``/``tanhf``/``logf`` (the
functions the reference calls), so a lookup table built here equals LiteRT's entry for entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# Re-exported (``X as X``): the softmax scaling lives in softmax_scaling.py, see there why.
from helia_aot_ops_builtin.activation.softmax_scaling import (
    SoftmaxS8Params as SoftmaxS8Params,
)
from helia_aot_ops_builtin.activation.softmax_scaling import (
    SoftmaxS16Params as SoftmaxS16Params,
)
from helia_aot_ops_builtin.activation.softmax_scaling import (
    softmax_s8_params as softmax_s8_params,
)
from helia_aot_ops_builtin.activation.softmax_scaling import (
    softmax_s16_params as softmax_s16_params,
)
from helia_aot_ops_builtin.common.libm import erfcf, expf, expm1f, tanhf
from helia_aot_ops_builtin.common.quantization import (
    activation_range,
    checked_log2,
    quantize_multiplier,
    round_half_away,
)

F32 = np.float32
INT16_RANGE = 65535  # int16 max - int16 min, as LiteRT's int16 tables use it


def logistic_f32(x: np.float32) -> np.float32:
    """The float lambda LiteRT's int8 LOGISTIC table is populated with: 1 / (1 + exp(-x))."""
    return F32(1.0) / (F32(1.0) + expf(-x))


def float_ratio(numerator: float, denominator: float) -> float:
    """``float / float`` evaluated in float32, then widened (how Prepare divides two scales)."""
    return float(F32(numerator) / F32(denominator))


@dataclass(slots=True)
class ReluParams:
    """``hk_relu_params_t``: requantizing clamp of RELU / RELU6 / RELU_N1_TO_1."""

    input_zero_point: int
    output_zero_point: int
    output_multiplier: int
    output_shift: int
    activation_min: int
    activation_max: int


def relu_params(
    activation: str, dtype: np.dtype, in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> ReluParams:
    """LiteRT ``ReluPrepare`` + ``QuantizedReluX``: the multiplier and the quantized clamp."""
    mult, shift = quantize_multiplier(float_ratio(in_scale, out_scale))
    lo, hi = activation_range(activation, dtype, out_scale, out_zp)
    return ReluParams(int(in_zp), int(out_zp), mult, shift, lo, hi)


@dataclass(slots=True)
class LeakyReluParams:
    """``hk_leaky_relu_params_t``."""

    input_zero_point: int
    output_zero_point: int
    identity_multiplier: int
    identity_shift: int
    alpha_multiplier: int
    alpha_shift: int


def leaky_relu_params(
    alpha: float, in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> LeakyReluParams:
    """LiteRT ``LeakyReluPrepare``: both products and ratios are evaluated in float32."""
    with np.errstate(over="ignore"):  # an infinite result is rejected by quantize_multiplier
        alpha_real = float(F32(in_scale) * F32(alpha) / F32(out_scale))
    alpha_mult, alpha_shift = quantize_multiplier(alpha_real)
    id_mult, id_shift = quantize_multiplier(float_ratio(in_scale, out_scale))
    return LeakyReluParams(int(in_zp), int(out_zp), id_mult, id_shift, alpha_mult, alpha_shift)


@dataclass(slots=True)
class PreluQuantParams:
    """The quantization half of ``hk_prelu_params_t``."""

    input_zero_point: int
    alpha_zero_point: int
    output_zero_point: int
    identity_multiplier: int
    identity_shift: int
    alpha_multiplier: int
    alpha_shift: int


def prelu_quant_params(
    in_scale: float, in_zp: int, alpha_scale: float, alpha_zp: int, out_scale: float, out_zp: int
) -> PreluQuantParams:
    """LiteRT ``PreluPrepare``: multipliers for the x >= 0 and the x * alpha branches."""
    id_mult, id_shift = quantize_multiplier(float_ratio(in_scale, out_scale))
    alpha_real = float(F32(in_scale) * F32(alpha_scale) / F32(out_scale))
    alpha_mult, alpha_shift = quantize_multiplier(alpha_real)
    return PreluQuantParams(
        int(in_zp), int(alpha_zp), int(out_zp), id_mult, id_shift, alpha_mult, alpha_shift
    )


def prelu_alpha_strides(out_shape: tuple[int, ...], alpha_shape: tuple[int, ...]) -> list[int]:
    """Element strides of alpha broadcast (numpy rules, right-aligned) onto the output shape."""
    rank = len(out_shape)
    if len(alpha_shape) > rank:
        raise ValueError(f"alpha rank {len(alpha_shape)} exceeds input rank {rank}")
    padded = (1,) * (rank - len(alpha_shape)) + tuple(alpha_shape)
    strides = [0] * rank
    step = 1
    for d in range(rank - 1, -1, -1):
        if padded[d] == out_shape[d] and padded[d] != 1:
            strides[d] = step
        elif padded[d] != 1:
            raise ValueError(f"alpha shape {alpha_shape} does not broadcast to {out_shape}")
        step *= padded[d]
    return strides


def downscale_multiplier_to_int16(multiplier: int) -> int:
    """LiteRT ``DownScaleInt32ToInt16Multiplier``: Q31 -> Q15 with rounding, saturating."""
    if multiplier >= (1 << 31) - 1 - (1 << 15):
        return (1 << 15) - 1
    return (multiplier + (1 << 15)) >> 16


@dataclass(slots=True)
class HardSwishParams:
    """``hk_hard_swish_params_t``."""

    input_zero_point: int
    output_zero_point: int
    reluish_multiplier: int
    reluish_exponent: int
    output_multiplier: int
    output_exponent: int


def hard_swish_params(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> HardSwishParams:
    """LiteRT ``HardSwishPrepare`` (int8), float32 scale arithmetic then 16-bit multipliers."""
    hires_input_scale = F32(1.0 / 128.0) * F32(in_scale)
    reluish_scale = F32(3.0 / 32768.0)
    out_mult, out_exp = quantize_multiplier(float(hires_input_scale / F32(out_scale)))
    rel_mult, rel_exp = quantize_multiplier(float(hires_input_scale / reluish_scale))
    return HardSwishParams(
        int(in_zp),
        int(out_zp),
        downscale_multiplier_to_int16(rel_mult),
        rel_exp,
        downscale_multiplier_to_int16(out_mult),
        out_exp,
    )


def lut_int8(
    transform: Callable[[np.float32], np.float32], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """LiteRT ``LUTPopulate<int8_t>``: a 256-entry table indexed by the input byte as uint8."""
    table = np.zeros(256, dtype=np.int8)
    inverse_scale = F32(1.0) / F32(out_scale)
    for val in range(-128, 128):
        dequantized = F32(in_scale) * F32(val - in_zp)
        rescaled = F32(round_half_away(float(F32(transform(dequantized)) * inverse_scale)))
        quantized = int(rescaled + F32(out_zp))  # float add, then truncation, as in C++
        table[val & 0xFF] = max(-128, min(127, quantized))
    return table


def logistic_lut_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """The int8 LOGISTIC table of LiteRT ``SigmoidPrepare`` (kReference)."""
    return lut_int8(logistic_f32, in_scale, in_zp, out_scale, out_zp)


def tanh_lut_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """The int8 TANH table of LiteRT ``TanhPrepare`` (kReference)."""
    return lut_int8(tanhf, in_scale, in_zp, out_scale, out_zp)


@dataclass(slots=True)
class SigmoidS16Params:
    """``hk_sigmoid_s16_params_t``: int16 LOGISTIC/TANH input rescaling."""

    input_multiplier: int
    input_left_shift: int


def sigmoid_s16_params(op: str, in_scale: float) -> SigmoidS16Params:
    """LiteRT ``SigmoidPrepare`` / ``TanhPrepare`` for int16 (3 input integer bits)."""
    log2 = checked_log2(in_scale)
    left_shift = (15 - 3) + (0 if log2 is None else log2)
    allowed = (0,) if op == "LOGISTIC" else (0, 1)
    if log2 is not None and left_shift in allowed:
        return SigmoidS16Params(0, left_shift)
    # Rescale onto the table's grid, where +-2^17 stands for +-10.7 (3 * 4096 per unit).
    multiplier = float(F32(in_scale)) * 4096.0 * 3.0
    left_shift = 0
    while multiplier <= 32767.0 / 2.0 and left_shift <= 30:
        left_shift += 1
        multiplier *= 2.0
    return SigmoidS16Params(int(multiplier), left_shift)


def is_q15_scale(scale: float) -> bool:
    """LiteRT's int16 LOGISTIC/TANH output check: CheckedLog2(scale) gives exactly -15."""
    return checked_log2(scale) == -15


def lut_int16(
    transform: Callable[[float], float], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """LiteRT ``LUTPopulate<int16_t>`` in double: 512 segments plus an end point, each sample
    biased by half the interpolation error at the segment midpoint."""
    input_min = in_scale * (-32768 - in_zp)
    input_max = in_scale * (32767 - in_zp)
    output_min = out_scale * (-32768 - out_zp)
    output_max = out_scale * (32767 - out_zp)
    steps = 512
    step = (input_max - input_min) / steps
    half_step = step / 2
    scaling_inv = float(INT16_RANGE + 1) / (output_max - output_min)
    table = np.zeros(steps + 1, dtype=np.int16)
    for i in range(steps):
        val = transform(input_min + i * step)
        val_mid = transform(input_min + i * step + half_step)
        val_next = transform(input_min + (i + 1) * step)
        sample = round_half_away(val * scaling_inv)
        midpoint_interp = round_half_away((val_next * scaling_inv + round_half_away(val * scaling_inv)) / 2)
        midpoint = round_half_away(val_mid * scaling_inv)
        bias = round_half_away((midpoint_interp - midpoint) / 2)
        table[i] = min(max(sample - bias, -32768), 32767)
    table[steps] = min(max(round_half_away(transform(input_max) * scaling_inv), -32768), 32767)
    return table


def softmax_exp_lut() -> np.ndarray:
    """exp(x) for x in [-10, 0] on the int16 grid, as LiteRT's int16 SoftmaxPrepare builds it."""
    return lut_int16(math.exp, 10.0 / INT16_RANGE, 32767, 2.0 / INT16_RANGE, 0)


def softmax_one_over_one_plus_x_lut() -> np.ndarray:
    """1 / (1 + x) for x in [0, 1] on the int16 grid (LiteRT int16 SoftmaxPrepare)."""
    return lut_int16(lambda v: 1.0 / (1.0 + v), 1.0 / INT16_RANGE, -32768, 2.0 / INT16_RANGE, 0)


SQRT_HALF = F32(math.sqrt(0.5))
SQRT_TWO_OVER_PI = F32(2.0 / math.sqrt(math.pi) * math.sqrt(0.5))


def gelu_f32(x: np.float32) -> np.float32:
    """LiteRT ``GeluTransform`` in float32: 0.5 x erfc(-x / sqrt(2)), left to right."""
    x = F32(x)
    return F32(F32(0.5) * x) * erfcf(x * -SQRT_HALF)


def gelu_tanh_f32(x: np.float32) -> np.float32:
    """LiteRT ``GeluTransformApproximate`` in float32: 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))."""
    x = F32(x)
    with np.errstate(over="ignore", invalid="ignore"):
        cube = F32(F32(F32(0.044715) * x) * x) * x
        inner = SQRT_TWO_OVER_PI * F32(x + cube)
        return F32(F32(0.5) * x) * F32(F32(1.0) + tanhf(inner))


def elu_f32(x: np.float32) -> np.float32:
    """The float lambda of LiteRT ``EluPrepare``: expm1(x) below zero, x elsewhere."""
    x = F32(x)
    return expm1f(x) if x < F32(0.0) else x


def gelu_lut_int8(
    approximate: bool, in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """The int8 GELU table of LiteRT ``GeluPrepare``."""
    return lut_int8(gelu_tanh_f32 if approximate else gelu_f32, in_scale, in_zp, out_scale, out_zp)


def elu_lut_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """The int8 ELU table of LiteRT ``EluPrepare``."""
    return lut_int8(elu_f32, in_scale, in_zp, out_scale, out_zp)


def lut_int16_f32(
    transform: Callable[[np.float32], np.float32], in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """LiteRT ``LUTPopulate<int16_t>`` with a float transform: the same 512 segments and midpoint
    bias as :func:`lut_int16`, every step evaluated in float32 (the template's FloatT)."""
    with np.errstate(over="ignore", invalid="ignore"):
        input_min = F32(in_scale) * F32(-32768 - in_zp)
        input_max = F32(in_scale) * F32(32767 - in_zp)
        output_min = F32(out_scale) * F32(-32768 - out_zp)
        output_max = F32(out_scale) * F32(32767 - out_zp)
        steps = 512
        step = (input_max - input_min) / F32(steps)
        half_step = step / F32(2)
        scaling_inv = F32(INT16_RANGE + 1) / (output_max - output_min)

        def rnd(v: np.float32) -> np.float32:
            return F32(round_half_away(float(v)))

        table = np.zeros(steps + 1, dtype=np.int16)
        for i in range(steps):
            val = F32(transform(input_min + F32(i) * step))
            val_mid = F32(transform(input_min + F32(i) * step + half_step))
            val_next = F32(transform(input_min + F32(i + 1) * step))
            sample = rnd(val * scaling_inv)
            midpoint_interp = rnd((val_next * scaling_inv + rnd(val * scaling_inv)) / F32(2))
            midpoint = rnd(val_mid * scaling_inv)
            bias = rnd((midpoint_interp - midpoint) / F32(2))
            table[i] = int(min(max(sample - bias, F32(-32768)), F32(32767)))
        table[steps] = int(min(max(rnd(F32(transform(input_max)) * scaling_inv), F32(-32768)), F32(32767)))
    return table


def gelu_lut_int16(
    approximate: bool, in_scale: float, in_zp: int, out_scale: float, out_zp: int
) -> np.ndarray:
    """The int16 GELU table (513 entries, interpolated) of LiteRT's GELU Prepare."""
    return lut_int16_f32(gelu_tanh_f32 if approximate else gelu_f32, in_scale, in_zp, out_scale, out_zp)


@dataclass(slots=True)
class LogSoftmaxS8Params:
    """The fixed-point half of ``hk_log_softmax_s8_params_t``."""

    input_multiplier: int
    input_left_shift: int
    reverse_multiplier: int
    reverse_shift: int
    diff_min: int


def log_softmax_s8_params(in_scale: float) -> LogSoftmaxS8Params:
    """LiteRT ``PreprocessLogSoftmaxScalingExp`` (beta 1, 5 integer bits) and the input radius."""
    p = softmax_s8_params(1.0, in_scale)
    reverse_real = float(1 << (31 - p.input_left_shift)) / float(p.input_multiplier)
    reverse_mult, reverse_shift = quantize_multiplier(reverse_real)
    return LogSoftmaxS8Params(p.input_multiplier, p.input_left_shift, reverse_mult, reverse_shift, p.diff_min)
