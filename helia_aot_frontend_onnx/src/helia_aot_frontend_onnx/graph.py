"""An ONNX file made ready for conversion: read, checked, shapes fixed and inferred, constants known.

The graph the node converters walk (:class:`OnnxGraph`) has a static shape for every value and
the contents of every value computable without the model's inputs: initializers, ``Constant``
nodes and whatever is computed from them alone (the ``Shape`` -> ``Gather`` -> ``Concat`` chains
an exporter writes for a flatten are folded here, by onnx's reference evaluator), so the
converters see only the nodes that run on data. ``BatchNormalization`` after a ``Conv`` or
``ConvTranspose`` whose output nothing else reads is folded into its weights and bias.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from helia_aot.errors import DynamicShapeError, ModelLoadError, UnsupportedModelError
from onnx import numpy_helper, shape_inference

MIN_OPSET = 13
"""The oldest default-domain opset the front end reads (Softmax, Squeeze and Split changed there)."""

FOLDED = frozenset({"Constant", "Shape", "Identity", "Dropout"})
"""Nodes that never reach a converter: constants, shapes of static values, pass-throughs."""


@dataclass(frozen=True, slots=True)
class QuantizedConstant:
    """A ``DequantizeLinear`` of a constant: the stored integers, the scale(s), the zero
    point(s) and the axis the per-channel parameters run along (ONNX's, of ``values``)."""

    values: np.ndarray
    scale: np.ndarray
    zero_point: np.ndarray
    axis: int


@dataclass(slots=True)
class OnnxGraph:
    """The main graph of a model, ready for the converters (see the module docstring).

    ``nodes`` are ``(index, node)`` in file order, without the folded ones; ``shapes`` and
    ``dtypes`` hold every value's static shape and numpy type; ``constants`` the values known
    before the model runs (a ``DequantizeLinear`` of a constant folded to float32, and kept in
    ``quantized`` as its integers and parameters too); ``qdq`` whether the model has any
    ``QuantizeLinear`` / ``DequantizeLinear`` node; ``aliases`` maps the output of a
    pass-through (Identity, Dropout) to the value it passes on; ``opset`` is the default domain's version.
    """

    name: str
    doc: str
    opset: int
    inputs: list[str]
    outputs: list[str]
    nodes: list[tuple[int, onnx.NodeProto]]
    all_nodes: list[onnx.NodeProto]
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    dtypes: dict[str, np.dtype[Any]] = field(default_factory=dict)
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    quantized: dict[str, QuantizedConstant] = field(default_factory=dict)
    qdq: bool = False

    def resolve(self, name: str) -> str:
        """The value ``name`` stands for, through pass-throughs."""
        while name in self.aliases:
            name = self.aliases[name]
        return name

    def consumers(self) -> dict[str, list[int]]:
        """Value name -> indices of the nodes that read it (after aliases)."""
        found: dict[str, list[int]] = {}
        for index, node in self.nodes:
            for name in node.input:
                if name:
                    found.setdefault(self.resolve(name), []).append(index)
        return found


def read_onnx(path: Path) -> onnx.ModelProto:
    """The file's ModelProto, or ModelLoadError saying why it cannot be read."""
    try:
        return onnx.load_model(str(path), load_external_data=True)
    except FileNotFoundError:
        raise ModelLoadError(f"model file not found: {path}", hint="check model.path") from None
    except Exception as exc:
        raise ModelLoadError(
            f"{Path(path).name} is not a readable ONNX model: {type(exc).__name__}: {exc}",
            hint="re-export the model (torch.onnx.export) or check that the file is complete",
        ) from exc


def model_opset(model: onnx.ModelProto) -> int:
    """The default domain's opset version; UnsupportedModelError below :data:`MIN_OPSET`."""
    versions = [int(o.version) for o in model.opset_import if o.domain in ("", "ai.onnx")]
    version = max(versions) if versions else 0
    if version < MIN_OPSET:
        raise UnsupportedModelError(
            f"the model uses ONNX opset {version}; the ONNX front end reads opset {MIN_OPSET} and later",
            hint=f"re-export with a newer opset (torch.onnx.export(..., opset_version={MIN_OPSET}) or "
            "later), or convert it with onnx.version_converter",
        )
    return version


def _fix_input_shapes(model: onnx.ModelProto, input_shapes: Mapping[str, Sequence[int]]) -> None:
    """Give every graph input a static shape: ``model.input_shapes`` where it names the input,
    else a batch of 1 for an unknown leading dimension; any other unknown dimension is a
    DynamicShapeError naming the input and the setting that fixes it."""
    initializers = {i.name for i in model.graph.initializer}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        dims = value.type.tensor_type.shape.dim
        if value.name in input_shapes:
            wanted = [int(d) for d in input_shapes[value.name]]
            if len(wanted) != len(dims):
                raise DynamicShapeError(
                    f"model.input_shapes gives input {value.name!r} {len(wanted)} dimensions; "
                    f"it has {len(dims)}",
                    hint="give one size per dimension",
                )
            for dim, size in zip(dims, wanted, strict=True):
                dim.Clear()
                dim.dim_value = size
            continue
        for position, dim in enumerate(dims):
            if dim.HasField("dim_value") and dim.dim_value > 0:
                continue
            if position == 0:
                dim.Clear()
                dim.dim_value = 1
                continue
            shown = ",".join(str(d.dim_value) if d.HasField("dim_value") else "N" for d in dims)
            raise DynamicShapeError(
                f"ONNX input {value.name!r} has an unknown size in dimension {position} ({shown})",
                hint=f"fix it with --model.input-shapes {value.name}=<sizes> (its real sizes, "
                "comma-separated)",
            )


def _dtype(elem_type: int) -> np.dtype[Any]:
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))


