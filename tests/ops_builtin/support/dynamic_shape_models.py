"""A model whose input has an unknown length, as an exporter writes one: the signature says
``[1, -1, 8, 1]`` and the stored shape holds the placeholder 1, at which its 3x3 VALID pooling
has no output. It converts once ``model.input_shapes`` gives the real length."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder


def pooled_frames(path: Path) -> Path:
    """x [1, T, 8, 1] -> 3x3 VALID max pool [1, T-2, 6, 1] -> RESHAPE [1, -1] and the mean over
    time [1, 1, 6, 1] (both outputs); T is unknown (-1) in the signature, stored as 1."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("frames", (1, 1, 8, 1), "float32", shape_signature=(1, -1, 8, 1))
    pooled = b.add_tensor("pooled", (1, 1, 6, 1), "float32", shape_signature=(1, -1, 6, 1))
    pool = litert.Pool2DOptionsT()
    pool.padding = litert.Padding.VALID
    pool.filterWidth = pool.filterHeight = 3
    pool.strideW = pool.strideH = 1
    b.add_operator("MAX_POOL_2D", [x], [pooled], pool)
    target = b.add_tensor("flat_shape", (2,), "int32", data=np.int32([1, -1]))
    flat = b.add_tensor("flat", (1, 6), "float32", shape_signature=(1, -1))
    reshape = litert.ReshapeOptionsT()
    reshape.newShape = [1, -1]
    b.add_operator("RESHAPE", [pooled, target], [flat], reshape)
    axis = b.add_tensor("time_axis", (1,), "int32", data=np.int32([1]))
    mean = b.add_tensor("mean", (1, 1, 6, 1), "float32")
    reducer = litert.ReducerOptionsT()
    reducer.keepDims = True
    b.add_operator("MEAN", [pooled, axis], [mean], reducer)
    b.set_inputs([x])
    b.set_outputs([flat, mean])
    return b.save(path)


def rectified_frames(path: Path) -> Path:
    """x [1, T, 4] -> RELU: T unknown (-1) in the signature, stored as 1; unlike
    :func:`pooled_frames` it converts at the stored placeholder shape (one frame)."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("frames", (1, 1, 4), "float32", shape_signature=(1, -1, 4))
    y = b.add_tensor("rectified", (1, 1, 4), "float32", shape_signature=(1, -1, 4))
    b.add_operator("RELU", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)
