"""The MAC and parameter counts the report and the result views give for an operator.

The counts follow the product documentation's definitions, so they are comparable between models
and releases: a count exists only for the operator types the definitions name (plus custom
operators, which define their own through ``AotOperator.macs()`` / ``parameters()``), and every
other LiteRT builtin type has none, even when its lowering does arithmetic.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.litert.schema_tables import BuiltinOperator

if TYPE_CHECKING:  # the operator layer is above this one: annotations only
    from helia_aot.aot.operators.base import AotOperator

# Where the weights and bias of each counted type sit among its inputs (LiteRT positions).
_WEIGHT_POSITIONS: dict[str, tuple[int, ...]] = {
    "CONV_2D": (1, 2),
    "DEPTHWISE_CONV_2D": (1, 2),
    "FULLY_CONNECTED": (1, 2),
    "TRANSPOSE_CONV": (1, 3),
    "BATCH_MATMUL": (0, 1),
    "AVERAGE_POOL_2D": (),
    "MAX_POOL_2D": (),
}
COUNTED_TYPES = frozenset(_WEIGHT_POSITIONS)
"""Builtin operator types with a defined MAC and parameter count."""


@lru_cache(maxsize=1)
def _builtin_names() -> frozenset[str]:
    return frozenset(name for name in vars(BuiltinOperator) if name.isupper())


def weight_positions(op_type: str) -> tuple[int, ...]:
    """The input positions of ``op_type``'s weights and bias (none for a type without a count)."""
    return _WEIGHT_POSITIONS.get(op_type, ())


def has_defined_count(op_type: str) -> bool:
    """Whether ``op_type`` has counts: a type the definitions name, or a custom operator key."""
    return op_type in COUNTED_TYPES or op_type not in _builtin_names()


def operator_macs(aot_op: AotOperator) -> int | None:
    """Multiply-accumulates per inference, a fused activation not counted; None when undefined.

    One per weight for each output row (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED), one per
    weight for each input row (TRANSPOSE_CONV and a CONV_2D rewritten from one), one per output
    element for each element of the contracted dimension (BATCH_MATMUL), 0 for the pools. The
    operator classes implement these through ``macs()``, since only the lowering knows, for
    example, that a CONV_2D came from a TRANSPOSE_CONV.
    """
    if not has_defined_count(aot_op.op.op_type):
        return None
    if aot_op.op.op_type in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        return 0
    value = aot_op.macs()
    return None if value is None else int(value)


def operator_parameters(aot_op: AotOperator) -> int | None:
    """Elements of the constant weights and bias, as the model file holds them; None when undefined.

    Counted from the operator's inputs rather than from what lowering made of them, so repacked or
    folded tables do not change the figure; a weight that a DEQUANTIZE of a constant produces
    counts as that constant. A custom operator's count is its own ``parameters()``.
    """
    op_type = aot_op.op.op_type
    if op_type not in COUNTED_TYPES:
        if not has_defined_count(op_type):
            return None
        value = aot_op.parameters()
        return None if value is None else int(value)
    model: AirModel = aot_op.model
    ids = aot_op.op.input_ids
    return sum(
        _constant_elements(model, ids[p]) for p in _WEIGHT_POSITIONS[op_type] if p < len(ids) and ids[p]
    )


def _constant_elements(model: AirModel, tid: TensorId) -> int:
    tensor = model.tensors[tid]
    if tensor.kind is AirTensorKind.CONSTANT:
        return tensor.size
    producer = next((op for op in model.operators if tid in op.output_ids), None)
    if producer is not None and producer.op_type == "DEQUANTIZE" and producer.input_ids:
        source = model.tensors.get(producer.input_ids[0])
        if source is not None and source.kind is AirTensorKind.CONSTANT:
            return source.size
    return 0


__all__ = ["COUNTED_TYPES", "has_defined_count", "operator_macs", "operator_parameters", "weight_positions"]
