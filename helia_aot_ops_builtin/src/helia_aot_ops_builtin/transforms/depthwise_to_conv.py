"""DEPTHWISE_TO_CONV: a depthwise convolution over one input channel becomes a CONV_2D.

With one input channel, output channel ``m`` of a depthwise convolution filters that channel with
its own kernel, which is exactly a CONV_2D whose filter ``m`` has one input channel. The CONV_2D
kernels have the faster paths for many output channels, so the rewrite pays when there are more
than ``output_channel_threshold`` of them. The arithmetic (products, int32/int64 accumulation,
per-channel requantization) is the same, so the result is bit-exact.
"""

from __future__ import annotations

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirOpType, AirQuantization
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform
from pydantic import BaseModel, ConfigDict, Field

from helia_aot_ops_builtin.conv.conv import AirConv2DOptions, AirDepthwiseConv2DOptions
from helia_aot_ops_builtin.transforms.graph_edits import is_constant, replace_constant


class DepthwiseToConvOptions(BaseModel):
    """``output_channel_threshold``: rewrite only above this many output channels (default 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    output_channel_threshold: int = Field(1, ge=0)


class DepthwiseToConv(AirTransform):
    """Rewrites DEPTHWISE_CONV_2D with one input channel and more output channels than the
    threshold as CONV_2D, its filter [1, H, W, C] re-laid out as [C, H, W, 1]."""

    NAME = "DEPTHWISE_TO_CONV"
    OPTIONS = DepthwiseToConvOptions
    ORDER = 30

    @property
    def threshold(self) -> int:
        return (self.options or DepthwiseToConvOptions()).output_channel_threshold

    def eligible(self, model: AirModel, op: AirOperator) -> bool:
        """One input channel, a constant 4-D filter with more channels than the threshold, and
        types the CONV_2D kernels compute the same way (int16 only with an int64 bias)."""
        options = op.options
        if op.op_type != AirOpType.DEPTHWISE_CONV_2D.value or not isinstance(
            options, AirDepthwiseConv2DOptions
        ):
            return False
        if len(op.input_ids) < 2 or not op.input_ids[0] or not is_constant(model, op.input_ids[1]):
            return False
        source, weights = model.tensors[op.input_ids[0]], model.tensors[op.input_ids[1]]
        if len(source.shape) != 4 or len(weights.shape) != 4 or source.shape[3] != 1 or weights.shape[0] != 1:
            return False
        if options.quantized_bias_type == "INT32" and source.dtype.value == "int16":
            return False
        return int(weights.shape[3]) > self.threshold

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        self.rewrote = False  # tells the Transform stage whether to verify (see helia_aot.pipeline.transform)
        for op in model.operators:
            if self.eligible(model, op):
                self.rewrite(model, op)
                self.rewrote = True
        return model

    @staticmethod
    def rewrite(model: AirModel, op: AirOperator) -> None:
        """Turn ``op`` into a CONV_2D in place: same id and source index, new type and filter."""
        o = op.options
        assert isinstance(o, AirDepthwiseConv2DOptions)
        weights = model.tensors[op.input_ids[1]]
        assert weights.data is not None
        data = np.transpose(np.asarray(weights.data).reshape(weights.shape), (3, 1, 2, 0))
        q = weights.quantization
        quantization = (
            None if q is None else AirQuantization(q.scale, q.zero_point, 0 if q.per_channel else q.axis)
        )
        replace_constant(model, op, 1, data, quantization, "conv")
        op.op_type = AirOpType.CONV_2D.value
        op.options = AirConv2DOptions(
            padding=o.padding,
            stride_h=o.stride_h,
            stride_w=o.stride_w,
            dilation_h=o.dilation_h,
            dilation_w=o.dilation_w,
            activation=o.activation,
            quantized_bias_type=o.quantized_bias_type,
            explicit_padding=o.explicit_padding,
            rewritten_from=AirOpType.DEPTHWISE_CONV_2D.value,
        )
