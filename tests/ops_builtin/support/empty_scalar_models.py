"""Models with scalars made the standard LiteRT way and tensors of no elements, for the
empty-and-scalar tests.

The LiteRT converter turns a ``[1, 1]`` value into a scalar with RESHAPE whose shape operand is an
int32 constant of shape ``[0]`` (no elements: the target shape is ``[]``); an IF or a WHILE
condition is such a scalar. Each model's branch or trip count depends on its input.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder


def _scalar(b: LiteRTModelBuilder, value: int, reduce: str, compare: str, limit: float) -> int:
    """A bool scalar: ``reduce(value) <compare> limit``, kept [1, 1] and reshaped to []."""
    axes = b.add_tensor(f"{reduce}_axes", (2,), "int32", data=np.arange(2, dtype=np.int32))
    options = litert.ReducerOptionsT()
    options.keepDims = True
    reduced = b.add_tensor(f"{reduce}_out", (1, 1), "float32")
    b.add_operator(reduce, [value, axes], [reduced], options)
    bound = b.add_tensor("limit", (1, 1), "float32", data=np.full((1, 1), limit, np.float32))
    flag = b.add_tensor("flag_1x1", (1, 1), "bool")
    b.add_operator(compare, [reduced, bound], [flag])
    target = b.add_tensor("scalar_shape", (0,), "int32", data=np.zeros(0, np.int32))
    scalar = b.add_tensor("flag", (), "bool")
    options = litert.ReshapeOptionsT()
    options.newShape = []
    b.add_operator("RESHAPE", [flag, target], [scalar], options)
    return scalar


def if_on_scalar(path: Path) -> Path:
    """y = 2x when max(x) > 0, else x - 1: the condition is a scalar reshaped from [1, 1]."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    flag = _scalar(b, x, "REDUCE_MAX", "GREATER", 0.0)
    y = b.add_tensor("y", (1, 4), "float32")
    then, other = b.add_subgraph("then"), b.add_subgraph("else")
    tx, ty = then.add_tensor("x", (1, 4), "float32"), then.add_tensor("y", (1, 4), "float32")
    two = then.add_tensor("two", (1,), "float32", data=np.float32([2.0]))
    then.add_operator("MUL", [tx, two], [ty], litert.MulOptionsT())
    then.set_inputs([tx])
    then.set_outputs([ty])
    ex, ey = other.add_tensor("x", (1, 4), "float32"), other.add_tensor("y", (1, 4), "float32")
    one = other.add_tensor("one", (1,), "float32", data=np.float32([1.0]))
    other.add_operator("SUB", [ex, one], [ey], litert.SubOptionsT())
    other.set_inputs([ex])
    other.set_outputs([ey])
    options = litert.IfOptionsT()
    options.thenSubgraphIndex, options.elseSubgraphIndex = then.index, other.index
    b.add_operator("IF", [flag, x], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def while_on_scalar(path: Path) -> Path:
    """x = 1.25 x + 0.5 while min(x) < 4: the loop condition is a scalar reshaped from [1, 1]."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    y = b.add_tensor("y", (1, 4), "float32")
    cond, body = b.add_subgraph("cond"), b.add_subgraph("body")
    cx = cond.add_tensor("x", (1, 4), "float32")
    cond.set_inputs([cx])
    cond.set_outputs([_scalar(cond, cx, "REDUCE_MIN", "LESS", 4.0)])
    bx, by = body.add_tensor("x", (1, 4), "float32"), body.add_tensor("y", (1, 4), "float32")
    scaled = body.add_tensor("scaled", (1, 4), "float32")
    gain = body.add_tensor("gain", (1,), "float32", data=np.float32([1.25]))
    offset = body.add_tensor("offset", (1,), "float32", data=np.float32([0.5]))
    body.add_operator("MUL", [bx, gain], [scaled], litert.MulOptionsT())
    body.add_operator("ADD", [scaled, offset], [by], litert.AddOptionsT())
    body.set_inputs([bx])
    body.set_outputs([by])
    options = litert.WhileOptionsT()
    options.condSubgraphIndex, options.bodySubgraphIndex = cond.index, body.index
    b.add_operator("WHILE", [x], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def unread_empty_split(path: Path) -> Path:
    """SPLIT_V of x [1, 4] into [1, 4] and an empty [1, 0] piece nothing reads; y = 2 * piece."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    sizes = b.add_tensor("sizes", (2,), "int32", data=np.int32([4, 0]))
    axis = b.add_tensor("axis", (), "int32", data=np.int32(1))
    kept, empty = b.add_tensor("kept", (1, 4), "float32"), b.add_tensor("empty", (1, 0), "float32")
    options = litert.SplitVOptionsT()
    options.numSplits = 2
    b.add_operator("SPLIT_V", [x, sizes, axis], [kept, empty], options)
    y = b.add_tensor("y", (1, 4), "float32")
    two = b.add_tensor("two", (1,), "float32", data=np.float32([2.0]))
    b.add_operator("MUL", [kept, two], [y], litert.MulOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


MODELS = {
    "if_on_scalar": if_on_scalar,
    "while_on_scalar": while_on_scalar,
    "unread_empty_split": unread_empty_split,
}
