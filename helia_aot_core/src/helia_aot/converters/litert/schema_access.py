"""Safe reads of the LiteRT object API (``helia_aot.litert.objects``, ``schema_py_generated``).

The generated object API leaves an absent vector as ``None`` and a present numeric one as a numpy
array, and Python would happily read ``tensors[-1]``. A model file is untrusted input, so parsers
read nodes only through these helpers: every index is checked against its table, a bad one raises
:class:`~helia_aot.errors.ModelLoadError` naming the table and the index, and vectors come back as
plain lists of Python ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from helia_aot.air.keys import custom_code_to_op_key
from helia_aot.converters.litert.file_bytes import file_slice
from helia_aot.errors import ModelLoadError, UnsupportedModelError
from helia_aot.litert.schema_tables import BuiltinOperator, TensorType

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_MALFORMED_HINT = "the model file is malformed; re-export it with the LiteRT converter"

_Item = TypeVar("_Item")

BUILTIN_NAMES: dict[int, str] = {
    value: name
    for name, value in vars(BuiltinOperator).items()
    if not name.startswith("_") and isinstance(value, int)
}
"""LiteRT builtin operator code -> its schema name (``9`` -> ``"FULLY_CONNECTED"``)."""

TENSOR_TYPE_NAMES: dict[int, str] = {
    value: name
    for name, value in vars(TensorType).items()
    if not name.startswith("_") and isinstance(value, int)
}
"""LiteRT tensor type code -> its schema name (``9`` -> ``"INT8"``)."""


def _text(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def int_list(vector: Any) -> list[int]:
    """A vector field (``None``, a list, or a numpy array) as a list of Python ints."""
    if vector is None:
        return []
    return [int(v) for v in vector]


def _at(items: Sequence[_Item] | None, index: int, what: str) -> _Item:
    """``items[index]`` with a ModelLoadError naming ``what`` when the index is out of range."""
    count = 0 if items is None else len(items)
    try:
        index = int(index)
    except (TypeError, ValueError):
        raise ModelLoadError(f"{what} index {index!r} is not an integer", hint=_MALFORMED_HINT) from None
    if items is None or not 0 <= index < count:
        raise ModelLoadError(
            f"{what} index {index} is out of range: the table has {count} entries",
            hint=_MALFORMED_HINT,
            details={"table": what, "index": index, "count": count},
        )
    return items[index]


# -- model level ---------------------------------------------------------------------------------


def subgraphs_of(model: litert.ModelT) -> list[litert.SubGraphT]:
    return list(model.subgraphs or [])


def subgraph_at(model: litert.ModelT, index: int) -> litert.SubGraphT:
    return _at(model.subgraphs, index, "Model.subgraphs")


def buffer_at(model: litert.ModelT, index: int) -> litert.BufferT:
    return _at(model.buffers, index, "Model.buffers")


def opcode_at(model: litert.ModelT, index: int) -> litert.OperatorCodeT:
    return _at(model.operatorCodes, index, "Model.operatorCodes")


def description_of(model: litert.ModelT) -> str:
    """The model's description text (may hold anything: sanitize before emitting)."""
    return _text(model.description) or ""


# -- subgraph level ------------------------------------------------------------------------------


def tensors_of(subgraph: litert.SubGraphT) -> list[litert.TensorT]:
    return list(subgraph.tensors or [])


def operators_of(subgraph: litert.SubGraphT) -> list[litert.OperatorT]:
    return list(subgraph.operators or [])


def tensor_at(subgraph: litert.SubGraphT, index: int) -> litert.TensorT:
    return _at(subgraph.tensors, index, "SubGraph.tensors")


def operator_at(subgraph: litert.SubGraphT, index: int) -> litert.OperatorT:
    return _at(subgraph.operators, index, "SubGraph.operators")


def subgraph_inputs(subgraph: litert.SubGraphT) -> list[int]:
    return int_list(subgraph.inputs)