def _attribute(node: onnx.NodeProto, name: str, default: Any = None) -> Any:
    for attr in node.attribute:
        if attr.name == name:
            return onnx.helper.get_attribute_value(attr)
    return default


def _constant_value(node: onnx.NodeProto) -> np.ndarray:
    attr = node.attribute[0]
    value = onnx.helper.get_attribute_value(attr)
    if attr.name == "value":
        return numpy_helper.to_array(value)
    if attr.name in ("value_float", "value_int"):
        return np.array(value, dtype=np.float32 if attr.name == "value_float" else np.int64)
    if attr.name in ("value_floats", "value_ints"):
        return np.array(value, dtype=np.float32 if attr.name == "value_floats" else np.int64)
    raise UnsupportedModelError(f"Constant {node.name or node.output[0]!r} holds a {attr.name}")


def _evaluate(node: onnx.NodeProto, values: list[np.ndarray], opset: int) -> list[np.ndarray] | None:
    """``node`` run on constant ``values`` by onnx's reference evaluator (None if it cannot)."""
    from onnx.reference import ReferenceEvaluator

    inputs = [
        onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for name, v in zip(node.input, values, strict=False)
        if name
    ]
    outputs = [onnx.helper.make_empty_tensor_value_info(name) for name in node.output]
    graph = onnx.helper.make_graph([node], "fold", inputs, outputs)
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
    try:
        feeds = {name: v for name, v in zip(node.input, values, strict=False) if name}
        return [np.asarray(v) for v in ReferenceEvaluator(model).run(None, feeds)]
    except Exception:
        return None


def _fold_batch_norms(graph: OnnxGraph) -> None:
    """BatchNormalization folded into the Conv / ConvTranspose before it when that node's output
    feeds nothing else and its weights are constants: the scale multiplies each output channel's
    filter, the shift becomes (or adds to) the bias."""
    producers = {node.output[0]: (index, node) for index, node in graph.nodes if node.output}
    consumers = graph.consumers()
    removed: set[int] = set()
    for index, node in graph.nodes:
        if node.op_type != "BatchNormalization" or len(node.output) != 1:
            continue
        source = graph.resolve(node.input[0])
        producer = producers.get(source)
        params = [graph.constants.get(graph.resolve(name)) for name in node.input[1:5]]
        if producer is None or any(p is None for p in params) or len(consumers.get(source, [])) != 1:
            continue
        conv = producer[1]
        if conv.op_type not in ("Conv", "ConvTranspose") or source in graph.outputs:
            continue
        weight = graph.constants.get(graph.resolve(conv.input[1]))
        if weight is None or weight.dtype != np.float32:
            continue
        gamma, beta, mean, var = (np.asarray(p, dtype=np.float64) for p in params)
        eps = float(_attribute(node, "epsilon", 1e-5))
        scale = gamma / np.sqrt(var + eps)
        bias_name = graph.resolve(conv.input[2]) if len(conv.input) > 2 and conv.input[2] else ""
        bias = graph.constants.get(bias_name) if bias_name else np.zeros(scale.shape)
        if bias is None:
            continue
        if conv.op_type == "Conv":
            folded = weight.astype(np.float64) * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
        else:  # ConvTranspose: (in, out / group, kh, kw); a group of 1 only
            if int(_attribute(conv, "group", 1)) != 1:
                continue
            folded = weight.astype(np.float64) * scale.reshape((1, -1) + (1,) * (weight.ndim - 2))
        new_bias = (np.asarray(bias, dtype=np.float64) - mean) * scale + beta
        weight_name = f"{conv.output[0]}__bn_weight"
        new_bias_name = f"{conv.output[0]}__bn_bias"
        graph.constants[weight_name] = folded.astype(np.float32)
        graph.constants[new_bias_name] = new_bias.astype(np.float32)
        graph.shapes[weight_name] = tuple(weight.shape)
        graph.shapes[new_bias_name] = tuple(new_bias.shape)
        del conv.input[1:]
        conv.input.extend([weight_name, new_bias_name])
        graph.aliases[node.output[0]] = source
        removed.add(index)
    graph.nodes = [(i, n) for i, n in graph.nodes if i not in removed]


