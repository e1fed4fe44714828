"""SHAPE: the input's dimensions as an int32 or int64 vector.

A module is converted for one static shape (a dimension the model file leaves dynamic, a batch
of -1 in ``shape_signature``, takes the size stored in ``shape``), so the answer is known at
conversion: FOLD_STATIC_SHAPE_EXPRESSIONS normally turns SHAPE and the arithmetic on it into
constants before Resolve. When a SHAPE is left (the transform disabled, or its output a model
output) it runs as one copy of a constant array of the dimensions, and never reads its input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirTensorType
from helia_aot.converters.litert.schema_access import tensor_type_name
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.movers import ANY_DTYPE

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

OUTPUT_TYPES = "The output must be an int32 or int64 vector with one element per input dimension."


@dataclass(slots=True)
class AirShapeOptions(AirOperatorOptions):
    """The element type the options ask for (``INT32`` or ``INT64``)."""

    out_type: str = "INT32"


def _shape_options(raw: litert.ShapeOptionsT | None) -> AirShapeOptions:
    code = raw.outType if raw is not None else None
    return AirShapeOptions(out_type="INT32" if code is None else tensor_type_name(code))


parse_shape = simple_parser("SHAPE", _shape_options)


def shape_value(source_shape: Iterable[int], dtype: AirTensorType) -> np.ndarray:
    """What SHAPE computes for an input of ``source_shape``."""
    return np.asarray([int(d) for d in source_shape], dtype=dtype.numpy)


class ShapeOperator(BuiltinOperator):
    """SHAPE: a constant copy of the input's dimensions (the input's data is never read)."""

    TYPE = "SHAPE"
    SUPPORTED_DTYPES = ANY_DTYPE
    RESTRICTIONS = (OUTPUT_TYPES,)
    KERNELS = ("copy",)
    TEMPLATE = "reshape.c.mako"

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 1 or len(self.output_tensors) != 1:
            return [
                f"expects 1 input and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            ]
        source, target = self.input_tensors[0], self.output_tensors[0]
        problems = []
        if target.dtype not in (AirTensorType.INT32, AirTensorType.INT64):
            problems.append(f"the output is {target.dtype}, not int32 or int64")
        if tuple(target.shape) != (len(source.shape),):
            problems.append(f"the output shape {tuple(target.shape)} is not ({len(source.shape)},)")
        return problems

    def reads_input(self, position: int) -> bool:
        return False  # only the input's (static) shape matters

    def on_resolve(self) -> None:
        source, target = self.input_tensors[0], self.output_tensors[0]
        self.intern_constant_array("dims", shape_value(source.shape, target.dtype))

    def kernel_calls(self) -> dict[str, str]:
        return {"copy": "hk_copy_bytes"}

    def compute_values(self) -> dict[str, Any]:
        target = self.output_tensors[0]
        dims = self.model.tensors[self.op.named_tensors["dims"]]
        return {
            "src": f"ctx->tensor_ptrs[{self.tensor_enum(dims)}]",
            "dst": f"ctx->tensor_ptrs[{self.tensor_enum(target)}]",
            "nbytes": target.nbytes,
            "status_base": KERNEL_STATUS_BASE,
        }


REGISTRATIONS = [OperatorRecord("SHAPE", parse_shape, AirShapeOptions, ShapeOperator)]
