"""Helpers that turn LiteRT nodes into AIR operators (object API, read through schema_access).

Parsers are typed with the flatc bindings' classes (:mod:`helia_aot.converters.litert.parser_types`),
and so is each options decoder (``_conv_options(raw: litert.Conv2DOptionsT | None)``): the
options table of a node is the one its operator code takes, which Load checked before any parser
runs (``OPTIONS_TABLES`` in :mod:`helia_aot.converters.litert.validate`), so a parser states the
class it reads (:func:`simple_parser`, or a ``cast``) and a type checker checks every field read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, OpId, TensorId
from helia_aot.converters.litert.parser_types import LiteRTParser
from helia_aot.converters.litert.schema_access import inputs_of, operator_at, outputs_of
from helia_aot.litert.schema_tables import ActivationFunctionType, Padding

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_Raw = TypeVar("_Raw")


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


def node_options(subgraph: litert.SubGraphT, op_id: int) -> object:
    """The node's builtin options table (object API), or None; of the class its operator code
    takes (Load refused any other), which the parser states with a ``cast``."""
    return operator_at(subgraph, op_id).builtinOptions


def operator_from_node(
    op_id: int, subgraph: litert.SubGraphT, op_type: str, options: AirOperatorOptions | None = None
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
    op_type: str, make_options: Callable[[_Raw | None], AirOperatorOptions] | None = None
) -> LiteRTParser:
    """A parser for nodes whose options map one-to-one from the builtin options object, decoded by
    ``make_options`` (which is given the node's options table, of the class it declares, or None)."""

    def parse(
        op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
    ) -> AirOperator:
        del model, air_model
        if make_options is None:
            options = AirOperatorOptions()
        else:
            options = make_options(cast("_Raw | None", node_options(subgraph, op_id)))
        return operator_from_node(op_id, subgraph, op_type, options)

    parse.__name__ = f"parse_{op_type.lower()}"
    parse.__doc__ = f"Parse one LiteRT {op_type} node into one AIR operator."
    return parse