def subgraph_outputs(subgraph: litert.SubGraphT) -> list[int]:
    return int_list(subgraph.outputs)


# -- operator level ------------------------------------------------------------------------------


def inputs_of(op: litert.OperatorT) -> list[int]:
    """Input tensor indices; ``-1`` marks an absent optional input and keeps its position."""
    return int_list(op.inputs)


def outputs_of(op: litert.OperatorT) -> list[int]:
    return int_list(op.outputs)


def intermediates_of(op: litert.OperatorT) -> list[int]:
    return int_list(op.intermediates)


def tensor_id(index: int) -> str:
    """The AIR tensor id of a LiteRT tensor index: the index as text, ``""`` for ``-1``."""
    index = int(index)
    if index < -1:
        raise ModelLoadError(f"tensor index {index} is negative", hint=_MALFORMED_HINT)
    return "" if index == -1 else str(index)


def input_ids_of(op: litert.OperatorT) -> list[str]:
    """The operator's inputs as AIR tensor ids, an absent optional input as ``""``."""
    return [tensor_id(i) for i in inputs_of(op)]


def output_ids_of(op: litert.OperatorT) -> list[str]:
    return [tensor_id(i) for i in outputs_of(op)]


def input_tensor(subgraph: litert.SubGraphT, op: litert.OperatorT, position: int) -> litert.TensorT | None:
    """The tensor at input ``position``, or None when the input is absent (-1 or past the end)."""
    indices = inputs_of(op)
    if not 0 <= position < len(indices) or indices[position] == -1:
        return None
    return tensor_at(subgraph, indices[position])


def output_tensor(subgraph: litert.SubGraphT, op: litert.OperatorT, position: int) -> litert.TensorT:
    return tensor_at(subgraph, _at(outputs_of(op), position, "Operator.outputs"))


def opcode_of(model: litert.ModelT, op: litert.OperatorT) -> litert.OperatorCodeT:
    return opcode_at(model, op.opcodeIndex)


def builtin_code_of(opcode: litert.OperatorCodeT) -> int:
    """The builtin code: the larger of the old byte field and the newer int32 field.

    Older files set only ``deprecatedBuiltinCode``; newer ones write both, with the byte field
    saturated at ``PLACEHOLDER_FOR_GREATER_OP_CODES`` for codes that do not fit.
    """
    return max(int(opcode.deprecatedBuiltinCode or 0), int(opcode.builtinCode or 0))


def builtin_name(code: int) -> str:
    """The schema name of builtin ``code``; a code this schema does not know gives ``BUILTIN_<n>``."""
    return BUILTIN_NAMES.get(int(code), f"BUILTIN_{int(code)}")


def is_known_builtin(key: str) -> bool:
    """Whether ``key`` names a builtin operator of the LiteRT schema (other than CUSTOM)."""
    return key in _BUILTIN_KEYS


_BUILTIN_KEYS = frozenset(name for code, name in BUILTIN_NAMES.items() if code != BuiltinOperator.CUSTOM)


def custom_code_of(opcode: litert.OperatorCodeT) -> str | None:
    return _text(opcode.customCode)


def op_key(model: litert.ModelT, op: litert.OperatorT) -> str:
    """The canonical registry key of ``op``: its builtin name or its custom code's key."""
    opcode = opcode_of(model, op)
    code = builtin_code_of(opcode)
    if code != BuiltinOperator.CUSTOM:
        return builtin_name(code)
    raw = opcode.customCode
    if raw is None or len(raw) == 0:
        raise ModelLoadError(
            f"operator code {op.opcodeIndex} is CUSTOM but has no custom code",
            hint=_MALFORMED_HINT,
        )
    # The raw bytes, so a code that is not UTF-8 is refused by the key rules, not decoded lossily.
    key = custom_code_to_op_key(raw if isinstance(raw, (bytes, bytearray)) else str(raw))
    custom = custom_code_of(opcode)
    if key in _BUILTIN_KEYS:
        # Dispatching it would run the builtin's parser on a node the LiteRT runtime treats as an
        # unrelated custom operator.
        raise UnsupportedModelError(
            f"custom operator {custom!r} (operator code {op.opcodeIndex}) has the key {key}, which "
            "belongs to the builtin operator of that name",
            hint="rename the custom operator in the model",
        )
    return key


