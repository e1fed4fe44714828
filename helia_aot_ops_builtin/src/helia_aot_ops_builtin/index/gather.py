"""GATHER: slices of the input picked along one axis by an index tensor (with batch_dims).

The input is viewed as ``[batch, outer, axis, inner]`` and the indices as ``[batch, coords]``;
``hk_gather`` copies one ``inner``-element slice per index. Indices known at conversion time
are checked here (LiteRT evaluates a constant gather in Prepare and fails there); indices
computed at run time are checked by the kernel before it copies anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from helia_aot.air import AirOperatorOptions, AirOpType, AirTensor, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.data_movement.layout import product
from helia_aot_ops_builtin.data_movement.movers import ANY_DTYPE, SAME_QUANTIZATION

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_INDEX_TYPES = (AirTensorType.INT16, AirTensorType.INT32, AirTensorType.INT64)


@dataclass(slots=True)
class AirGatherOptions(AirOperatorOptions):
    """GATHER's axis and number of leading batch dimensions (either may be negative)."""

    axis: int = 0
    batch_dims: int = 0


def _gather_options(raw: litert.GatherOptionsT | None) -> AirGatherOptions:
    return AirGatherOptions(
        axis=int((raw.axis if raw is not None else 0) or 0),
        batch_dims=int((raw.batchDims if raw is not None else 0) or 0),
    )


parse_gather = simple_parser(AirOpType.GATHER.value, _gather_options)


@dataclass(slots=True)
class GatherGeometry:
    """The ``hk_gather_params_t`` fields, plus the normalized axis and batch_dims."""

    axis: int
    batch_dims: int
    batch_size: int
    outer_size: int
    axis_size: int
    inner_size: int
    coord_size: int


def gather_geometry(
    input_shape: tuple[int, ...], indices_shape: tuple[int, ...], options: AirGatherOptions
) -> GatherGeometry:
    """LiteRT Gather's Prepare checks and loop sizes; ValueError where it would refuse."""
    rank, index_rank = len(input_shape), len(indices_shape)
    axis = options.axis + rank if options.axis < 0 else options.axis
    if not 0 <= axis < rank:
        raise ValueError(f"axis {options.axis} is out of range for rank {rank}")
    batch_dims = options.batch_dims + index_rank if options.batch_dims < 0 else options.batch_dims
    if not (0 <= batch_dims < rank and batch_dims <= index_rank and batch_dims <= axis):
        raise ValueError(
            f"batch_dims {options.batch_dims} does not fit axis {axis}, input rank "
            f"{rank} and indices rank {index_rank}"
        )
    if tuple(input_shape[:batch_dims]) != tuple(indices_shape[:batch_dims]):
        raise ValueError("the input and the indices differ in their batch dimensions")
    return GatherGeometry(
        axis,
        batch_dims,
        product(input_shape[:batch_dims]),
        product(input_shape[batch_dims:axis]),
        int(input_shape[axis]),
        product(input_shape[axis + 1 :]),
        product(indices_shape[batch_dims:]),
    )


class GatherOperator(BuiltinOperator):
    """GATHER through ``hk_gather`` (any element type; int16, int32 or int64 indices)."""

    TYPE = AirOpType.GATHER.value
    SUPPORTED_DTYPES = ANY_DTYPE
    RESTRICTIONS = (
        SAME_QUANTIZATION,
        "Indices must be int16, int32 or int64.",
        "Constant indices must lie inside the gathered axis.",
    )
    KERNELS = ("gather",)
    TEMPLATE = "gather.c.mako"
    MOVES_DATA_ONLY = True

    def geometry(self) -> GatherGeometry:
        source, indices = self.input_tensors[0], self.input_tensors[1]
        return gather_geometry(source.shape, indices.shape, self.typed_options(AirGatherOptions))

    def check(self) -> Iterable[str]:
        source, indices, target = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        problems = quantization_problems([target], like=source)
        if indices.dtype not in _INDEX_TYPES:
            problems.append(f"indices are {indices.dtype}; supported: int16, int32, int64")
        try:
            g = self.geometry()
        except ValueError as exc:
            return problems + [str(exc)]
        expected = source.shape[: g.axis] + indices.shape[g.batch_dims :] + source.shape[g.axis + 1 :]
        if tuple(target.shape) != tuple(expected):
            problems.append(f"the output shape {target.shape} is not {expected}")
        if indices.is_constant and indices.data is not None and indices.size:
            values = np.asarray(indices.data).reshape(-1)
            if values.min() < 0 or values.max() >= g.axis_size:
                problems.append(
                    f"constant indices span [{values.min()}, {values.max()}], outside [0, {g.axis_size})"
                )
        return problems

    def kernel_calls(self) -> dict[str, str]:
        return {"gather": "hk_gather"}

    def compute_values(self) -> dict[str, Any]:
        source, indices, target = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        g = self.geometry()
        fields = [
            g.batch_size,
            g.outer_size,
            g.axis_size,
            g.inner_size,
            g.coord_size,
            source.dtype.itemsize,
            indices.dtype.itemsize,
        ]

        def tensor(t: AirTensor) -> str:
            return f"ctx->tensor_ptrs[{self.tensor_enum(t)}]"

        return {
            "params": ", ".join(str(v) for v in fields),
            "src": tensor(source),
            "indices": tensor(indices),
            "dst": tensor(target),
            "status_base": KERNEL_STATUS_BASE,
        }


REGISTRATIONS = [
    OperatorRecord(AirOpType.GATHER.value, parse_gather, AirGatherOptions, GatherOperator, arity=Arity(2, 2)),
]
