"""TRANSPOSE: dimensions permuted by a constant ``perm``.

Output dimension ``k`` walks input dimension ``perm[k]``, which is one ``hk_strided_copy`` with
the input's strides permuted; dimensions that stay adjacent are merged, so a transpose that only
moves size-1 dimensions becomes a single flat copy.
"""

from __future__ import annotations

from collections.abc import Iterable

from helia_aot.air import AirOpType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import MAX_RANK, transpose_copy
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    constant_ints,
)

parse_transpose = simple_parser(AirOpType.TRANSPOSE.value)


class TransposeOperator(CopyPlanOperator):
    """TRANSPOSE: one permuted strided copy."""

    TYPE = AirOpType.TRANSPOSE.value
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        f"perm must be a constant permutation of the input's dimensions (rank <= {MAX_RANK}).",
    )

    def perm(self) -> list[int]:
        rank = len(self.input_tensors[0].shape)
        perm = [p + rank if p < 0 else p for p in constant_ints(self.input_or_none(1), "perm")]
        if sorted(perm) != list(range(rank)):
            raise ValueError(f"perm {perm} is not a permutation of {rank} dimensions")
        return perm

    def geometry_problems(self) -> Iterable[str]:
        try:
            perm = self.perm()
        except ValueError as exc:
            yield str(exc)
            return
        shape = self.input_tensors[0].shape
        expected = tuple(shape[p] for p in perm)
        if tuple(self.output_tensors[0].shape) != expected:
            yield f"the output shape {self.output_tensors[0].shape} is not {expected}"

    def copy_steps(self) -> list[CopyStep]:
        source = self.input_tensors[0]
        return [CopyStep(source, self.output_tensors[0], transpose_copy(source.shape, self.perm()))]


REGISTRATIONS = [
    OperatorRecord(AirOpType.TRANSPOSE.value, parse_transpose, None, TransposeOperator, arity=Arity(2, 2)),
]
