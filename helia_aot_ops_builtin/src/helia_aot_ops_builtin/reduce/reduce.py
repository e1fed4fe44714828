"""MEAN, SUM, REDUCE_PROD, REDUCE_MAX and REDUCE_MIN over constant axes.

:func:`~helia_aot_ops_builtin.elementwise.broadcast_geometry.reduce_geometry` folds the input into kept and
reduced loops (at most four of each); ``hk_reduce`` adds each output's inputs in the order
LiteRT's reference visits them. Quantized MEAN and SUM follow LiteRT's ``QuantizedMeanOrSum``:
an int32 sum, the input zero point removed, then one fixed-point rescale whose multiplier
(``input_scale / output_scale``, for MEAN with ``1 / count`` folded in) is computed here.

LiteRT's reference SUM kernel reads int8/int16 data as uint8 (google-ai-edge/LiteRT issue #4079);
quantized SUM here computes what that kernel intends, which TensorFlow Lite Micro also computes.

int32/int64 SUM, REDUCE_PROD, REDUCE_MAX and REDUCE_MIN are LiteRT's ``ReduceGeneric`` over the
integers (sums and products wrap).

REDUCE_MAX and REDUCE_MIN follow LiteRT's ``ReduceGeneric``: quantized values are compared as
stored, so (as LiteRT checks) the output must carry the input's scale and zero point.
Quantized REDUCE_PROD follows LiteRT's ``QuantizedReduceProd``: the first value minus the zero
point, then each product rescaled at once by ``input_scale / output_scale^(1 / count)`` (so the
int32 accumulator stays in range), and the same rescale once more at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.float16 import FLOAT16_RESTRICTION
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.common.rescale import prod_rescale, reduce_rescale
from helia_aot_ops_builtin.elementwise.broadcast_geometry import (
    REDUCE_MAX_DIMS,
    reduce_geometry,
    reduced_shape,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

SAME_TYPE = "The input and output must have one element type."
_SUFFIX = {
    AirTensorType.FLOAT32: "f32",
    AirTensorType.INT8: "s8",
    AirTensorType.INT16: "s16",
    AirTensorType.INT32: "s32",
    AirTensorType.INT64: "s64",
}
CONSTANT_AXES = "The axes must be a constant int32 tensor."
FOLDED_LOOPS = (
    f"After merging neighbouring dimensions, at most {REDUCE_MAX_DIMS} kept and "
    f"{REDUCE_MAX_DIMS} reduced dimensions may remain."
)
PER_TENSOR = (
    "Quantized tensors must be quantized per tensor with a positive scale; int16 "
    "ones with zero point 0 (as LiteRT requires)."
)


@dataclass(slots=True)
class AirReducerOptions(AirOperatorOptions):
    """Whether reduced dimensions stay in the output shape as 1s."""

    keep_dims: bool = False


def _reducer_options(raw: litert.ReducerOptionsT | None) -> AirReducerOptions:
    return AirReducerOptions(keep_dims=bool(raw.keepDims if raw is not None else False))


parse_mean = simple_parser(AirOpType.MEAN.value, _reducer_options)
parse_sum = simple_parser(AirOpType.SUM.value, _reducer_options)
parse_reduce_max = simple_parser("REDUCE_MAX", _reducer_options)
parse_reduce_min = simple_parser("REDUCE_MIN", _reducer_options)
parse_reduce_prod = simple_parser("REDUCE_PROD", _reducer_options)

SAME_QUANTIZATION = (
    "Quantized input and output must have the same scale and zero point (LiteRT compares the "
    "stored values and checks this)."
)
PROD_RESCALE = (
    "Quantized REDUCE_PROD needs input_scale / output_scale^(1 / count) between 2^-32 and 2^7 "
    "(the range of LiteRT's 64-bit rescale)."
)


class _ReduceOperator(KernelCallOperator):
    KERNELS = ("reduce",)
    SUPPORTED_DTYPES: tuple[type, ...] = (np.int8, np.int16, np.float32)
    RESTRICTIONS: tuple[str, ...] = (
        SAME_TYPE,
        CONSTANT_AXES,
        FOLDED_LOOPS,
        PER_TENSOR,
        "The input must not be empty.",
    )
    MEAN = False

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def axes_tensor(self) -> AirTensor:
        return self.input_tensors[1]

    def reads_input(self, position: int) -> bool:
        return position == 0  # the axes are folded into the walk parameters

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def axes(self) -> tuple[int, ...]:
        """The axes as the model lists them (possibly negative or repeated)."""
        return tuple(int(a) for a in np.asarray(self.axes_tensor.data).reshape(-1))

    def walk_params(self) -> dict[str, Any]:
        """The kept/reduced loop nest every reduce kernel walks (``reduce_params_t`` fields)."""
        g = reduce_geometry(self.source.shape, self.axes())
        return {
            "kept_extents": g.kept_extents,
            "kept_strides": g.kept_strides,
            "reduced_extents": g.reduced_extents,
            "reduced_strides": g.reduced_strides,
            "count": g.count,
        }

    def dtype_violations(self) -> list[str]:
        # The axes are int32 by contract; check() words a run-time axes tensor's refusal.
        if not self.input_tensors or not self.output_tensors:
            return []
        allowed = {np.dtype(t) for t in self.SUPPORTED_DTYPES}
        names = ", ".join(sorted(np.dtype(t).name for t in self.SUPPORTED_DTYPES))
        return [
            f"{role} {label(t)} is {t.dtype}; supported: {names}"
            for role, t in (("input", self.source), ("output", self.target))
            if t.dtype.numpy not in allowed
        ]

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 2 or len(self.output_tensors) != 1:
            return [
                f"expects 2 inputs and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            ]
        src, axes, dst = self.source, self.axes_tensor, self.target
        if src.dtype != dst.dtype:
            return [f"the input is {src.dtype} but the output is {dst.dtype}"]
        if not axes.is_constant or axes.data is None:
            return [f"the axes {label(axes)} are computed at run time; only constant axes are supported"]
        if axes.dtype is not AirTensorType.INT32:
            return [f"the axes {label(axes)} are {axes.dtype}, not int32"]
        if src.size == 0:
            return ["the input is empty"]
        try:
            geometry = reduce_geometry(src.shape, self.axes())
            expected = reduced_shape(src.shape, self.axes(), self.typed_options(AirReducerOptions).keep_dims)
        except ValueError as exc:
            return [str(exc)]
        problems = []
        if tuple(dst.shape) != expected:
            problems.append(f"the output shape {tuple(dst.shape)} is not {expected}")
        elif geometry.outputs != dst.size:
            problems.append(f"the reduction makes {geometry.outputs} outputs, the output holds {dst.size}")
        return problems + quantization_problems((src, dst))

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        params = self.walk_params()
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if src.dtype is AirTensorType.FLOAT32:
            name = "mean" if self.MEAN else "sum"
            return KernelCall(f"reduce_{name}_f32", data, "reduce_params_t", params)
        multiplier, shift = reduce_rescale(src.scale(), dst.scale(), params["count"], self.MEAN)
        params.update(
            input_zero_point=src.zero_point(),
            output_zero_point=dst.zero_point(),
            multiplier=multiplier,
            shift=shift,
        )
        suffix = "s8" if src.dtype is AirTensorType.INT8 else "s16"
        return KernelCall(f"reduce_sum_mean_{suffix}", data, "reduce_params_t", params)


class _ReduceMinMaxOperator(_ReduceOperator):
    """REDUCE_MAX / REDUCE_MIN: stored values compared, the output quantized as the input."""

    SUPPORTED_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.float16, np.float32)
    RESTRICTIONS = (
        SAME_TYPE,
        CONSTANT_AXES,
        FOLDED_LOOPS,
        PER_TENSOR,
        SAME_QUANTIZATION,
        "The input must not be empty.",
        FLOAT16_RESTRICTION,
    )
    REDUCER = "max"

    def kernel_families(self) -> tuple[str, ...]:
        # float16 compares in the ``reduce_f16`` family (``_Float16``), beside MEAN and SUM.
        return ("reduce_f16",) if self.source.dtype is AirTensorType.FLOAT16 else self.KERNELS

    def check(self) -> Iterable[str]:
        problems = list(super().check())
        if problems:
            return problems
        src, dst = self.source, self.target
        if src.dtype in (AirTensorType.INT8, AirTensorType.INT16) and (
            src.scale() != dst.scale() or src.zero_point() != dst.zero_point()
        ):
            problems.append(
                f"the input is quantized with scale {src.scale()} and zero point {src.zero_point()} "
                f"but the output with {dst.scale()} and {dst.zero_point()}; REDUCE_{self.REDUCER.upper()} "
                "needs them equal (requantize with a QUANTIZE after it)"
            )
        return problems

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        params = self.walk_params()
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if src.dtype is AirTensorType.FLOAT16:
            return KernelCall(f"reduce_{self.REDUCER}_f16", data, "reduce_f16_params_t", params)
        return KernelCall(f"reduce_{self.REDUCER}_{_SUFFIX[src.dtype]}", data, "reduce_params_t", params)


class ReduceMaxOperator(_ReduceMinMaxOperator):
    """REDUCE_MAX over constant axes."""

    TYPE = "REDUCE_MAX"


class ReduceMinOperator(_ReduceMinMaxOperator):
    """REDUCE_MIN over constant axes."""

    TYPE = "REDUCE_MIN"
    REDUCER = "min"


class ReduceProdOperator(_ReduceOperator):
    """REDUCE_PROD over constant axes: float32 multiplied from 1, int8/int16 rescaled per product."""

    TYPE = "REDUCE_PROD"
    SUPPORTED_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.float32)
    RESTRICTIONS = (
        SAME_TYPE,
        CONSTANT_AXES,
        FOLDED_LOOPS,
        PER_TENSOR,
        PROD_RESCALE,
        "The input must not be empty.",
    )

    def check(self) -> Iterable[str]:
        problems = list(super().check())
        src, dst = self.source, self.target
        if problems or src.dtype not in (AirTensorType.INT8, AirTensorType.INT16):
            return problems
        count = reduce_geometry(src.shape, self.axes()).count
        _, shift = prod_rescale(src.scale(), dst.scale(), count)
        if not -31 <= shift <= 7:
            problems.append(
                f"the rescale input_scale / output_scale^(1/{count}) has shift {shift}, outside "
                "[-31, 7] (LiteRT's 64-bit rescale); choose an output scale nearer input_scale^count"
            )
        return problems

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        params = self.walk_params()
        data = [self.ptr(src, const=True), self.ptr(dst)]
        if src.dtype not in (AirTensorType.INT8, AirTensorType.INT16):
            return KernelCall(f"reduce_prod_{_SUFFIX[src.dtype]}", data, "reduce_params_t", params)
        multiplier, shift = prod_rescale(src.scale(), dst.scale(), params["count"])
        params.update(
            input_zero_point=src.zero_point(),
            output_zero_point=dst.zero_point(),
            multiplier=multiplier,
            shift=shift,
        )
        suffix = "s8" if src.dtype is AirTensorType.INT8 else "s16"
        return KernelCall(f"reduce_prod_{suffix}", data, "reduce_params_t", params)


class _MeanSumOperator(_ReduceOperator):
    """MEAN and SUM: also float16, through the ``reduce_f16`` family (float accumulation)."""

    SUPPORTED_DTYPES: tuple[type, ...] = (np.int8, np.int16, np.float16, np.float32)
    RESTRICTIONS = _ReduceOperator.RESTRICTIONS + (FLOAT16_RESTRICTION,)

    def kernel_families(self) -> tuple[str, ...]:
        return ("reduce_f16",) if self.source.dtype is AirTensorType.FLOAT16 else self.KERNELS

    def kernel(self) -> KernelCall:
        if self.source.dtype is not AirTensorType.FLOAT16:
            return super().kernel()
        params = self.walk_params()
        data = [self.ptr(self.source, const=True), self.ptr(self.target)]
        name = "mean" if self.MEAN else "sum"
        return KernelCall(f"reduce_{name}_f16", data, "reduce_f16_params_t", params)


class MeanOperator(_MeanSumOperator):
    """MEAN over constant axes."""

    TYPE = AirOpType.MEAN.value
    MEAN = True


class SumOperator(_MeanSumOperator):
    """SUM over constant axes (int32/int64 wrap as LiteRT's ReduceGeneric does)."""

    TYPE = AirOpType.SUM.value
    SUPPORTED_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.float16, np.float32)

    def kernel(self) -> KernelCall:
        src = self.source
        if src.dtype not in (AirTensorType.INT32, AirTensorType.INT64):
            return super().kernel()
        params = self.walk_params()
        data = [self.ptr(src, const=True), self.ptr(self.target)]
        return KernelCall(f"reduce_sum_{_SUFFIX[src.dtype]}", data, "reduce_params_t", params)


REGISTRATIONS = [
    OperatorRecord(AirOpType.MEAN.value, parse_mean, AirReducerOptions, MeanOperator, arity=Arity(2, 2)),
    OperatorRecord(AirOpType.SUM.value, parse_sum, AirReducerOptions, SumOperator, arity=Arity(2, 2)),
    OperatorRecord("REDUCE_MAX", parse_reduce_max, AirReducerOptions, ReduceMaxOperator, arity=Arity(2, 2)),
    OperatorRecord("REDUCE_MIN", parse_reduce_min, AirReducerOptions, ReduceMinOperator, arity=Arity(2, 2)),
    OperatorRecord(
        "REDUCE_PROD", parse_reduce_prod, AirReducerOptions, ReduceProdOperator, arity=Arity(2, 2)
    ),
]