def _record_quantized(graph: OnnxGraph, node: onnx.NodeProto, names: list[str]) -> bool:
    """Fold a constant's DequantizeLinear to float32 and keep its integers and parameters."""
    scale = graph.constants.get(names[1]) if len(names) > 1 else None
    zero = graph.constants.get(names[2]) if len(names) > 2 and names[2] else None
    if scale is None:
        return False
    values = np.asarray(graph.constants[names[0]])
    axis = int(_attribute(node, "axis", 1))
    scale = np.asarray(scale, dtype=np.float32).reshape(-1)
    zero = np.zeros(scale.shape, np.int64) if zero is None else np.asarray(zero, np.int64).reshape(-1)
    axis = axis + values.ndim if axis < 0 else axis
    shape = [1] * values.ndim
    if scale.size > 1:
        shape[axis] = scale.size
    centred = (values.astype(np.int64) - zero.reshape(shape if scale.size > 1 else ())).astype(np.float32)
    name = node.output[0]
    graph.constants[name] = (centred * scale.reshape(shape if scale.size > 1 else ())).astype(np.float32)
    graph.shapes[name] = tuple(values.shape)
    graph.dtypes[name] = np.dtype(np.float32)
    graph.quantized[name] = QuantizedConstant(values, scale, zero, axis)
    return True


def prepare_graph(model: onnx.ModelProto, input_shapes: Mapping[str, Sequence[int]]) -> OnnxGraph:
    """The model's main graph, ready for conversion (see the module docstring)."""
    opset = model_opset(model)
    model = onnx.ModelProto.FromString(model.SerializeToString())  # edited below: a private copy
    _fix_input_shapes(model, input_shapes)
    try:
        model = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as exc:
        raise ModelLoadError(
            f"ONNX shape inference failed: {type(exc).__name__}: {exc}",
            hint="check the model with onnx.checker.check_model(model, full_check=True)",
        ) from exc
    g = model.graph
    initializers = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    graph = OnnxGraph(
        name=g.name or "model",
        doc=model.doc_string or g.doc_string or "",
        opset=opset,
        inputs=[v.name for v in g.input if v.name not in initializers],
        outputs=[v.name for v in g.output],
        nodes=[],
        all_nodes=list(g.node),
    )
    for value in [*g.input, *g.value_info, *g.output]:
        tensor = value.type.tensor_type
        if not value.type.HasField("tensor_type") or not tensor.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
        if all(d >= 0 for d in dims):
            graph.shapes[value.name] = tuple(int(d) for d in dims)
        if tensor.elem_type:
            graph.dtypes[value.name] = _dtype(tensor.elem_type)
    for name, array in initializers.items():
        graph.constants[name] = array
        graph.shapes[name] = tuple(array.shape)
        graph.dtypes[name] = array.dtype
    for index, node in enumerate(g.node):
        if node.domain not in ("", "ai.onnx"):
            graph.nodes.append((index, node))
            continue
        if node.op_type == "Constant":
            value = _constant_value(node)
            graph.constants[node.output[0]] = value
            graph.shapes[node.output[0]] = tuple(value.shape)
            graph.dtypes[node.output[0]] = value.dtype
            continue
        if node.op_type in ("Identity", "Dropout") and node.input:
            graph.aliases[node.output[0]] = node.input[0]
            continue
        if node.op_type == "Shape":
            shape = graph.shapes.get(graph.resolve(node.input[0]))
            if shape is not None:
                start, end = _attribute(node, "start", 0), _attribute(node, "end", None)
                value = np.array(shape[start:end], dtype=np.int64)
                graph.constants[node.output[0]] = value
                graph.shapes[node.output[0]] = tuple(value.shape)
                graph.dtypes[node.output[0]] = value.dtype
                continue
        names = [graph.resolve(n) for n in node.input]
        if node.op_type in ("QuantizeLinear", "DequantizeLinear"):
            graph.qdq = True
            if node.op_type == "DequantizeLinear" and names and names[0] in graph.constants:
                if _record_quantized(graph, node, names):
                    continue
        if names and all(not n or n in graph.constants for n in names):
            results = _evaluate(node, [graph.constants[n] for n in names if n], opset)
            if results is not None:
                for name, value in zip(node.output, results, strict=False):
                    graph.constants[name] = value
                    graph.shapes[name] = tuple(value.shape)
                    graph.dtypes[name] = value.dtype
                continue
        graph.nodes.append((index, node))
    _fold_batch_norms(graph)
    return graph


__all__ = [
    "FOLDED",
    "MIN_OPSET",
    "OnnxGraph",
    "QuantizedConstant",
    "model_opset",
    "prepare_graph",
    "read_onnx",
]
