"""GATHER_ND and SCATTER_ND: slices addressed by index vectors, read or summed into place.

The indices' last dimension holds one coordinate per leading dimension of the addressed tensor;
each vector names one slice of the remaining dimensions. GATHER_ND copies the named slices out
(any element type), SCATTER_ND starts from zeros and adds each update slice at its vector, so
repeated vectors accumulate, as LiteRT's reference does. Both run ``hk_index`` kernels that
check every vector first: a vector outside the tensor (a negative coordinate, or a slice past the
end, LiteRT's own test) fails the run with the output untouched; constant indices are checked at
Resolve instead.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirTensor, AirTensorType
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.common.quantization import quantization_problems
from helia_aot_ops_builtin.data_movement.layout import StridedCopy
from helia_aot_ops_builtin.data_movement.movers import SAME_QUANTIZATION, CopyStep
from helia_aot_ops_builtin.index.index_geometry import (
    INDEX_SIZES,
    ConstantIndexPlan,
    NdGeometry,
    constant_values,
    nd_geometry,
    tensor_ptr,
)

parse_gather_nd = simple_parser("GATHER_ND")
parse_scatter_nd = simple_parser("SCATTER_ND")

IN_RANGE = "Constant index vectors must address slices inside the tensor."
AT_MOST_SIX = "Index vectors may hold at most 6 coordinates."

SCATTER_KINDS = {
    AirTensorType.FLOAT32: 0,
    AirTensorType.INT8: 1,
    AirTensorType.UINT8: 2,
    AirTensorType.INT32: 3,
    AirTensorType.INT64: 4,
}
"""``HK_INDEX_KIND_*`` of the update types LiteRT's SCATTER_ND adds."""


def _range_problems(geometry: NdGeometry, indices: AirTensor | None) -> list[str]:
    values = constant_values(indices)
    if values is None or geometry.count == 0:
        return []
    bad = geometry.out_of_range(values)
    if not bad:
        return []
    vector = values.reshape(geometry.count, geometry.depth)[bad[0]].tolist()
    return [
        f"{len(bad)} constant index vector(s) fall outside the dimensions {list(geometry.dims)} "
        f"(the first: {vector})"
    ]


class GatherNdOperator(ConstantIndexPlan, KernelCallOperator):
    """GATHER_ND through ``hk_gather_nd`` (any element type; int16, int32 or int64 indices), or
    for constant indices one strided copy per run of consecutive slices."""

    TYPE = "GATHER_ND"
    KERNELS = ("index",)
    SUPPORTED_DTYPES = (
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.int32,
        np.int64,
        np.float16,
        np.float32,
    )
    RESTRICTIONS = (SAME_QUANTIZATION, "Indices must be int16, int32 or int64.", AT_MOST_SIX, IN_RANGE)
    MOVES_DATA_ONLY = True

    def geometry(self) -> NdGeometry:
        return nd_geometry(tuple(self.input_tensors[0].shape), tuple(self.input_tensors[1].shape))

    def check(self) -> Iterable[str]:
        params, indices, out = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        problems = quantization_problems([out], like=params)
        if indices.dtype not in INDEX_SIZES:
            problems.append(f"indices {label(indices)} are {indices.dtype}; supported: int16, int32, int64")
            return problems
        try:
            g = self.geometry()
        except ValueError as exc:
            return problems + [str(exc)]
        expected = tuple(indices.shape[:-1]) + tuple(params.shape[g.depth :])
        if tuple(out.shape) != expected:
            problems.append(f"the output shape {tuple(out.shape)} is not {expected}")
        return problems + _range_problems(g, indices)

    def constant_plan(self) -> list[CopyStep] | None:
        params, indices, out = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        values = constant_values(indices)
        if values is None:
            return None
        g = self.geometry()
        slices = np.zeros(g.count, dtype=np.int64)
        for coord, dim in zip(values.reshape(g.count, g.depth).T, g.dims):
            slices = slices * dim + coord.astype(np.int64)
        runs: list[list[int]] = []  # [first output slice, first input slice, length]
        for v, s in enumerate(slices.tolist()):
            if runs and runs[-1][1] + runs[-1][2] == s:
                runs[-1][2] += 1
            else:
                runs.append([v, s, 1])
        n = g.slice_size
        return [
            CopyStep(params, out, StridedCopy((length * n,), (1,), (1,), first_in * n, first_out * n))
            for first_out, first_in, length in runs
        ]

    def kernel(self) -> KernelCall:
        params, indices, out = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        return KernelCall(
            "gather_nd",
            [tensor_ptr(self, t) for t in (params, indices, out)],
            "index_nd_params_t",
            self.geometry().params(params.dtype.itemsize, INDEX_SIZES[indices.dtype]),
        )


class ScatterNdOperator(KernelCallOperator):
    """SCATTER_ND through ``hk_scatter_nd``: zeros, then each update added at its vector."""

    TYPE = "SCATTER_ND"
    KERNELS = ("index",)
    SUPPORTED_DTYPES = (np.int8, np.uint8, np.int32, np.int64, np.float32)
    RESTRICTIONS = (
        "Updates must be float32, int8, uint8, int32 or int64 (LiteRT's SCATTER_ND types); "
        "integer sums wrap.",
        "Indices must be int32 and the shape a constant int32 tensor equal to the output shape.",
        "The updates must be shaped indices.shape[:-1] + shape[indices.shape[-1]:].",
        AT_MOST_SIX,
        IN_RANGE,
    )

    def geometry(self) -> NdGeometry:
        return nd_geometry(tuple(self.output_tensors[0].shape), tuple(self.input_tensors[0].shape))

    def check(self) -> Iterable[str]:
        indices, updates, shape, out = (*self.input_tensors[:3], self.output_tensors[0])
        problems = []
        if indices.dtype is not AirTensorType.INT32:
            problems.append(f"indices {label(indices)} are {indices.dtype}; supported: int32")
        if updates.dtype != out.dtype:
            problems.append(f"the output is {out.dtype} but the updates are {updates.dtype}")
        values = constant_values(shape)
        if values is None:
            problems.append("the shape input must be a constant (it is computed at run time)")
        elif shape.dtype is not AirTensorType.INT32:
            problems.append(f"the shape input is {shape.dtype}; LiteRT requires int32 (as the indices)")
        elif tuple(int(v) for v in values) != tuple(out.shape):
            problems.append(f"the shape {values.tolist()} is not the output shape {list(out.shape)}")
        if problems:
            return problems
        try:
            g = self.geometry()
        except ValueError as exc:
            return [str(exc)]
        expected = tuple(indices.shape[:-1]) + tuple(out.shape[g.depth :])
        if tuple(updates.shape) != expected:
            problems.append(f"the updates are shaped {tuple(updates.shape)}, not {expected}")
        return problems + _range_problems(g, indices)

    def kernel(self) -> KernelCall:
        indices, updates, out = self.input_tensors[0], self.input_tensors[1], self.output_tensors[0]
        return KernelCall(
            "scatter_nd",
            [tensor_ptr(self, t) for t in (indices, updates, out)],
            "index_nd_params_t",
            self.geometry().params(out.dtype.itemsize, 4, SCATTER_KINDS[out.dtype]),
        )


REGISTRATIONS = [
    OperatorRecord("GATHER_ND", parse_gather_nd, None, GatherNdOperator),
    OperatorRecord("SCATTER_ND", parse_scatter_nd, None, ScatterNdOperator),
]
