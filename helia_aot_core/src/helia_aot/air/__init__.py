"""AIR: the graph representation a conversion works in (tensors, operators, quantization, keys)."""

from helia_aot.air.graph import AirModel, AirOperator, AirOperatorOptions, AirTensor
from helia_aot.air.keys import canonical_op_key, custom_code_to_op_key
from helia_aot.air.names import c_comment, c_identifier, c_string
from helia_aot.air.types import (
    AirOpType,
    AirQuantization,
    AirTensorKind,
    AirTensorType,
    OpId,
    TensorId,
)
from helia_aot.air.verify import verify_model

__all__ = [
    "AirModel",
    "AirOpType",
    "AirOperator",
    "AirOperatorOptions",
    "AirQuantization",
    "AirTensor",
    "AirTensorKind",
    "AirTensorType",
    "OpId",
    "TensorId",
    "c_comment",
    "c_identifier",
    "c_string",
    "canonical_op_key",
    "custom_code_to_op_key",
    "verify_model",
]
