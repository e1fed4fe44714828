"""AIR: the graph representation a conversion works in (tensors, operators, quantization, keys)."""

from helia_aot.air.graph import (
    AirControlFlowOptions,
    AirModel,
    AirOperator,
    AirOperatorOptions,
    AirRegion,
    AirTensor,
)
from helia_aot.air.keys import canonical_op_key, custom_code_to_op_key
from helia_aot.air.names import c_comment, c_identifier, c_string
from helia_aot.air.regions import RegionLayout, RegionLayoutError, owned_regions, region_layout
from helia_aot.air.types import (
    AirOpType,
    AirQuantization,
    AirTensorKind,
    AirTensorType,
    OpId,
    TensorId,
    pack_int4,
    unpack_int4,
)
from helia_aot.air.verify import verify_model

__all__ = [
    "AirControlFlowOptions",
    "AirModel",
    "AirOpType",
    "AirOperator",
    "AirOperatorOptions",
    "AirQuantization",
    "AirRegion",
    "AirTensor",
    "AirTensorKind",
    "AirTensorType",
    "OpId",
    "RegionLayout",
    "RegionLayoutError",
    "TensorId",
    "c_comment",
    "c_identifier",
    "c_string",
    "canonical_op_key",
    "custom_code_to_op_key",
    "owned_regions",
    "pack_int4",
    "region_layout",
    "unpack_int4",
    "verify_model",
]
