"""RESHAPE, SQUEEZE and EXPAND_DIMS: a new shape over the same bytes.

All three keep the element order, so the output is the input's bytes. They declare
``ALIASES_INPUT``; once the PRUNE_IDENTITY_OPS transform (on by default) has made one an alias,
the planner hands the output the input's storage whenever it can, and the emitted run then copies
nothing (``hk_copy_bytes`` returns at once on equal pointers); when the storage differs (the
transform off, a constant input, or both ends being model I/O) the bytes move once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirOperatorOptions, AirOpType
from helia_aot.converters.litert.schema_access import int_list
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.data_movement.movers import ANY_DTYPE, SAME_QUANTIZATION, constant_ints

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirReshapeOptions(AirOperatorOptions):
    """RESHAPE's ``new_shape`` option (informational: the output tensor's shape governs)."""

    new_shape: tuple[int, ...] | None = None


@dataclass(slots=True)
class AirSqueezeOptions(AirOperatorOptions):
    """Dimensions SQUEEZE removes; empty means every dimension of size 1."""

    squeeze_dims: tuple[int, ...] = ()


def _reshape_options(raw: litert.ReshapeOptionsT | None) -> AirReshapeOptions:
    shape = raw.newShape if raw is not None else None
    return AirReshapeOptions(new_shape=tuple(int_list(shape)) if shape is not None else None)


def _squeeze_options(raw: litert.SqueezeOptionsT | None) -> AirSqueezeOptions:
    return AirSqueezeOptions(squeeze_dims=tuple(int_list(raw.squeezeDims if raw is not None else None)))


parse_reshape = simple_parser(AirOpType.RESHAPE.value, _reshape_options)
parse_squeeze = simple_parser(AirOpType.SQUEEZE.value, _squeeze_options)
parse_expand_dims = simple_parser(AirOpType.EXPAND_DIMS.value)


class ReshapeOperator(BuiltinOperator):
    """RESHAPE: the output shares the input's bytes (copied only when the storage differs)."""

    TYPE = AirOpType.RESHAPE.value
    SUPPORTED_DTYPES = ANY_DTYPE
    RESTRICTIONS: tuple[str, ...] = (
        SAME_QUANTIZATION,
        "The output must hold exactly as many elements as the input.",
    )
    KERNELS = ("copy",)
    TEMPLATE = "reshape.c.mako"
    MOVES_DATA_ONLY = True
    ALIASES_INPUT = True

    def shape_problems(self) -> Iterable[str]:
        """Checks of the operator's own shape arguments (overridden per type)."""
        return ()

    def check(self) -> Iterable[str]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        problems = quantization_problems([target], like=source)
        if source.size != target.size:
            problems.append(f"the input has {source.size} elements but the output {target.size}")
        problems.extend(self.shape_problems())
        return problems

    def reads_input(self, position: int) -> bool:
        return position == 0  # the shape operand is folded into the conversion

    def kernel_calls(self) -> dict[str, str]:
        return {"copy": "hk_copy_bytes"}

    def compute_values(self) -> dict[str, Any]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        return {
            "src": f"ctx->tensor_ptrs[{self.tensor_enum(source)}]",
            "dst": f"ctx->tensor_ptrs[{self.tensor_enum(target)}]",
            "nbytes": target.nbytes,
            "status_base": KERNEL_STATUS_BASE,
        }


class SqueezeOperator(ReshapeOperator):
    """SQUEEZE: drops size-1 dimensions; the bytes stay as they are."""

    TYPE = AirOpType.SQUEEZE.value
    RESTRICTIONS = ReshapeOperator.RESTRICTIONS + ("Every squeezed dimension must have size 1.",)

    def shape_problems(self) -> Iterable[str]:
        shape = self.input_tensors[0].shape
        for dim in self.typed_options(AirSqueezeOptions).squeeze_dims:
            if not -len(shape) <= dim < len(shape):
                yield f"squeeze dimension {dim} is out of range for rank {len(shape)}"
            elif shape[dim] != 1:
                yield f"squeeze dimension {dim} has size {shape[dim]}, not 1"


class ExpandDimsOperator(ReshapeOperator):
    """EXPAND_DIMS: inserts a size-1 dimension; the bytes stay as they are."""

    TYPE = AirOpType.EXPAND_DIMS.value
    RESTRICTIONS = ReshapeOperator.RESTRICTIONS + ("The axis must be a constant in [-rank - 1, rank].",)

    def shape_problems(self) -> Iterable[str]:
        rank = len(self.input_tensors[0].shape)
        try:
            (axis,) = constant_ints(self.input_or_none(1), "axis")
        except ValueError as exc:
            yield str(exc)
            return
        if not -rank - 1 <= axis <= rank:
            yield f"axis {axis} is out of range for an input of rank {rank}"


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.RESHAPE.value,
        parse_reshape,
        AirReshapeOptions,
        ReshapeOperator,
        arity=Arity(1, 2, optional=(1,)),
    ),
    OperatorRecord(
        AirOpType.SQUEEZE.value, parse_squeeze, AirSqueezeOptions, SqueezeOperator, arity=Arity(1, 1)
    ),
    OperatorRecord(
        AirOpType.EXPAND_DIMS.value, parse_expand_dims, None, ExpandDimsOperator, arity=Arity(2, 2)
    ),
]
