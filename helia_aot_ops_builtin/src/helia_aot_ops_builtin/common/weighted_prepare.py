"""The Prepare arithmetic of the weighted operators (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
FULLY_CONNECTED, BATCH_MATMUL) and pooling: window geometry, per-channel requantization, the
filter and bias rules, the folded input offset and the int8 convolution's working memory.

Every function follows the Prepare code of the LiteRT kernels (conv.cc, depthwise_conv.cc,
transpose_conv.cc, fully_connected.cc, batch_matmul.cc, pooling.cc): the kernels are bit-exact
only if the padding, multipliers and clamps they receive are the ones LiteRT computes. The fused
activations' clamps are in quantization.py, the one-call operator base in kernel_call.py.
"""

from __future__ import annotations

import numpy as np
from helia_aot.air import AirTensor
from helia_aot.litert.schema_tables import TensorType

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.quantization import per_channel_multipliers, quantize_multiplier

_TENSOR_TYPES = {v: k for k, v in vars(TensorType).items() if not k.startswith("_") and isinstance(v, int)}


# (input, filter, output) element types -> kernel suffix shared by the weighted operators;
# int16 picks s16 or s16_b32 later from the bias type.
KERNEL_SUFFIXES = {
    (np.float32, np.float32, np.float32): "f32",
    (np.float16, np.float16, np.float16): "f16",
    (np.int8, np.int8, np.int8): "s8",
    (np.int16, np.int8, np.int16): "s16",
}


def tensor_type_name(code: int | None) -> str:
    """``TensorType`` code -> name; the options' ``quantized_bias_type`` defaults to FLOAT32."""
    return _TENSOR_TYPES.get(int(code or 0), f"UNKNOWN_{code}")


def window_geometry(
    padding: str, size: int, filter_size: int, stride: int, dilation: int = 1
) -> tuple[int, int]:
    """LiteRT ``ComputePaddingHeightWidth`` on one axis: (output size, leading padding).

    SAME keeps ceil(size / stride) outputs, VALID those whose dilated window fits; the total
    padding is split with the odd element trailing, so the leading pad is its floor half.
    """
    effective = (filter_size - 1) * dilation + 1
    if padding == "SAME":
        out = (size + stride - 1) // stride
    elif padding == "VALID":
        out = (size + stride - effective) // stride
    else:
        raise ValueError(f"padding {padding!r} is neither SAME nor VALID")
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2


def channel_scales(filter_tensor: AirTensor, channels: int) -> np.ndarray:
    """The filter's float32 scales, one per output channel (a per-tensor scale repeated)."""
    scales = np.asarray(filter_tensor.required_quantization().scale, np.float32)
    return np.repeat(scales, channels) if scales.size == 1 else scales


def conv_multipliers(
    source: AirTensor, filter_tensor: AirTensor, target: AirTensor, channels: int
) -> tuple[np.ndarray, np.ndarray]:
    """``PopulateConvolutionQuantizationParams``: per-channel Q31 multipliers and shifts."""
    return per_channel_multipliers(source.scale(), channel_scales(filter_tensor, channels), target.scale())


def product_multiplier(a: AirTensor, b: AirTensor, target: AirTensor) -> tuple[int, int]:
    """``GetQuantizedConvolutionMultipler``: the scale product is taken in float32 first."""
    product = float(np.float32(a.scale()) * np.float32(b.scale()))
    return quantize_multiplier(product / float(np.float32(target.scale())))


def filter_problems(filter_tensor: AirTensor, channels: int, axis: int) -> list[str]:
    """LiteRT's requirements on a per-channel quantized filter: symmetric, one scale per channel."""
    q = filter_tensor.quantization
    if q is None:
        return [f"filter {label(filter_tensor)} is not quantized"]
    problems = []
    if np.any(q.zero_point != 0):
        problems.append(f"filter {label(filter_tensor)} has a nonzero zero point")
    if q.per_channel and (q.scale.size != channels or q.axis != axis):
        problems.append(
            f"filter {label(filter_tensor)} has {q.scale.size} scales on axis {q.axis}; "
            f"expected 1 or {channels} on axis {axis}"
        )
    return problems


def int16_bias_problems(bias: AirTensor | None, bias_type: str, *, int32_allowed: bool = True) -> list[str]:
    """The 16x8 bias rules: int64 by default; int32 only with quantized_bias_type INT32.

    LiteRT picks the accumulator from the option, not from the tensor, and would read an int32
    bias as int64 when the option is unset, so that combination is refused.
    """
    if bias_type not in ("FLOAT32", "INT32", "INT64"):
        return [f"quantized_bias_type {bias_type} is not INT32 or INT64"]
    if bias_type == "INT32" and not int32_allowed:
        return ["quantized_bias_type INT32 is not supported for this operator"]
    if bias is None:
        return []
    wanted = "int32" if bias_type == "INT32" else "int64"
    if str(bias.dtype) != wanted:
        return [
            f"bias {label(bias)} is {bias.dtype}; the int16 kernel needs {wanted} "
            f"(quantized_bias_type {bias_type})"
        ]
    return []


def offset_bias(
    filter_data: np.ndarray, bias: np.ndarray | None, input_offset: int, channel_axis: int, *, pad_to: int = 1
) -> np.ndarray:
    """``bias + input_offset * sum(filter)`` per output channel, wrapped to int32.

    The int8 kernels' fast paths start each accumulator here and then add raw input * filter,
    so the offset is not added once per multiply. Every sum wraps modulo 2^32 as the
    reference's int32 accumulator does, which makes the fold exact even where that overflows.
    ``pad_to`` appends zeros up to a multiple of it (CONV_2D's kernel reads whole vectors of 4).
    """
    weights = np.asarray(filter_data, np.int64)
    axes = tuple(a for a in range(weights.ndim) if a != channel_axis)
    total = weights.sum(axis=axes) * int(input_offset)
    if bias is not None:
        total = total + np.asarray(bias, np.int64).reshape(-1)
    total = np.pad(total, (0, -total.size % pad_to))
    return (((total + (1 << 31)) % (1 << 32)) - (1 << 31)).astype(np.int32)


def conv_s8_scratch_bytes(
    kernel_h: int, kernel_w: int, filter_channels: int, channels: int, output_channels: int
) -> int:
    """``hk_conv_s8_scratch_size``: the int8 CONV_2D fast paths' working memory (0 when grouped).

    Two output pixels' receptive fields as bytes and widened to int16 (the DSP path works on
    pairs of pixels), and a row of int32 accumulators for each; see hk_conv.c.
    """
    if filter_channels != channels:
        return 0
    taps = kernel_h * kernel_w * channels

    def round16(n: int) -> int:
        return (n + 15) & ~15

    return round16(4 * ((taps + 3) & ~3)) + 2 * round16(taps) + 8 * ((output_channels + 3) & ~3)


def c_double(value: float) -> str:
    """A C99 hexadecimal double literal: exact, so C sees the very double Python computed."""
    return float(value).hex()
