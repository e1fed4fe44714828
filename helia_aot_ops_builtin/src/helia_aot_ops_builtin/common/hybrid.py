"""Hybrid (dynamic-range) quantization: float32 activations with int8 weights.

The TFLite converter's ``Optimize.DEFAULT`` without representative data, and ai-edge-quantizer's
dynamic recipe, keep activations float32 and store the weights of FULLY_CONNECTED (and the other
weighted operators) as int8 with float scales. LiteRT then quantizes each input row at run time
(``hk_hybrid_quant.h``: symmetric, or asymmetric with ``asymmetric_quantize_inputs``), sums int8
products in int32 and scales them back to float32. What the operators share lives here: which
tensors make a hybrid operator, what the weights' quantization must look like, and the constants
the kernels take (per-unit float scales, per-unit weight sums for the asymmetric offset).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from helia_aot.air import AirTensor
from helia_aot.codegen import c_float

from helia_aot_ops_builtin.common.base import label

HYBRID_RESTRICTION = (
    "Hybrid: float32 input and output with constant int8 weights (per tensor, or per unit on "
    "the units axis) and float32 bias; each input row is quantized at run time as LiteRT does "
    "(symmetric, or asymmetric with asymmetric_quantize_inputs). The weights' zero points are "
    "ignored, as LiteRT ignores them."
)

HYBRID_ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}
"""Fused activations LiteRT applies to hybrid float outputs, by ``HK_ACT_F32_*`` code."""


def is_hybrid(source: AirTensor, weights: AirTensor | None, target: AirTensor) -> bool:
    """float32 input and output with int8 weights."""
    return (
        weights is not None
        and source.dtype.numpy == np.float32
        and target.dtype.numpy == np.float32
        and weights.dtype.numpy == np.int8
    )


def hybrid_weight_problems(
    weights: AirTensor, units: int, axis: int, bias: AirTensor | None
) -> Iterator[str]:
    """What stops ``weights`` (and ``bias``) from feeding a hybrid kernel with ``units`` units
    counted along ``axis`` of the weights."""
    if not weights.is_constant:
        yield f"hybrid weights {label(weights)} must be constant"
    q = weights.quantization
    if q is None or q.scale is None or np.asarray(q.scale).size == 0:
        yield f"hybrid weights {label(weights)} are not quantized"
    elif q.per_channel and (np.asarray(q.scale).size != units or q.axis != axis):
        yield f"per-unit weight quantization needs {units} scales on axis {axis}"
    if bias is not None and bias.dtype.numpy != np.float32:
        yield f"bias {label(bias)} must be float32"


def channel_scales(weights: AirTensor) -> list[str] | None:
    """The weights' per-unit scales as float32 C literals, or None when per tensor."""
    q = weights.quantization
    if q is None or not q.per_channel:
        return None
    return [c_float(float(s)) for s in np.asarray(q.scale, np.float32)]


def filter_scale(weights: AirTensor) -> str:
    """The weights' single scale as a float32 C literal (1 when per unit: the table holds them)."""
    q = weights.quantization
    if q is None or q.per_channel:
        return c_float(1.0)
    return c_float(float(np.float32(np.asarray(q.scale).reshape(-1)[0])))


def row_sums(weights: np.ndarray, axis: int) -> np.ndarray:
    """Per unit (along ``axis``), the int32 sum of the unit's int8 weights: what the asymmetric
    row offset multiplies (the reference's ``row_sums``)."""
    data = np.moveaxis(np.asarray(weights, np.int64), axis, 0)
    sums: np.ndarray = data.reshape(data.shape[0], -1).sum(axis=1).astype(np.int32)
    return sums
