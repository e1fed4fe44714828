"""ONNX_REQUANTIZATION: the transform that gives a model asking for onnxruntime's requantization
its ``ONNX_*`` operators (``onnx_requant/onnx_operators.py`` and ``onnx_qlinear.py``).

Kept apart from the operator classes: every conversion imports the built-in transforms, and this
module needs nothing but the AIR, so a LiteRT conversion never loads the operator modules (or the
onnx_requant family) it does not use.
"""

from __future__ import annotations

import numpy as np
from helia_aot.air import AirModel, AirOperator
from helia_aot.errors import InvalidConfigError
from helia_aot.registry import RegistryContext
from helia_aot.transforms import AirTransform

METADATA_KEY = "requantization"
MODES = ("litert", "onnx")
REWRITTEN = (
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "FULLY_CONNECTED",
    "BATCH_MATMUL",
    "ADD",
    "SUB",
    "MUL",
    "AVERAGE_POOL_2D",
    "MEAN",
    "SOFTMAX",
    "QUANTIZE",
)
"""The operators whose requantization differs between the two modes, each run as ``ONNX_<type>``
(SOFTMAX as onnxruntime's QLinearSoftmax, QUANTIZE as QuantizeLinear rounds: half to even)."""


def requantization_mode(model: AirModel) -> str:
    """The model's requantization mode: ``"litert"`` (the default) or ``"onnx"``."""
    mode = model.metadata.get(METADATA_KEY, "litert")
    if mode not in MODES:
        raise InvalidConfigError(
            f"the model's metadata asks for requantization {mode!r}, which is neither 'litert' nor 'onnx'",
            hint="a front end records 'onnx' for onnxruntime's arithmetic or leaves the key out",
        )
    return str(mode)


def _all_int8(model: AirModel, op: AirOperator) -> bool:
    """Every activation tensor int8; constants (weights int8, bias int32) are checked later.
    A QUANTIZE to int8 may read float32 (QuantizeLinear) as well as int8."""
    tensors = [model.tensors[t] for t in (*op.input_ids, *op.output_ids) if t]
    if op.op_type == "QUANTIZE" and tensors and tensors[0].dtype.numpy == np.float32:
        tensors = tensors[1:]
    return all(t.is_constant or t.dtype.numpy == np.int8 for t in tensors)


class OnnxRequantization(AirTransform):
    """ONNX_REQUANTIZATION: in a model whose metadata asks for ``"onnx"``, run its int8
    convolutions, matrix products, ADD, SUB, MUL, average poolings, means, softmaxes and
    quantizations as the ``ONNX_*`` operators (onnxruntime's arithmetic); a model that does not
    ask is left untouched."""

    NAME = "ONNX_REQUANTIZATION"
    OPTIONS = None
    ORDER = 90  # after every rewrite that may still make or fold one of these operators

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel:
        del context
        self.rewrote = False
        if requantization_mode(model) != "onnx":
            return model
        for op in model.operators:
            if op.op_type in REWRITTEN and _all_int8(model, op):
                op.op_type = "ONNX_" + op.op_type
                self.rewrote = True
        return model