def builtin_options_of(op: litert.OperatorT, expected: type | None = None) -> Any:
    """The operator's builtin options object (from either options union), or None.

    With ``expected`` (an options class such as ``litert.Conv2DOptionsT``), options of another
    table are a ModelLoadError; absent options stay None so a parser can apply the defaults. The
    class is compared by name, so the bindings' class and :mod:`helia_aot.litert.objects`' class
    of the same table (what ``read_model`` makes) both match.
    """
    options = op.builtinOptions if op.builtinOptions is not None else op.builtinOptions2
    if expected is not None and options is not None and type(options).__name__ != expected.__name__:
        raise ModelLoadError(
            f"operator carries {type(options).__name__} where {expected.__name__} was expected",
            hint=_MALFORMED_HINT,
        )
    return options


def custom_options_of(op: litert.OperatorT, model: litert.ModelT | None = None) -> bytes:
    """The custom options bytes (empty when absent).

    Models over 2 GB keep custom options after the flatbuffer; reading those needs ``model`` as
    returned by :func:`helia_aot.converters.litert.reader.read_model`, which keeps the file bytes.
    """
    offset = int(op.largeCustomOptionsOffset or 0)
    if offset > 1:
        if model is None:
            raise ModelLoadError(
                "custom options stored after the flatbuffer need the model",
                hint="pass the model to custom_options_of",
            )
        return bytes(
            file_slice(model, offset, int(op.largeCustomOptionsSize or 0), "custom options of an operator")
        )
    if op.customOptions is None:
        return b""
    if isinstance(op.customOptions, (bytes, bytearray)):
        return bytes(op.customOptions)
    return bytes(np.asarray(op.customOptions, dtype=np.uint8).tobytes())


# -- tensor level --------------------------------------------------------------------------------


def name_of(tensor: litert.TensorT) -> str:
    """The tensor's name as text (may hold anything: sanitize before emitting)."""
    return _text(tensor.name) or ""


def shape_of(tensor: litert.TensorT) -> tuple[int, ...]:
    """The tensor's ``shape`` as stored (may hold -1 for a dynamic dimension); () for a scalar."""
    return tuple(int_list(tensor.shape))


def shape_signature_of(tensor: litert.TensorT) -> tuple[int, ...] | None:
    """The ``shape_signature`` (-1 marks a dimension left dynamic), or None when absent."""
    return None if tensor.shapeSignature is None else tuple(int_list(tensor.shapeSignature))


def tensor_type_name(type_code: int) -> str:
    return TENSOR_TYPE_NAMES.get(int(type_code), f"TYPE_{int(type_code)}")


__all__ = [
    "BUILTIN_NAMES",
    "TENSOR_TYPE_NAMES",
    "buffer_at",
    "builtin_code_of",
    "builtin_name",
    "builtin_options_of",
    "custom_code_of",
    "custom_options_of",
    "description_of",
    "input_ids_of",
    "input_tensor",
    "inputs_of",
    "int_list",
    "intermediates_of",
    "is_known_builtin",
    "name_of",
    "op_key",
    "opcode_at",
    "opcode_of",
    "operator_at",
    "operators_of",
    "output_ids_of",
    "output_tensor",
    "outputs_of",
    "shape_of",
    "shape_signature_of",
    "subgraph_at",
    "subgraph_inputs",
    "subgraph_outputs",
    "subgraphs_of",
    "tensor_at",
    "tensor_id",
    "tensor_type_name",
    "tensors_of",
]
