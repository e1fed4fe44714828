"""Numpy model of hk_strided_copy and a LiteRT runner, shared by the data-movement operator tests."""

from __future__ import annotations

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot_ops_builtin.data_movement.layout import StridedCopy


def run_copy(walk: StridedCopy, src: np.ndarray, dst: np.ndarray) -> None:
    """Execute one strided copy on flat arrays (element units), as the C kernel does."""
    if walk.elements == 0:
        return
    grids = np.indices(walk.counts).reshape(len(walk.counts), -1)
    src_index = walk.src_offset + np.tensordot(walk.src_strides, grids, axes=1)
    dst_index = walk.dst_offset + np.tensordot(walk.dst_strides, grids, axes=1)
    dst.reshape(-1)[dst_index] = src.reshape(-1)[src_index]


def run_litert(model: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run a model once with LiteRT's reference kernels; outputs in model order."""
    interpreter = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    return [np.array(interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()]
