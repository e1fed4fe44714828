"""DYNAMIC_UPDATE_SLICE and REVERSE_SEQUENCE: copies placed by positions read at run time.

DYNAMIC_UPDATE_SLICE writes the update into a copy of the operand at start indices that LiteRT
clamps into range (XLA semantics: a start past the edge moves the update back inside, never an
error). REVERSE_SEQUENCE reverses, per batch entry, the first ``seq_lengths[b]`` entries along
the sequence dimension; a length outside [0, that dimension] fails the run with the output
untouched (LiteRT checks only the first length and reads out of bounds for the others), and
constant lengths are checked at Resolve. Both are ``hk_index`` kernels built on the strided copy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensor, AirTensorType
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.data_movement.layout import StridedCopy, contiguous_strides, embed_copy
from helia_aot_ops_builtin.data_movement.movers import ANY_DTYPE, SAME_QUANTIZATION, CopyStep
from helia_aot_ops_builtin.index.index_geometry import (
    INDEX_SIZES,
    MAX_RANK,
    ConstantIndexPlan,
    constant_values,
    tensor_ptr,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

LONG_INDICES = (AirTensorType.INT32, AirTensorType.INT64)
RANK_LIMIT = f"Tensors may have at most {MAX_RANK} dimensions."

parse_dynamic_update_slice = simple_parser("DYNAMIC_UPDATE_SLICE")


@dataclass(slots=True)
class AirReverseSequenceOptions(AirOperatorOptions):
    """The dimension reversed (``seq_dim``) and the one indexing ``seq_lengths`` (``batch_dim``)."""

    seq_dim: int = 0
    batch_dim: int = 0


def _reverse_sequence_options(raw: litert.ReverseSequenceOptionsT | None) -> AirReverseSequenceOptions:
    return AirReverseSequenceOptions(
        seq_dim=int((raw.seqDim if raw is not None else 0) or 0),
        batch_dim=int((raw.batchDim if raw is not None else 0) or 0),
    )


parse_reverse_sequence = simple_parser("REVERSE_SEQUENCE", _reverse_sequence_options)


def _padded(values: list[int]) -> list[int]:
    return values + [0] * (MAX_RANK - len(values))


def _whole(source: AirTensor, target: AirTensor) -> CopyStep:
    """One copy of every element of ``source`` into ``target`` (same size)."""
    return CopyStep(source, target, StridedCopy((int(source.size),), (1,), (1,)))


class DynamicUpdateSliceOperator(ConstantIndexPlan, KernelCallOperator):
    """DYNAMIC_UPDATE_SLICE through ``hk_dynamic_update_slice`` (clamped start indices), or for
    constant starts two strided copies: the operand, then the update at the clamped starts."""

    TYPE = "DYNAMIC_UPDATE_SLICE"
    KERNELS = ("index",)
    SUPPORTED_DTYPES = ANY_DTYPE
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "The update must have the operand's rank and no dimension larger than the operand's.",
        "Start indices must be a 1-D int32 or int64 tensor with one value per operand dimension.",
        RANK_LIMIT,
    )
    MOVES_DATA_ONLY = True

    def check(self) -> Iterable[str]:
        operand, update, starts = self.input_tensors[:3]
        target = self.output_tensors[0]
        problems = quantization_problems([update, target], like=operand)
        rank = len(operand.shape)
        if not 1 <= rank <= MAX_RANK:
            problems.append(f"the operand has {rank} dimensions; supported: 1 to {MAX_RANK}")
        if len(update.shape) != rank or any(u > o for u, o in zip(update.shape, operand.shape)):
            problems.append(f"the update {list(update.shape)} does not fit the operand {list(operand.shape)}")
        if starts.dtype not in LONG_INDICES or tuple(starts.shape) != (rank,):
            problems.append(
                f"start indices {label(starts)} are {starts.dtype} {list(starts.shape)}, "
                f"not int32/int64 [{rank}]"
            )
        if tuple(target.shape) != tuple(operand.shape):
            problems.append(f"the output shape {list(target.shape)} is not the operand's")
        return problems

    def constant_plan(self) -> list[CopyStep] | None:
        operand, update, starts = self.input_tensors[:3]
        target = self.output_tensors[0]
        values = constant_values(starts)
        if values is None:
            return None
        if operand.size == update.size:
            return [_whole(update, target)]
        clamped = [
            min(max(0, int(s)), int(n) - int(u)) for s, n, u in zip(values, operand.shape, update.shape)
        ]
        return [
            _whole(operand, target),
            CopyStep(update, target, embed_copy(update.shape, operand.shape, clamped)),
        ]

    def kernel(self) -> KernelCall:
        operand, update, starts = self.input_tensors[:3]
        target = self.output_tensors[0]
        return KernelCall(
            "dynamic_update_slice",
            [tensor_ptr(self, t) for t in (operand, update, starts, target)],
            "update_slice_params_t",
            {
                "rank": len(operand.shape),
                "elem_size": operand.dtype.itemsize,
                "index_size": INDEX_SIZES[starts.dtype],
                "operand_dims": _padded([int(d) for d in operand.shape]),
                "update_dims": _padded([int(d) for d in update.shape]),
            },
        )


class ReverseSequenceOperator(ConstantIndexPlan, KernelCallOperator):
    """REVERSE_SEQUENCE through ``hk_reverse_sequence``, or for constant lengths strided copies:
    the input, then each batch entry's reversed prefix walked backwards."""

    TYPE = "REVERSE_SEQUENCE"
    KERNELS = ("index",)
    SUPPORTED_DTYPES = (np.uint8, np.int16, np.int32, np.int64, np.float32)
    RESTRICTIONS = (
        "The input must be float32, uint8, int16, int32 or int64 (LiteRT's REVERSE_SEQUENCE "
        "types), the output of the same type, shape and quantization.",
        "seq_lengths must be a 1-D int32 or int64 tensor with one length per batch entry; "
        "constant lengths must lie in [0, size of seq_dim].",
        "seq_dim and batch_dim must be two different dimensions of the input.",
        RANK_LIMIT,
    )
    MOVES_DATA_ONLY = True

    def check(self) -> Iterable[str]:
        source, lengths = self.input_tensors[:2]
        target = self.output_tensors[0]
        options = self.typed_options(AirReverseSequenceOptions)
        problems = quantization_problems([target], like=source)
        rank = len(source.shape)
        if not 2 <= rank <= MAX_RANK:
            problems.append(f"the input has {rank} dimensions; supported: 2 to {MAX_RANK}")
        seq, batch = options.seq_dim, options.batch_dim
        if not (0 <= seq < rank and 0 <= batch < rank and seq != batch):
            return problems + [f"seq_dim {seq} and batch_dim {batch} are not two dimensions of rank {rank}"]
        if tuple(target.shape) != tuple(source.shape):
            problems.append(f"the output shape {list(target.shape)} is not the input's")
        if lengths.dtype not in LONG_INDICES or tuple(lengths.shape) != (int(source.shape[batch]),):
            problems.append(
                f"seq_lengths {label(lengths)} are {lengths.dtype} {list(lengths.shape)}, not "
                f"int32/int64 [{int(source.shape[batch])}]"
            )
        values = constant_values(lengths)
        if values is not None and ((values < 0).any() or (values > int(source.shape[seq])).any()):
            problems.append(f"seq_lengths {values.tolist()} fall outside [0, {int(source.shape[seq])}]")
        return problems

    def constant_plan(self) -> list[CopyStep] | None:
        source, lengths = self.input_tensors[:2]
        target = self.output_tensors[0]
        values = constant_values(lengths)
        if values is None:
            return None
        options = self.typed_options(AirReverseSequenceOptions)
        shape = [int(d) for d in source.shape]
        strides = contiguous_strides(shape)
        seq, batch = options.seq_dim, options.batch_dim
        steps = [_whole(source, target)]
        for b, length in enumerate(int(v) for v in values):
            if length < 2:
                continue
            counts = list(shape)
            counts[batch], counts[seq] = 1, length
            src = list(strides)
            src[seq] = -strides[seq]
            walk = StridedCopy(
                tuple(counts),
                tuple(src),
                tuple(strides),
                src_offset=b * strides[batch] + (length - 1) * strides[seq],
                dst_offset=b * strides[batch],
            )
            steps.append(CopyStep(source, target, walk.simplified()))
        return steps

    def kernel(self) -> KernelCall:
        source, lengths = self.input_tensors[:2]
        options = self.typed_options(AirReverseSequenceOptions)
        return KernelCall(
            "reverse_sequence",
            [tensor_ptr(self, t) for t in (source, lengths, self.output_tensors[0])],
            "reverse_sequence_params_t",
            {
                "rank": len(source.shape),
                "elem_size": source.dtype.itemsize,
                "index_size": INDEX_SIZES[lengths.dtype],
                "seq_dim": options.seq_dim,
                "batch_dim": options.batch_dim,
                "dims": _padded([int(d) for d in source.shape]),
            },
        )


REGISTRATIONS = [
    OperatorRecord("DYNAMIC_UPDATE_SLICE", parse_dynamic_update_slice, None, DynamicUpdateSliceOperator),
    OperatorRecord(
        "REVERSE_SEQUENCE",
        parse_reverse_sequence,
        AirReverseSequenceOptions,
        ReverseSequenceOperator,
    ),
]
