"""TRANSPOSE_REVERSE_CONV: an int8 TRANSPOSE_CONV with stride 1 becomes a CONV_2D.

A stride-1 transposed convolution scatters each input pixel through the filter; written from the
output's side it gathers, for output row ``y``, the input rows ``y + pad - k`` through the filter
mirrored in height and width. That is a CONV_2D with the spatially reversed filter and a leading
pad of ``filter - 1 - pad`` (a trailing pad filling the output size), which the CONV_2D kernels
run with their fast paths. LiteRT's integer TRANSPOSE_CONV and CONV_2D both accumulate
``filter * (input - input_zero_point)`` in int32, add the bias and requantize per output channel
with the same multipliers, and a tap outside the input adds nothing in either, so the result is
bit-exact.

Eligible (the product's rule, observed): int8 activations, a constant filter and more input
channels than ``input_channel_threshold`` (default 16); float and int16 stay TRANSPOSE_CONV. Ours
also needs stride 1 in both axes: a strided transposed convolution gathers from a zero-dilated
input, which no CONV_2D kernel here reads, so it stays a TRANSPOSE_CONV.
"""

from __future__ import annotations

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirOpType, AirTensorType, TensorId
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform
from pydantic import BaseModel, ConfigDict, Field

from helia_aot_ops_builtin.common.weighted_prepare import window_geometry
from helia_aot_ops_builtin.conv.conv import AirConv2DOptions, AirTransposeConvOptions
from helia_aot_ops_builtin.transforms.graph_edits import is_constant, replace_constant

SHAPE, FILTER, INPUT, BIAS = 0, 1, 2, 3  # TRANSPOSE_CONV's operand positions


class TransposeReverseConvOptions(BaseModel):
    """``input_channel_threshold``: rewrite only above this many input channels (default 16)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_channel_threshold: int = Field(16, ge=0)


class TransposeReverseConv(AirTransform):
    """Rewrites eligible TRANSPOSE_CONV as CONV_2D over the mirrored filter."""

    NAME = "TRANSPOSE_REVERSE_CONV"
    OPTIONS = TransposeReverseConvOptions
    ORDER = 50

    @property
    def threshold(self) -> int:
        return (self.options or TransposeReverseConvOptions()).input_channel_threshold

    def padding(self, model: AirModel, op: AirOperator) -> tuple[int, int, int, int] | None:
        """The CONV_2D pads (top, bottom, left, right) standing for ``op``, or None when the
        operator is not eligible (see the module docstring)."""
        o = op.options
        if op.op_type != AirOpType.TRANSPOSE_CONV.value or not isinstance(o, AirTransposeConvOptions):
            return None
        if len(op.input_ids) < 3 or len(op.output_ids) != 1 or not op.input_ids[INPUT]:
            return None
        if (o.stride_h, o.stride_w) != (1, 1) or o.padding not in ("SAME", "VALID"):
            return None
        if not is_constant(model, op.input_ids[FILTER]):
            return None
        source, weights = model.tensors[op.input_ids[INPUT]], model.tensors[op.input_ids[FILTER]]
        target = model.tensors[op.output_ids[0]]
        if any(len(t.shape) != 4 for t in (source, weights, target)):
            return None
        if source.dtype is not AirTensorType.INT8 or int(source.shape[3]) <= self.threshold:
            return None
        _, h, w, _ = source.shape
        _, oh, ow, _ = target.shape
        _, kh, kw, _ = weights.shape
        (ih, pad_t), (iw, pad_l) = (
            window_geometry(o.padding, oh, kh, 1),
            window_geometry(o.padding, ow, kw, 1),
        )
        if (ih, iw) != (h, w):
            return None  # a geometry TRANSPOSE_CONV itself refuses, with its own message
        top, left = kh - 1 - pad_t, kw - 1 - pad_l
        bottom, right = oh - h - top + kh - 1, ow - w - left + kw - 1
        if min(top, bottom, left, right) < 0:
            return None
        return top, bottom, left, right

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        self.rewrote = False  # tells the Transform stage whether to verify (see helia_aot.pipeline.transform)
        for op in model.operators:
            pads = self.padding(model, op)
            if pads is not None:
                self.rewrite(model, op, pads)
                self.rewrote = True
        return model

    @staticmethod
    def rewrite(model: AirModel, op: AirOperator, pads: tuple[int, int, int, int]) -> None:
        """Turn ``op`` into a CONV_2D in place: same id and source index, new type and operands."""
        o = op.options
        assert isinstance(o, AirTransposeConvOptions)
        weights = model.tensors[op.input_ids[FILTER]]
        assert weights.data is not None
        mirrored = np.asarray(weights.data).reshape(weights.shape)[:, ::-1, ::-1, :]
        replace_constant(model, op, FILTER, mirrored, weights.quantization, "reversed")
        shape_id = op.input_ids[SHAPE]
        bias = op.input_ids[BIAS] if len(op.input_ids) > BIAS else TensorId("")
        op.input_ids = [op.input_ids[INPUT], op.input_ids[FILTER], *([bias] if bias else [])]
        if shape_id and not any(shape_id in other.input_ids for other in model.operators):
            if (
                shape_id not in model.inputs
                and shape_id not in model.outputs
                and is_constant(model, shape_id)
            ):
                del model.tensors[shape_id]
        op.op_type = AirOpType.CONV_2D.value
        op.options = AirConv2DOptions(
            padding="VALID",
            activation=o.activation,
            quantized_bias_type=o.quantized_bias_type,
            explicit_padding=pads,
            rewritten_from=AirOpType.TRANSPOSE_CONV.value,
        )
