"""CONCATENATION and PACK: inputs laid side by side along one axis.

Viewed as ``[outer, axis, inner]``, each input fills its own band of the output's middle axis, so
each is one two-dimensional ``hk_strided_copy`` (PACK is CONCATENATION of inputs given a new
axis of size 1). Inputs may be constants. LiteRT requires int8 inputs to share the output's
quantization and int16 ones to have zero points of 0; here every quantized input must match the
output exactly, which covers both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import activation_name, simple_parser
from helia_aot_ops_builtin.data_movement.layout import band_copies, normalize_axis, product
from helia_aot_ops_builtin.data_movement.movers import SAME_QUANTIZATION, CopyPlanOperator, CopyStep

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirConcatenationOptions(AirOperatorOptions):
    """CONCATENATION's axis (may be negative) and fused activation (LiteRT allows only NONE)."""

    axis: int = 0
    activation: str = "NONE"


@dataclass(slots=True)
class AirPackOptions(AirOperatorOptions):
    """PACK's input count and the axis of the new dimension (may be negative)."""

    values_count: int = 0
    axis: int = 0


def _concatenation_options(raw: litert.ConcatenationOptionsT | None) -> AirConcatenationOptions:
    return AirConcatenationOptions(
        axis=int((raw.axis if raw is not None else 0) or 0),
        activation=activation_name(raw.fusedActivationFunction if raw is not None else 0),
    )


def _pack_options(raw: litert.PackOptionsT | None) -> AirPackOptions:
    return AirPackOptions(
        values_count=int((raw.valuesCount if raw is not None else 0) or 0),
        axis=int((raw.axis if raw is not None else 0) or 0),
    )


parse_concatenation = simple_parser(AirOpType.CONCATENATION.value, _concatenation_options)
parse_pack = simple_parser(AirOpType.PACK.value, _pack_options)


def _join_steps(
    inputs: list[AirTensor], output: AirTensor, outer: int, inner: int, widths: list[int]
) -> list[CopyStep]:
    walks = band_copies(outer, inner, widths, into_whole=True)
    return [CopyStep(t, output, w) for t, w in zip(inputs, walks)]


class ConcatenationOperator(CopyPlanOperator):
    """CONCATENATION: one band copy per input."""

    TYPE = AirOpType.CONCATENATION.value
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "No fused activation (LiteRT allows none either).",
        "Inputs must match the output in every dimension but the axis.",
    )

    def data_tensors(self) -> list[AirTensor]:
        return [self.output_tensors[0], *self.input_tensors]

    def _axis(self) -> int:
        rank = len(self.output_tensors[0].shape)
        axis = self.typed_options(AirConcatenationOptions).axis
        return 0 if rank == 0 else normalize_axis(axis, rank)

    def geometry_problems(self) -> Iterable[str]:
        options = self.typed_options(AirConcatenationOptions)
        if options.activation != "NONE":
            yield f"fused activation {options.activation} is not supported"
        out_shape = self.output_tensors[0].shape
        try:
            axis = self._axis()
        except ValueError as exc:
            yield str(exc)
            return
        if not out_shape:
            yield "a scalar output cannot be a concatenation"
            return
        total = 0
        for tensor in self.input_tensors:
            shape = tensor.shape or (1,)
            if len(shape) != len(out_shape) or any(
                d != o for k, (d, o) in enumerate(zip(shape, out_shape)) if k != axis
            ):
                yield (
                    f"input {tensor.source_name or tensor.name!r} of shape {tensor.shape} "
                    f"does not fit output shape {out_shape} along axis {axis}"
                )
                return
            total += shape[axis]
        if total != out_shape[axis]:
            yield f"the inputs add up to {total} along axis {axis}, the output has {out_shape[axis]}"

    def copy_steps(self) -> list[CopyStep]:
        output = self.output_tensors[0]
        axis = self._axis()
        shape = output.shape
        widths = [(t.shape or (1,))[axis] for t in self.input_tensors]
        return _join_steps(
            self.input_tensors, output, product(shape[:axis]), product(shape[axis + 1 :]), widths
        )


class PackOperator(CopyPlanOperator):
    """PACK: stacks equally shaped inputs along a new axis."""

    TYPE = AirOpType.PACK.value
    RESTRICTIONS = (SAME_QUANTIZATION, "All inputs must have one shape.")

    def data_tensors(self) -> list[AirTensor]:
        return [self.output_tensors[0], *self.input_tensors]

    def _axis(self) -> int:
        return normalize_axis(self.typed_options(AirPackOptions).axis, len(self.output_tensors[0].shape))

    def geometry_problems(self) -> Iterable[str]:
        inputs = self.input_tensors
        shape = inputs[0].shape
        try:
            axis = self._axis()
        except ValueError as exc:
            yield str(exc)
            return
        expected = shape[:axis] + (len(inputs),) + shape[axis:]
        if any(t.shape != shape for t in inputs):
            yield "the inputs do not all have one shape"
        elif tuple(self.output_tensors[0].shape) != tuple(expected):
            yield f"the output shape {self.output_tensors[0].shape} is not {expected}"

    def copy_steps(self) -> list[CopyStep]:
        inputs = self.input_tensors
        axis = self._axis()
        shape = inputs[0].shape
        return _join_steps(
            inputs, self.output_tensors[0], product(shape[:axis]), product(shape[axis:]), [1] * len(inputs)
        )


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.CONCATENATION.value,
        parse_concatenation,
        AirConcatenationOptions,
        ConcatenationOperator,
        arity=Arity(1, None),
    ),
    OperatorRecord(AirOpType.PACK.value, parse_pack, AirPackOptions, PackOperator, arity=Arity(1, None)),
]
