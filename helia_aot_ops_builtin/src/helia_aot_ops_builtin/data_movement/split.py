"""SPLIT, SPLIT_V and UNPACK: one input cut into outputs along one axis.

Viewed as ``[outer, axis, inner]``, each output is one band of the input's middle axis, copied
by one two-dimensional ``hk_strided_copy`` (UNPACK cuts bands of width 1 and drops the axis).
The output shapes are static in the model, so the band widths come from them and are checked
against the options and the size inputs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import band_copies, normalize_axis, product
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    constant_ints,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(slots=True)
class AirSplitOptions(AirOperatorOptions):
    """SPLIT / SPLIT_V's number of outputs."""

    num_splits: int = 0


@dataclass(slots=True)
class AirUnpackOptions(AirOperatorOptions):
    """UNPACK's number of outputs and the axis it removes (may be negative)."""

    num: int = 0
    axis: int = 0


def _split_options(raw: litert.SplitOptionsT | None) -> AirSplitOptions:
    return AirSplitOptions(num_splits=int((raw.numSplits if raw is not None else 0) or 0))


def _unpack_options(raw: litert.UnpackOptionsT | None) -> AirUnpackOptions:
    return AirUnpackOptions(
        num=int((raw.num if raw is not None else 0) or 0), axis=int((raw.axis if raw is not None else 0) or 0)
    )


parse_split = simple_parser(AirOpType.SPLIT.value, _split_options)
parse_split_v = simple_parser(AirOpType.SPLIT_V.value, _split_options)
parse_unpack = simple_parser(AirOpType.UNPACK.value, _unpack_options)


class _CutOperator(CopyPlanOperator):
    """Cuts ``source()`` along ``axis()`` into the outputs, band widths from the output shapes."""

    DATA_POSITION = 0
    KEEPS_AXIS = True

    def source(self) -> AirTensor:
        return self.required_input(self.DATA_POSITION)

    def axis(self) -> int:
        raise NotImplementedError

    def data_tensors(self) -> list[AirTensor]:
        return [self.source(), *self.output_tensors]

    def widths(self) -> list[int]:
        axis = self.axis()
        return [t.shape[axis] if self.KEEPS_AXIS else 1 for t in self.output_tensors]

    def geometry_problems(self) -> Iterable[str]:
        shape = self.source().shape
        try:
            axis = self.axis()
        except ValueError as exc:
            yield str(exc)
            return
        for tensor in self.output_tensors:
            expected = list(shape)
            if self.KEEPS_AXIS:
                expected[axis] = tensor.shape[axis] if len(tensor.shape) == len(shape) else -1
            else:
                del expected[axis]
            if list(tensor.shape) != expected:
                yield (
                    f"output {tensor.source_name or tensor.name!r} of shape {tensor.shape} is "
                    f"not a slice of the input shape {shape} along axis {axis}"
                )
                return
        if sum(self.widths()) != shape[axis]:
            yield f"the outputs add up to {sum(self.widths())} along axis {axis}, the input has {shape[axis]}"
        yield from self.count_problems()

    def count_problems(self) -> Iterable[str]:
        return ()

    def copy_steps(self) -> list[CopyStep]:
        shape = self.source().shape
        axis = self.axis()
        walks = band_copies(
            product(shape[:axis]), product(shape[axis + 1 :]), self.widths(), into_whole=False
        )
        return [CopyStep(self.source(), t, w) for t, w in zip(self.output_tensors, walks)]


class SplitOperator(_CutOperator):
    """SPLIT: inputs (axis, input); equal parts."""

    TYPE = AirOpType.SPLIT.value
    RESTRICTIONS = (SAME_QUANTIZATION, "The axis must be a constant.")
    DATA_POSITION = 1

    def axis(self) -> int:
        (axis,) = constant_ints(self.input_or_none(0), "axis")
        return normalize_axis(axis, len(self.source().shape))

    def count_problems(self) -> Iterable[str]:
        widths = self.widths()
        num = self.typed_options(AirSplitOptions).num_splits
        if num != len(widths) or len(set(widths)) != 1:
            yield f"SPLIT into {num} equal parts does not match the outputs' sizes {widths}"


class SplitVOperator(_CutOperator):
    """SPLIT_V: inputs (input, size_splits, axis); sizes given (one may be -1)."""

    TYPE = AirOpType.SPLIT_V.value
    RESTRICTIONS = (SAME_QUANTIZATION, "The sizes and the axis must be constants.")

    def axis(self) -> int:
        (axis,) = constant_ints(self.input_or_none(2), "axis")
        return normalize_axis(axis, len(self.source().shape))

    def count_problems(self) -> Iterable[str]:
        try:
            sizes = constant_ints(self.input_or_none(1), "size_splits")
        except ValueError as exc:
            yield str(exc)
            return
        widths = self.widths()
        if len(sizes) != len(widths) or any(s not in (-1, w) for s, w in zip(sizes, widths)):
            yield f"size_splits {sizes} does not match the outputs' sizes {widths}"


class UnpackOperator(_CutOperator):
    """UNPACK: one output per index of the axis, which disappears."""

    TYPE = AirOpType.UNPACK.value
    RESTRICTIONS = (SAME_QUANTIZATION,)
    KEEPS_AXIS = False

    def axis(self) -> int:
        return normalize_axis(self.typed_options(AirUnpackOptions).axis, len(self.source().shape))

    def count_problems(self) -> Iterable[str]:
        num = self.typed_options(AirUnpackOptions).num
        if num != len(self.output_tensors):
            yield f"UNPACK of {num} values has {len(self.output_tensors)} outputs"


REGISTRATIONS = [
    OperatorRecord(
        AirOpType.SPLIT.value,
        parse_split,
        AirSplitOptions,
        SplitOperator,
        arity=Arity(2, 2, max_outputs=None),
    ),
    OperatorRecord(
        AirOpType.SPLIT_V.value,
        parse_split_v,
        AirSplitOptions,
        SplitVOperator,
        arity=Arity(3, 3, max_outputs=None),
    ),
    OperatorRecord(
        AirOpType.UNPACK.value,
        parse_unpack,
        AirUnpackOptions,
        UnpackOperator,
        arity=Arity(1, 1, max_outputs=None),
    ),
]
