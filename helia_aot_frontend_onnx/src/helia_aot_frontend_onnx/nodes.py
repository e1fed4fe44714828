"""One converter per ONNX operator: the node onto the built-in AIR operators, in NHWC.

Each converter reads its node's attributes and constant inputs, asks the builder for its inputs
in the layout the AIR operator wants (:mod:`helia_aot_frontend_onnx.builder`) and adds the
operators, under the same ``op_type`` keys the LiteRT parsers produce, so the same kernels run.
A node it cannot express raises :class:`~helia_aot_frontend_onnx.builder.Unsupported` with the
reason; the reader collects every such node into one error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
from helia_aot.air import AirTensorType, TensorId

from helia_aot_frontend_onnx.builder import (
    NHWC,
    Builder,
    Perm,
    Unsupported,
    identity,
    inverse,
    permuted,
    same_memory_order,
)

Converter = Callable[[Builder, onnx.NodeProto], None]


def attr(node: onnx.NodeProto, name: str, default: Any = None) -> Any:
    for attribute in node.attribute:
        if attribute.name == name:
            value = onnx.helper.get_attribute_value(attribute)
            return value.decode() if isinstance(value, bytes) else value
    return default


def _float_input(b: Builder, name: str) -> None:
    dtype = b.graph.dtypes.get(b.graph.resolve(name))
    if dtype is not None and dtype != np.float32:
        raise Unsupported(f"input {name!r} is {dtype}; the ONNX front end converts float32 models")


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _layout_4d(b: Builder, name: str) -> Perm:
    """NHWC for a 4-D value, its own layout otherwise."""
    return NHWC if len(b.shape_of(name)) == 4 else b.perm_of(name)


# -- convolution and dense ----------------------------------------------------------------------
def _same_or_explicit(
    size: tuple[int, int],
    kernel: tuple[int, int],
    strides: tuple[int, int],
    dilations: tuple[int, int],
    pads: list[int],
) -> tuple[str, tuple[int, int, int, int] | None]:
    """``(padding, explicit)`` of a window: VALID, SAME (LiteRT's split: the extra pad at the end)
    or the explicit (top, bottom, left, right) pads."""
    top, left, bottom, right = pads
    if not any(pads):
        return "VALID", None
    same = True
    for axis in range(2):
        out = -(-size[axis] // strides[axis])
        effective = (kernel[axis] - 1) * dilations[axis] + 1
        total = max((out - 1) * strides[axis] + effective - size[axis], 0)
        begin, end = (top, bottom) if axis == 0 else (left, right)
        if (begin, end) != (total // 2, total - total // 2):
            same = False
    return ("SAME", None) if same else ("SAME", (top, bottom, left, right))


def _window(b: Builder, node: onnx.NodeProto, kernel: tuple[int, int]) -> dict[str, Any]:
    """Strides, dilations and pads of a 2-D window node, auto_pad resolved."""
    if len(kernel) != 2:
        raise Unsupported("only 2-D windows (4-D NCHW inputs) are supported")
    strides = tuple(attr(node, "strides", [1, 1]))
    dilations = tuple(attr(node, "dilations", [1, 1]))
    size = b.shape_of(node.input[0])[2:4]
    auto_pad = attr(node, "auto_pad", "NOTSET")
    pads = list(attr(node, "pads", [0, 0, 0, 0]))
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for axis in range(2):
            out = -(-size[axis] // strides[axis])
            total = max((out - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1 - size[axis], 0)
            small, large = total // 2, total - total // 2
            pads.append((small, large) if auto_pad == "SAME_UPPER" else (large, small))
        pads = [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
    elif auto_pad == "VALID":
        pads = [0, 0, 0, 0]
    padding, explicit = _same_or_explicit(
        (size[0], size[1]), kernel, (strides[0], strides[1]), (dilations[0], dilations[1]), pads
    )
    return {
        "strides": strides,
        "dilations": dilations,
        "padding": padding,
        "explicit": explicit,
        "pads": pads,
    }


def _weight(b: Builder, name: str, array: np.ndarray, perm: Perm) -> TensorId:
    """A weight laid out by ``perm``: its integers and quantization when a QDQ model stores it
    quantized (outside float mode), else the float array."""
    if b.graph.qdq and not b.float_mode and b.graph.resolve(name) in b.graph.quantized:
        return b.input(name, perm)
    return b.constant(np.transpose(array, perm), name)


def conv(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    weight = b.required_const(node.input[1], "the Conv weight")
    if weight.ndim != 4:
        raise Unsupported(f"a {weight.ndim - 2}-D convolution; only 2-D Conv is supported")
    group = int(attr(node, "group", 1))
    out_channels, per_group, kh, kw = weight.shape
    in_channels = b.shape_of(node.input[0])[1]
    w = _window(b, node, (kh, kw))
    source = b.input(node.input[0], NHWC)
    bias = b.input(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    fields = {
        "padding": w["padding"],
        "stride_h": int(w["strides"][0]),
        "stride_w": int(w["strides"][1]),
        "dilation_h": int(w["dilations"][0]),
        "dilation_w": int(w["dilations"][1]),
        "explicit_padding": w["explicit"],
    }
    if group == in_channels and per_group == 1 and group > 1:
        # Depthwise: filter (1, kh, kw, channels * multiplier). The int8 depthwise of a QDQ model
        # (ONNX_DEPTHWISE_CONV_2D) takes explicit pads as the convolutions do; for LiteRT's
        # depthwise kernels (SAME or VALID only) pads SAME cannot express come from a PAD before
        # a VALID window, which costs the padded copy's arena.
        integer = b.graph.qdq and not b.float_mode and b.air.tensors[source].dtype == AirTensorType.INT8
        if fields["explicit_padding"] is not None and not integer:
            top, bottom, left, right = fields["explicit_padding"]
            padded_shape = b.air.tensors[source].shape
            padded_shape = (
                padded_shape[0],
                padded_shape[1] + top + bottom,
                padded_shape[2] + left + right,
                padded_shape[3],
            )
            before = b.air.tensors[source]
            padded = b.tensor(
                padded_shape, before.dtype, name=f"{node.output[0]}_padded", quantization=before.quantization
            )
            rows = b.constant(np.array([[0, 0], [top, bottom], [left, right], [0, 0]]), "paddings")
            b.op("PAD", [source, rows], [padded])
            source, fields["padding"], fields["explicit_padding"] = padded, "VALID", None
        filt = _weight(b, node.input[1], weight, (1, 2, 3, 0))
        op_type = "DEPTHWISE_CONV_2D"
        fields["depth_multiplier"] = out_channels // in_channels
    else:
        filt = _weight(b, node.input[1], weight, (0, 2, 3, 1))
        op_type = "CONV_2D"
    out = b.output(node.output[0], NHWC)
    b.op(op_type, [source, filt, bias if bias is not None else _none()], [out], b.options(op_type, **fields))


def _none() -> TensorId:
    """An absent optional input (LiteRT's -1)."""
    return TensorId("")


def conv_transpose(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    weight = b.required_const(node.input[1], "the ConvTranspose weight")
    if weight.ndim != 4 or int(attr(node, "group", 1)) != 1:
        raise Unsupported("only 2-D ConvTranspose with group 1 is supported")
    if tuple(attr(node, "dilations", [1, 1])) != (1, 1):
        raise Unsupported("ConvTranspose with dilations is not supported")
    if any(attr(node, "output_padding", [0, 0])):
        raise Unsupported("ConvTranspose with output_padding is not supported")
    in_channels, out_channels, kh, kw = weight.shape
    strides = tuple(attr(node, "strides", [1, 1]))
    n, _, h, wd = b.shape_of(node.input[0])
    out_shape = b.shape_of(node.output[0])
    pads = list(attr(node, "pads", [0, 0, 0, 0]))
    padding = None
    if attr(node, "auto_pad", "NOTSET") == "VALID" or not any(pads):
        if out_shape[2:] == ((h - 1) * strides[0] + kh, (wd - 1) * strides[1] + kw):
            padding = "VALID"
    if padding is None and out_shape[2:] == (h * strides[0], wd * strides[1]):
        totals = [
            max((h - 1) * strides[0] + kh - out_shape[2], 0),
            max((wd - 1) * strides[1] + kw - out_shape[3], 0),
        ]
        want = [totals[0] // 2, totals[1] // 2, totals[0] - totals[0] // 2, totals[1] - totals[1] // 2]
        if attr(node, "auto_pad", "NOTSET") in ("SAME_UPPER", "NOTSET") and (pads == want or not any(pads)):
            padding = "SAME"
    if padding is None:
        raise Unsupported(f"ConvTranspose pads {pads} give neither SAME nor VALID output sizes")
    source = b.input(node.input[0], NHWC)
    filt = _weight(b, node.input[1], weight, (1, 2, 3, 0))  # (out, kh, kw, in)
    shape = b.constant(np.array(permuted(out_shape, NHWC)), "output_shape")
    bias = b.input(node.input[2]) if len(node.input) > 2 and node.input[2] else _none()
    out = b.output(node.output[0], NHWC)
    options = b.options("TRANSPOSE_CONV", padding=padding, stride_h=int(strides[0]), stride_w=int(strides[1]))
    del n
    b.op("TRANSPOSE_CONV", [shape, filt, source, bias], [out], options)


def gemm(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    if attr(node, "transA", 0):
        raise Unsupported("Gemm with transA is not supported")
    weight = b.required_const(node.input[1], "the Gemm B input").astype(np.float32)
    weight = weight if attr(node, "transB", 0) else weight.T  # (out, in)
    weight = weight * np.float32(attr(node, "alpha", 1.0))
    bias = None
    if len(node.input) > 2 and node.input[2]:
        c = b.required_const(node.input[2], "the Gemm C input").astype(np.float32)
        if c.size not in (1, weight.shape[0]) or (c.ndim == 2 and c.shape[0] != 1):
            raise Unsupported("Gemm's C must be a scalar or one value per output")
        bias = np.broadcast_to(c.reshape(-1), (weight.shape[0],)) * np.float32(attr(node, "beta", 1.0))
    quantized = _quantized_dense(b, node, transposed=not attr(node, "transB", 0))
    if quantized is not None and (attr(node, "alpha", 1.0) != 1.0 or attr(node, "beta", 1.0) != 1.0):
        raise Unsupported("a quantized Gemm with alpha or beta other than 1 is not supported")
    _fully_connected(b, node, weight, bias, quantized)


Quantized = tuple[np.ndarray, Any, TensorId | None]
"""A QDQ dense layer's (out, in) int8 weights, their quantization, and its int32 bias tensor."""


def _quantized_dense(b: Builder, node: onnx.NodeProto, *, transposed: bool) -> Quantized | None:
    """The integer weights and bias of a Gemm or MatMul whose B is a quantized constant (its
    per-channel axis moved with the weights to (out, in)), or None for a float one."""
    if not b.graph.qdq or b.float_mode:
        return None
    q = b.graph.quantized.get(b.graph.resolve(node.input[1]))
    if q is None or q.values.ndim != 2:
        return None
    values, axis = (q.values.T, 1 - q.axis) if transposed else (q.values, q.axis)
    bias = None
    if len(node.input) > 2 and node.input[2]:
        if b.graph.resolve(node.input[2]) not in b.graph.quantized:
            raise Unsupported("a quantized dense layer needs a quantized (int32) bias")
        bias = b.input(node.input[2])
    return values, b.quantization(q.scale, q.zero_point, axis if q.scale.size > 1 else 0), bias


def _fully_connected(
    b: Builder,
    node: onnx.NodeProto,
    weight: np.ndarray,
    bias: np.ndarray | None,
    quantized: Quantized | None = None,
) -> None:
    shape = b.shape_of(node.input[0])
    perm = b.perm_of(node.input[0])
    source = b.input(
        node.input[0], perm if len(shape) == 2 or perm == identity(len(shape)) else identity(len(shape))
    )
    flattened = b.values.get(b.graph.resolve(node.input[0]))
    columns = flattened.columns if flattened is not None else None  # see reshape: weights follow NHWC
    if quantized is not None:
        values, quant, bias_q = quantized
        values = values[:, columns] if columns is not None else values
        filt = b.tensor(
            values.shape,
            AirTensorType.INT8,
            name=node.input[1],
            data=np.ascontiguousarray(values, dtype=np.int8),
            quantization=quant,
        )
        bias_id = bias_q if bias_q is not None else _none()
    else:
        weight = weight[:, columns] if columns is not None else weight
        filt = b.constant(np.ascontiguousarray(weight, dtype=np.float32), node.input[1])
        bias_id = (
            b.constant(np.ascontiguousarray(bias, dtype=np.float32), f"{node.output[0]}_bias")
            if bias is not None
            else _none()
        )
    out = b.output(node.output[0], identity(len(b.shape_of(node.output[0]))))
    keep = len(shape) > 2
    b.op("FULLY_CONNECTED", [source, filt, bias_id], [out], b.options("FULLY_CONNECTED", keep_num_dims=keep))


def matmul(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    weight = b.const_value(node.input[1])
    if weight is not None and weight.ndim == 2:
        _fully_connected(
            b, node, weight.astype(np.float32).T, None, _quantized_dense(b, node, transposed=True)
        )
        return
    if weight is not None:
        raise Unsupported("MatMul with a constant B of rank other than 2 is not supported")
    rank = len(b.shape_of(node.output[0]))
    if len(b.shape_of(node.input[0])) != rank or len(b.shape_of(node.input[1])) != rank:
        raise Unsupported("MatMul of two computed values needs both of the output's rank")
    lhs = b.input(node.input[0], identity(rank))
    rhs = b.input(node.input[1], identity(rank))
    out = b.output(node.output[0], identity(rank))
    b.op("BATCH_MATMUL", [lhs, rhs], [out])


# -- elementwise --------------------------------------------------------------------------------
_BINARY = {"Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV"}


def binary(b: Builder, node: onnx.NodeProto) -> None:
    rank = len(b.shape_of(node.output[0]))
    computed = [n for n in node.input if b.const_value(n) is None]
    if not computed:
        raise Unsupported("both inputs are constants")  # folded before; a guard
    for name in computed:
        _float_input(b, name)
    perm = identity(rank)
    for name in computed:
        if len(b.shape_of(name)) == rank and b.perm_of(name) != identity(rank):
            perm = b.perm_of(name)
            break
    inputs = []
    for name in node.input:
        if b.const_value(name) is not None:
            inputs.append(b.input(name, perm, rank=rank))
        elif len(b.shape_of(name)) == rank:
            inputs.append(b.input(name, perm))
        elif perm == identity(rank):
            inputs.append(b.input(name, identity(len(b.shape_of(name)))))
        else:
            raise Unsupported("a computed input of lower rank beside a channels-last one")
    out = b.output(node.output[0], perm)
    op_type = _BINARY[node.op_type]
    b.op(op_type, inputs, [out], b.options(op_type, activation="NONE"))


_UNARY = {
    "Relu": "RELU",
    "Sigmoid": "LOGISTIC",
    "Tanh": "TANH",
    "HardSwish": "HARD_SWISH",
}


def unary(b: Builder, node: onnx.NodeProto) -> None:
    """Relu, Sigmoid, Tanh, HardSwish; an int8 Sigmoid of a QDQ model (between a
    DequantizeLinear and a QuantizeLinear) is ONNX_LOGISTIC, onnxruntime's QLinearSigmoid table."""
    _float_input(b, node.input[0])
    perm = b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    out = b.output(node.output[0], perm)
    op_type = _UNARY[node.op_type]
    if node.op_type == "Sigmoid" and b.air.tensors[out].dtype == AirTensorType.INT8:
        op_type = "ONNX_LOGISTIC"
    b.op(op_type, [source], [out])


def leaky_relu(b: Builder, node: onnx.NodeProto) -> None:
    """LEAKY_RELU; int8 in a QDQ model: ONNX_LEAKY_RELU, onnxruntime's QLinearLeakyRelu table."""
    _float_input(b, node.input[0])
    perm = b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    out = b.output(node.output[0], perm)
    alpha = float(np.float32(attr(node, "alpha", 0.01)))
    op_type = "ONNX_LEAKY_RELU" if b.air.tensors[out].dtype == AirTensorType.INT8 else "LEAKY_RELU"
    b.op(op_type, [source], [out], b.options(op_type, alpha=alpha))


def clip(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    low = b.const_value(node.input[1]) if len(node.input) > 1 else None
    high = b.const_value(node.input[2]) if len(node.input) > 2 else None
    if (len(node.input) > 1 and node.input[1] and low is None) or (
        len(node.input) > 2 and node.input[2] and high is None
    ):
        raise Unsupported("Clip bounds must be constants")
    lo = float(low) if low is not None else -np.inf
    hi = float(high) if high is not None else np.inf
    perm = b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    named = {(0.0, 6.0): "RELU6", (0.0, np.inf): "RELU", (-1.0, 1.0): "RELU_N1_TO_1"}.get((lo, hi))
    if named is not None:
        b.op(named, [source], [b.output(node.output[0], perm)])
        return
    current = source
    shape = b.air.tensors[source].shape
    steps = [("MAXIMUM", lo)] if np.isfinite(lo) else []
    steps += [("MINIMUM", hi)] if np.isfinite(hi) else []
    if not steps:
        b.alias(node.output[0], node.input[0], perm)
        return
    for position, (op_type, bound) in enumerate(steps):
        last = position == len(steps) - 1
        target = b.output(node.output[0], perm) if last else b.tensor(shape, name=f"{node.output[0]}_low")
        limit = b.constant(np.array(bound, dtype=np.float32), f"{node.output[0]}_{op_type.lower()}")
        b.op(op_type, [current, limit], [target])
        current = target


def softmax(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    rank = len(b.shape_of(node.input[0]))
    axis = _axis(int(attr(node, "axis", -1)), rank)
    perm = b.perm_of(node.input[0])
    if perm[-1] != axis:
        moved = tuple(a for a in range(rank) if a != axis) + (axis,)
        perm = moved
    source = b.input(node.input[0], perm)
    out = b.output(node.output[0], perm)
    b.op("SOFTMAX", [source], [out], b.options("SOFTMAX", beta=1.0))


# -- pooling and reductions ---------------------------------------------------------------------
def pool(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    kernel = tuple(attr(node, "kernel_shape", []))
    if attr(node, "ceil_mode", 0):
        raise Unsupported("ceil_mode=1 is not supported")
    if node.op_type == "MaxPool" and (len(node.output) > 1 and node.output[1]):
        raise Unsupported("MaxPool's Indices output is not supported")
    w = _window(b, node, (int(kernel[0]), int(kernel[1])))
    if tuple(w["dilations"]) != (1, 1):
        raise Unsupported("pooling with dilations is not supported")
    if w["explicit"] is not None:
        raise Unsupported(f"pooling pads {w['pads']} are neither SAME nor VALID")
    if node.op_type == "AveragePool" and w["padding"] == "SAME" and any(w["pads"]):
        if attr(node, "count_include_pad", 0):
            raise Unsupported("AveragePool with count_include_pad=1 and padding is not supported")
    source = b.input(node.input[0], NHWC)
    out = b.output(node.output[0], NHWC)
    op_type = "MAX_POOL_2D" if node.op_type == "MaxPool" else "AVERAGE_POOL_2D"
    options = b.options(
        op_type,
        padding=w["padding"],
        stride_h=int(w["strides"][0]),
        stride_w=int(w["strides"][1]),
        filter_h=int(kernel[0]),
        filter_w=int(kernel[1]),
    )
    b.op(op_type, [source], [out], options)


def _mean(b: Builder, node: onnx.NodeProto, axes: list[int], keep: bool) -> None:
    _float_input(b, node.input[0])
    rank = len(b.shape_of(node.input[0]))
    axes = sorted({_axis(a, rank) for a in axes})
    perm = _layout_4d(b, node.input[0]) if rank == 4 else b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    air_axes = sorted(perm.index(a) for a in axes)
    if keep:
        out_perm = perm
    else:
        kept = [a for a in perm if a not in axes]
        order = sorted(kept)
        out_perm = tuple(order.index(a) for a in kept)
    out = b.output(node.output[0], out_perm)
    b.op("MEAN", [source, b.constant(np.array(air_axes), "axes")], [out], b.options("MEAN", keep_dims=keep))


def global_average_pool(b: Builder, node: onnx.NodeProto) -> None:
    rank = len(b.shape_of(node.input[0]))
    _mean(b, node, list(range(2, rank)), True)


def reduce_mean(b: Builder, node: onnx.NodeProto) -> None:
    rank = len(b.shape_of(node.input[0]))
    if len(node.input) > 1 and node.input[1]:
        axes = [int(a) for a in b.required_const(node.input[1], "ReduceMean axes")]
    else:
        axes = list(attr(node, "axes", []) or [])
    if not axes:
        if attr(node, "noop_with_empty_axes", 0):
            b.alias(node.output[0], node.input[0], b.perm_of(node.input[0]))
            return
        axes = list(range(rank))
    _mean(b, node, axes, bool(attr(node, "keepdims", 1)))


# -- shapes and data movement -------------------------------------------------------------------
def _feeds_dense_layers_only(b: Builder, name: str) -> bool:
    """Whether every reader of ``name`` is a Gemm or MatMul taking it as A with a constant 2-D B."""
    if name in b.graph.outputs:
        return False
    nodes = dict(b.graph.nodes)
    readers = b.graph.consumers().get(name, [])
    for index in readers:
        node = nodes[index]
        weight = b.const_value(node.input[1]) if len(node.input) > 1 else None
        if node.op_type not in ("Gemm", "MatMul") or b.graph.resolve(node.input[0]) != name:
            return False
        if weight is None or weight.ndim != 2 or attr(node, "transA", 0) or node.input[1] == node.input[0]:
            return False
    return bool(readers)


def reshape(b: Builder, node: onnx.NodeProto) -> None:
    """Reshape, Flatten, Squeeze, Unsqueeze: a RESHAPE to the inferred shape, of the input in its
    own layout when that keeps the bytes in ONNX order (only unit axes moved), else of the input
    laid out back in ONNX order. A feature map flattened for dense layers only is flattened
    straight from NHWC, and those layers permute their weights' columns instead."""
    shape = b.shape_of(node.input[0])
    perm = b.perm_of(node.input[0])
    target = b.shape_of(node.output[0])
    if (
        len(shape) == 4
        and perm == NHWC
        and not same_memory_order(shape, perm)
        and len(target) == 2
        and target[0] == shape[0]
        and _feeds_dense_layers_only(b, node.output[0])
    ):
        _, c, h, w = shape
        source = b.input(node.input[0], NHWC)
        out = b.output(node.output[0], (0, 1))
        b.values[node.output[0]].columns = (
            np.arange(c * h * w).reshape(c, h, w).transpose(1, 2, 0).reshape(-1)
        )
        b.op(
            "RESHAPE",
            [source, b.constant(np.array(target), "shape")],
            [out],
            b.options("RESHAPE", new_shape=target),
        )
        return
    if not same_memory_order(shape, perm):
        perm = identity(len(shape))
    source = b.input(node.input[0], perm)
    out = b.output(node.output[0], identity(len(target)))
    b.op(
        "RESHAPE",
        [source, b.constant(np.array(target), "shape")],
        [out],
        b.options("RESHAPE", new_shape=target),
    )


def transpose(b: Builder, node: onnx.NodeProto) -> None:
    """No operator: the output is the input's tensor in another ONNX layout."""
    rank = len(b.shape_of(node.input[0]))
    order = tuple(int(a) for a in (attr(node, "perm", None) or reversed(range(rank))))
    perm = b.perm_of(node.input[0])
    b.input(node.input[0], perm)  # the input must be computed
    inv = inverse(order)
    b.alias(node.output[0], node.input[0], tuple(inv[a] for a in perm))


def concat(b: Builder, node: onnx.NodeProto) -> None:
    rank = len(b.shape_of(node.output[0]))
    axis = _axis(int(attr(node, "axis", 0)), rank)
    perm = identity(rank)
    for name in node.input:
        if b.const_value(name) is None:
            perm = b.perm_of(name)
            break
    inputs = [b.input(name, perm) for name in node.input]
    out = b.output(node.output[0], perm)
    quant = b.air.tensors[out].quantization
    if quant is not None:  # QDQ: inputs quantized otherwise are requantized to the output's
        for position, tid in enumerate(inputs):
            source = b.air.tensors[tid]
            if source.quantization != quant:
                moved = b.tensor(
                    source.shape, source.dtype, name=f"{source.name}_requantized", quantization=quant
                )
                b.op("QUANTIZE", [tid], [moved])
                inputs[position] = moved
    options = b.options("CONCATENATION", axis=perm.index(axis), activation="NONE")
    b.op("CONCATENATION", inputs, [out], options)


def pad(b: Builder, node: onnx.NodeProto) -> None:
    _float_input(b, node.input[0])
    if attr(node, "mode", "constant") != "constant":
        raise Unsupported(f"Pad mode {attr(node, 'mode')!r}; only constant padding is supported")
    rank = len(b.shape_of(node.input[0]))
    pads = [int(p) for p in b.required_const(node.input[1], "Pad pads")]
    if len(node.input) > 3 and node.input[3]:
        axes = [_axis(int(a), rank) for a in b.required_const(node.input[3], "Pad axes")]
        full = [0] * (2 * rank)
        for i, a in enumerate(axes):
            full[a], full[rank + a] = pads[i], pads[len(axes) + i]
        pads = full
    if min(pads) < 0:
        raise Unsupported("negative pads (cropping) are not supported")
    value = b.const_value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    perm = b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    rows = np.array([[pads[a], pads[rank + a]] for a in perm])
    out = b.output(node.output[0], perm)
    paddings = b.constant(rows, "paddings")
    if value is None or float(value) == 0.0:
        b.op("PAD", [source, paddings], [out])
    else:
        fill = b.constant(np.array(value, dtype=np.float32).reshape(()), "pad_value")
        b.op("PADV2", [source, paddings, fill], [out])


def slice_(b: Builder, node: onnx.NodeProto) -> None:
    shape = b.shape_of(node.input[0])
    rank = len(shape)
    starts = [int(v) for v in b.required_const(node.input[1], "Slice starts")]
    ends = [int(v) for v in b.required_const(node.input[2], "Slice ends")]
    axes = (
        [_axis(int(v), rank) for v in b.required_const(node.input[3], "Slice axes")]
        if len(node.input) > 3 and node.input[3]
        else list(range(len(starts)))
    )
    steps = (
        [int(v) for v in b.required_const(node.input[4], "Slice steps")]
        if len(node.input) > 4 and node.input[4]
        else [1] * len(starts)
    )
    begin, end, stride = [0] * rank, list(shape), [1] * rank
    for axis, s, e, step in zip(axes, starts, ends, steps, strict=True):
        if step <= 0:
            raise Unsupported("Slice with a negative or zero step is not supported")
        dim = shape[axis]
        s = min(max(s + dim if s < 0 else s, 0), dim)
        e = min(max(e + dim if e < 0 else e, 0), dim)
        begin[axis], end[axis], stride[axis] = s, max(e, s), step
    perm = b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    out = b.output(node.output[0], perm)
    tensors = [
        b.constant(np.array([row[a] for a in perm]), n)
        for row, n in ((begin, "begin"), (end, "end"), (stride, "strides"))
    ]
    b.op("STRIDED_SLICE", [source, *tensors], [out], b.options("STRIDED_SLICE"))


LINEAR_RESIZE_MODES = ("half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners")
"""The coordinate transformations of a linear Resize (ONNX_RESIZE_BILINEAR computes each as
onnxruntime does)."""


def resize(b: Builder, node: onnx.NodeProto) -> None:
    """Nearest (asymmetric, floor): LiteRT's RESIZE_NEAREST_NEIGHBOR. Linear:
    ONNX_RESIZE_BILINEAR, onnxruntime's arithmetic, on float32 or, in a QDQ model between a
    DequantizeLinear and a QuantizeLinear, on int8 with the QuantizeLinear's parameters."""
    _float_input(b, node.input[0])
    shape, target = b.shape_of(node.input[0]), b.shape_of(node.output[0])
    if len(shape) != 4 or shape[:2] != target[:2]:
        raise Unsupported("only resizing the two spatial axes of a 4-D input is supported")
    mode = attr(node, "mode", "nearest")
    transform = attr(node, "coordinate_transformation_mode", "half_pixel")
    if attr(node, "antialias", 0) or attr(node, "axes", None) is not None:
        raise Unsupported("Resize with antialias or axes is not supported")
    if attr(node, "keep_aspect_ratio_policy", "stretch") != "stretch":
        raise Unsupported("Resize with a keep_aspect_ratio_policy other than stretch is not supported")
    if mode == "nearest":
        if transform != "asymmetric" or attr(node, "nearest_mode", "round_prefer_floor") != "floor":
            raise Unsupported(
                f"nearest resize with {transform} coordinates and "
                f"{attr(node, 'nearest_mode', 'round_prefer_floor')} rounding; "
                "supported: asymmetric with floor"
            )
        source = b.input(node.input[0], NHWC)
        size = b.constant(np.array(target[2:]), "size")
        out = b.output(node.output[0], NHWC)
        flags = {"align_corners": False, "half_pixel_centers": False}
        options = b.options("RESIZE_NEAREST_NEIGHBOR", **flags)
        b.op("RESIZE_NEAREST_NEIGHBOR", [source, size], [out], options)
        return
    if mode != "linear":
        raise Unsupported(f"resize mode {mode!r} is not supported")
    if transform not in LINEAR_RESIZE_MODES:
        raise Unsupported(
            f"linear resize with {transform} coordinates; supported: {', '.join(LINEAR_RESIZE_MODES)}"
        )
    scales = b.const_value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    height_scale = width_scale = 0.0  # from the sizes: output / input, as onnxruntime divides
    if scales is not None and np.asarray(scales).size:
        height_scale, width_scale = (float(np.float32(v)) for v in np.asarray(scales).reshape(-1)[2:4])
    source = b.input(node.input[0], NHWC)
    out = b.output(node.output[0], NHWC)
    tensor = b.air.tensors[out]
    if tensor.dtype == AirTensorType.INT8:  # a QDQ model: the QuantizeLinear after it quantizes
        tensor.quantization = b.output_quantization(node.output[0])
    options = b.options(
        "ONNX_RESIZE_BILINEAR",
        coordinate_transformation_mode=transform,
        height_scale=height_scale,
        width_scale=width_scale,
    )
    b.op("ONNX_RESIZE_BILINEAR", [source], [out], options)


def batch_norm(b: Builder, node: onnx.NodeProto) -> None:
    """A BatchNormalization not folded into a convolution: a MUL and an ADD per channel."""
    _float_input(b, node.input[0])
    gamma, beta, mean, var = (
        b.required_const(name, "BatchNormalization parameters").astype(np.float64) for name in node.input[1:5]
    )
    scale = gamma / np.sqrt(var + float(attr(node, "epsilon", 1e-5)))
    shift = beta - mean * scale
    rank = len(b.shape_of(node.input[0]))
    perm = b.perm_of(node.input[0])
    source = b.input(node.input[0], perm)
    shaped = (1, -1) + (1,) * (rank - 2)
    if b.graph.qdq and not b.float_mode:
        _batch_norm_int8(b, node, source, perm)
        return
    if b.graph.qdq:
        _batch_norm_float32(b, node, source, perm, shaped)
        return
    multiplier = b.constant(
        np.transpose(scale.reshape(shaped), perm).astype(np.float32), f"{node.output[0]}_scale"
    )
    offset = b.constant(
        np.transpose(shift.reshape(shaped), perm).astype(np.float32), f"{node.output[0]}_shift"
    )
    scaled = b.tensor(b.air.tensors[source].shape, name=f"{node.output[0]}_scaled")
    b.op("MUL", [source, multiplier], [scaled], b.options("MUL", activation="NONE"))
    out = b.output(node.output[0], perm)
    b.op("ADD", [scaled, offset], [out], b.options("ADD", activation="NONE"))


def _batch_norm_parameters(b: Builder, node: onnx.NodeProto) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A QDQ model's BatchNormalization as onnxruntime's float kernel and the exact-arithmetic
    model compute it, ``(x - mean) * (gamma / sqrt(var + eps)) + beta`` in float32: the mean,
    the multiplier and the offset (beta), one per channel."""
    gamma, beta, mean, var = (
        b.required_const(name, "BatchNormalization parameters").astype(np.float32) for name in node.input[1:5]
    )
    eps = np.float32(attr(node, "epsilon", 1e-5))
    return mean.reshape(-1), (gamma / np.sqrt(var + eps)).astype(np.float32).reshape(-1), beta.reshape(-1)


def _batch_norm_int8(b: Builder, node: onnx.NodeProto, source: TensorId, perm: Perm) -> None:
    """A BatchNormalization between a DequantizeLinear and a QuantizeLinear: one int8 operator
    (ONNX_BATCH_NORMALIZATION) doing the float32 steps per element, so no float32 tensor is
    needed between the dense layers."""
    mean, multiplier, offset = _batch_norm_parameters(b, node)
    params = [
        b.constant(v, f"{node.output[0]}_{label}")
        for v, label in ((mean, "mean"), (multiplier, "scale"), (offset, "bias"))
    ]
    out = b.output(node.output[0], perm)
    options = b.options("ONNX_BATCH_NORMALIZATION", axis=perm.index(1))
    b.op("ONNX_BATCH_NORMALIZATION", [source, *params], [out], options)


def _batch_norm_float32(b: Builder, node: onnx.NodeProto, source: TensorId, perm: Perm, shaped: Any) -> None:
    """A QDQ model's BatchNormalization (run on float between DEQUANTIZE and QUANTIZE) as
    ``(x - mean) * (gamma / sqrt(var + eps)) + beta`` in float32, the order onnxruntime's float
    kernel and the exact-arithmetic model compute it, so the rounding before QUANTIZE agrees."""
    mean, inv, beta = _batch_norm_parameters(b, node)
    shape = b.air.tensors[source].shape
    current = source
    steps = (("SUB", mean, "mean"), ("MUL", inv, "scale"), ("ADD", beta, "bias"))
    for position, (op_type, values, label) in enumerate(steps):
        param = b.constant(np.transpose(values.reshape(shaped), perm), f"{node.output[0]}_{label}")
        last = position == len(steps) - 1
        target = (
            b.output(node.output[0], perm) if last else b.tensor(shape, name=f"{node.output[0]}_{label}d")
        )
        b.op(op_type, [current, param], [target], b.options(op_type, activation="NONE"))
        current = target


def squeeze_like(b: Builder, node: onnx.NodeProto) -> None:
    reshape(b, node)


# -- QDQ ----------------------------------------------------------------------------------------
def quantize_linear(b: Builder, node: onnx.NodeProto) -> None:
    """No operator when the value is already int8 with these parameters (the node before it was
    made so); else a QUANTIZE from float, or a requantizing one from other parameters."""
    quant = b.quantize_linear_params(node)
    value = b.values.get(b.graph.resolve(node.input[0]))
    if value is None or value.tensor is None:
        raise Unsupported(f"input {node.input[0]!r} is not computed by any converted node")
    tensor = b.air.tensors[value.tensor]
    if tensor.dtype == AirTensorType.INT8 and tensor.quantization == quant:
        b.alias(node.output[0], node.input[0], value.perm)
        return
    out = b.tensor(tensor.shape, AirTensorType.INT8, name=node.output[0], quantization=quant)
    b.values[node.output[0]] = type(value)(value.shape, out, value.perm, columns=value.columns)
    b.op("QUANTIZE", [value.tensor], [out])


def dequantize_linear(b: Builder, node: onnx.NodeProto) -> None:
    """No operator: the readers take the int8 tensor (a model output gets a DEQUANTIZE)."""
    value = b.values.get(b.graph.resolve(node.input[0]))
    if value is None or value.tensor is None:
        raise Unsupported(f"input {node.input[0]!r} is not computed by any converted node")
    tensor = b.air.tensors[value.tensor]
    scale = b.required_const(node.input[1], "DequantizeLinear's scale")
    zero = b.const_value(node.input[2]) if len(node.input) > 2 else None
    want = b.quantization(
        np.asarray(scale).reshape(-1), np.asarray(zero if zero is not None else 0).reshape(-1)
    )
    if tensor.dtype != AirTensorType.INT8 or tensor.quantization != want:
        raise Unsupported("DequantizeLinear of a value that is not int8 with the same scale and zero point")
    b.alias(node.output[0], node.input[0], value.perm)


CONVERTERS: dict[str, Converter] = {
    "Conv": conv,
    "ConvTranspose": conv_transpose,
    "Gemm": gemm,
    "MatMul": matmul,
    **dict.fromkeys(_BINARY, binary),
    **dict.fromkeys(_UNARY, unary),
    "LeakyRelu": leaky_relu,
    "Clip": clip,
    "Softmax": softmax,
    "MaxPool": pool,
    "AveragePool": pool,
    "GlobalAveragePool": global_average_pool,
    "ReduceMean": reduce_mean,
    "Reshape": reshape,
    "Flatten": reshape,
    "Squeeze": squeeze_like,
    "Unsqueeze": squeeze_like,
    "Transpose": transpose,
    "Concat": concat,
    "Pad": pad,
    "Slice": slice_,
    "Resize": resize,
    "BatchNormalization": batch_norm,
    "QuantizeLinear": quantize_linear,
    "DequantizeLinear": dequantize_linear,
}
"""ONNX op_type -> converter (``Constant``, ``Identity``, ``Dropout`` and ``Shape`` of a static
value are folded before any converter runs)."""

__all__ = ["CONVERTERS", "Converter", "attr"]
