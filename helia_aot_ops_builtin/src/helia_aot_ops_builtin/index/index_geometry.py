"""Shared checks of the operators that address a tensor through an index tensor.

GATHER_ND and SCATTER_ND address slices with index vectors (the last dimension of the indices
holds one coordinate per leading dimension of the addressed tensor); ONE_HOT, REVERSE_SEQUENCE and
DYNAMIC_UPDATE_SLICE read positions. When the indices are constants their range is checked here
at Resolve (LiteRT would fail the invoke); when they are computed at run time the ``hk_index``
kernels check them and fail the run with the output untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from helia_aot.air import AirTensor, AirTensorType
from helia_aot.aot.operators import AotOperator

from helia_aot_ops_builtin.common.kernel_call import KernelCallOperator
from helia_aot_ops_builtin.data_movement.layout import product
from helia_aot_ops_builtin.data_movement.movers import CopyStep, copy_plan_values

MAX_RANK = 6
"""``HK_INDEX_MAX_RANK``: the most dimensions an index kernel addresses."""

INDEX_SIZES = {AirTensorType.INT16: 2, AirTensorType.INT32: 4, AirTensorType.INT64: 8}


def tensor_ptr(op: AotOperator, tensor: AirTensor) -> str:
    """The untyped ``ctx->tensor_ptrs`` entry of ``tensor`` (the kernels take ``void *``)."""
    return f"ctx->tensor_ptrs[{op.tensor_enum(tensor)}]"


def constant_values(tensor: AirTensor | None) -> np.ndarray | None:
    """A constant tensor's values (flattened, as int64 for integers), or None when computed."""
    if tensor is None or not tensor.is_constant or tensor.data is None:
        return None
    return np.asarray(tensor.data).reshape(-1)


@dataclass(slots=True)
class NdGeometry:
    """``hk_index_nd_params_t``: ``count`` vectors of ``depth`` coordinates into ``dims``."""

    count: int
    depth: int
    slice_size: int
    dims: tuple[int, ...]

    def params(self, elem_size: int, index_size: int, kind: int = 0) -> dict[str, Any]:
        return {
            "count": self.count,
            "depth": self.depth,
            "slice_size": self.slice_size,
            "elem_size": elem_size,
            "index_size": index_size,
            "kind": kind,
            "dims": list(self.dims) or [0],
        }

    def out_of_range(self, indices: np.ndarray) -> list[int]:
        """Index vectors LiteRT's reference refuses: a negative coordinate or a slice past the end."""
        vectors = np.asarray(indices, dtype=np.int64).reshape(self.count, self.depth)
        bad = []
        slices = product(self.dims)
        for v, vector in enumerate(vectors):
            flat = 0
            for coord, dim in zip(vector, self.dims):
                flat = flat * dim + int(coord)
            if (vector < 0).any() or flat >= slices:
                bad.append(v)
        return bad


def nd_geometry(addressed: tuple[int, ...], indices: tuple[int, ...]) -> NdGeometry:
    """Geometry of index vectors ``indices`` (last dimension = depth) into shape ``addressed``."""
    if len(addressed) < 1:
        raise ValueError("the addressed tensor must have at least one dimension")
    if len(indices) < 1:
        raise ValueError("the indices must have at least one dimension")
    depth = int(indices[-1])
    if not 0 <= depth <= len(addressed):
        raise ValueError(f"index vectors of {depth} coordinates do not fit a rank-{len(addressed)} tensor")
    if depth > MAX_RANK:
        raise ValueError(f"index vectors of {depth} coordinates exceed the kernel's {MAX_RANK}")
    return NdGeometry(
        count=product(indices[:-1]),
        depth=depth,
        slice_size=product(addressed[depth:]),
        dims=tuple(int(d) for d in addressed[:depth]),
    )


PLAN_LIMIT = 16
"""The most strided copies a constant-index operator renders instead of its kernel call."""


class ConstantIndexPlan(KernelCallOperator):
    """Base of the ``hk_index`` operators: constant indices become a table of strided copies.

    When every index an operator reads is a constant, what it moves is known at conversion time,
    so the module can carry the same ``hk_strided_copy`` table the data-movement operators use
    (no index decoding or range checks at run time, and no ``hk_index`` kernel in the module).
    :meth:`constant_plan` returns those copies, or None to keep the kernel call (indices computed
    at run time, or more than :data:`PLAN_LIMIT` copies).
    """

    def constant_plan(self) -> list[CopyStep] | None:
        return None

    def _plan(self) -> list[CopyStep] | None:
        try:
            steps = self.constant_plan()
            if steps is None or len(steps) > PLAN_LIMIT:
                return None
            elem = self.output_tensors[0].dtype.itemsize
            for step in steps:
                step.walk.byte_fields(elem)
        except ValueError:
            return None
        return steps

    def emit(self, save_path: Path) -> None:
        """Render the copy table (``strided_copies.c.mako``) instead of the kernel call
        (the class's ``kernel_call.c.mako``) when the plan applies."""
        if self._plan() is not None:
            self.TEMPLATE = "strided_copies.c.mako"
        super().emit(save_path)

    def kernel_families(self) -> tuple[str, ...]:
        return ("copy",) if self._plan() is not None else super().kernel_families()

    def kernel_calls(self) -> dict[str, str]:
        if self._plan() is not None:
            return {"copy": "hk_strided_copy"}
        return super().kernel_calls()

    def compute_values(self) -> dict[str, Any]:
        steps = self._plan()
        if steps is not None:
            return copy_plan_values(self, steps, None)
        return super().compute_values()
