"""DENSIFY: a stored-sparse constant made dense, which Load has already done.

The LiteRT converter writes a pruned weight as a sparse constant followed by DENSIFY, which
rebuilds the dense tensor when the interpreter prepares the model. Load densifies every sparse
constant as it reads it (:mod:`helia_aot.converters.litert.sparsity`), so DENSIFY is left copying
a dense constant: the REMOVE_DENSIFY transform (on by default) makes its readers read the
constant itself and drops it. With the transform off, or for a DENSIFY whose output is a model
output, it stays and copies the bytes once per run, as RESHAPE does.
"""

from __future__ import annotations

from collections.abc import Iterable

from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.reshape import ReshapeOperator

CONSTANT_INPUT = "The input must be a constant (a stored-sparse weight, densified at conversion)."

parse_densify = simple_parser("DENSIFY")


class DensifyOperator(ReshapeOperator):
    """DENSIFY of a constant that Load densified: a copy of its bytes, when not removed."""

    TYPE = "DENSIFY"
    RESTRICTIONS = ReshapeOperator.RESTRICTIONS + (CONSTANT_INPUT,)

    def shape_problems(self) -> Iterable[str]:
        source = self.input_tensors[0]
        if not source.is_constant:
            yield "the input is computed at run time; DENSIFY converts only a constant input"
        target = self.output_tensors[0]
        if source.shape != target.shape:
            yield f"the input's shape {list(source.shape)} is not the output's {list(target.shape)}"


REGISTRATIONS = [OperatorRecord("DENSIFY", parse_densify, None, DensifyOperator, arity=Arity(1, 1))]
