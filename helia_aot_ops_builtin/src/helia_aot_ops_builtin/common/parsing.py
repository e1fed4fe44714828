"""Helpers that turn LiteRT nodes into AIR operators (object API, read through schema_access)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, OpId, TensorId
from helia_aot.converters.litert.schema_access import inputs_of, operator_at, outputs_of
from helia_aot.litert.schema_tables import ActivationFunctionType, Padding


def _reverse(enum_cls: type) -> dict[int, str]:
    return {v: k for k, v in vars(enum_cls).items() if not k.startswith("_") and isinstance(v, int)}


_ACTIVATIONS = _reverse(ActivationFunctionType)
_PADDINGS = _reverse(Padding)


def activation_name(code: int | None) -> str:
    """``ActivationFunctionType`` code -> name (``NONE``, ``RELU``, ``RELU6``, ``TANH``, ...)."""
    return _ACTIVATIONS.get(int(code or 0), f"UNKNOWN_{code}")


def padding_name(code: int | None) -> str:
    """``Padding`` code -> ``SAME`` / ``VALID``."""
    return _PADDINGS.get(int(code or 0), f"UNKNOWN_{code}")


def node_options(subgraph: Any, op_id: int) -> Any:
    """The node's builtin options object (object API), or None."""
    return getattr(operator_at(subgraph, op_id), "builtinOptions", None)


def operator_from_node(
    op_id: int, subgraph: Any, op_type: str, options: AirOperatorOptions | None = None
) -> AirOperator:
    """An AirOperator for node ``op_id`` with its inputs (absent optional ones as "") and outputs."""
    node = operator_at(subgraph, op_id)
    return AirOperator(
        id=OpId(str(op_id)),
        op_type=op_type,
        input_ids=[TensorId(str(t) if t >= 0 else "") for t in inputs_of(node)],
        output_ids=[TensorId(str(t)) for t in outputs_of(node) if t >= 0],
        options=options if options is not None else AirOperatorOptions(),
    )


def simple_parser(
    op_type: str, make_options: Callable[[Any], AirOperatorOptions] | None = None
) -> Callable[[int, Any, Any, AirModel], AirOperator]:
    """A parser for nodes whose options map one-to-one from the builtin options object."""

    def parse(op_id: int, model: Any, subgraph: Any, air_model: AirModel) -> AirOperator:
        del model, air_model
        raw = node_options(subgraph, op_id)
        options = make_options(raw) if make_options else AirOperatorOptions()
        return operator_from_node(op_id, subgraph, op_type, options)

    parse.__name__ = f"parse_{op_type.lower()}"
    parse.__doc__ = f"Parse one LiteRT {op_type} node into one AIR operator."
    return parse
