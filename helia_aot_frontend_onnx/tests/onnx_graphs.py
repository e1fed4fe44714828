"""Small ONNX models written with ``onnx.helper`` (no torch needed), and their golden data from
onnxruntime at inputs whose outputs vary, in the model's own (NCHW) layout."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    """Nodes and initializers gathered while a test model is written."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def name(self, stem: str) -> str:
        self._count += 1
        return f"{stem}{self._count}"

    def const(self, array: np.ndarray | float | Sequence[int], stem: str = "c") -> str:
        value = np.asarray(array)
        if value.dtype == np.float64:
            value = value.astype(np.float32)
        name = self.name(stem)
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def weights(self, shape: tuple[int, ...], scale: float = 0.4, stem: str = "w") -> str:
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32), stem)

    def positive(self, shape: tuple[int, ...], stem: str = "p") -> str:
        return self.const((np.abs(self.rng.standard_normal(shape)) + 0.5).astype(np.float32), stem)

    def node(self, op_type: str, inputs: Sequence[str], **attrs: object) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def model(
        self, inputs: dict[str, Sequence[int | str]], outputs: Sequence[str], opset: int = OPSET
    ) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "test_graph",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s)) for n, s in inputs.items()],
            [],
            self.initializers,
        )
        del graph.output[:]
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        # The outputs' types as shape inference gives them (what an exporter writes).
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
        model.graph.output.extend(inferred[name] for name in outputs)
        onnx.checker.check_model(model)
        return model


def save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, str(path))
    return path


def golden(model_path: Path, path: Path, samples: int = 2, seed: int = 1) -> tuple[Path, list[np.ndarray]]:
    """``input_i`` / ``output_j`` from onnxruntime's default CPU session, NCHW as the file has them."""
    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    specs = session.get_inputs()
    feeds = [
        [
            rng.uniform(-2.0, 2.0, [d if isinstance(d, int) else 1 for d in spec.shape]).astype(np.float32)
            for spec in specs
        ]
        for _ in range(samples)
    ]
    results = [session.run(None, {s.name: v for s, v in zip(specs, feed, strict=True)}) for feed in feeds]
    arrays = {f"input_{i}": np.stack([f[i] for f in feeds]) for i in range(len(specs))}
    outputs = [np.stack([r[j] for r in results]) for j in range(len(results[0]))]
    arrays.update({f"output_{j}": o for j, o in enumerate(outputs)})
    for j, out in enumerate(outputs):  # golden data whose outputs vary, or the check proves little
        assert np.ptp(out) > 1e-3, f"output {j} hardly varies"
    np.savez(path, **arrays)
    return path, outputs


def int8_boundaries(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of a QDQ model with one input and one output, without the QuantizeLinear of its
    float input and the DequantizeLinear of its float output: int8 in and out, the interface of
    a LiteRT int8 model (the quantized values pass through unchanged)."""
    copy = onnx.ModelProto.FromString(model.SerializeToString())
    g = copy.graph
    (source,), (result,) = g.input, g.output
    first = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == source.name)
    last = next(n for n in g.node if n.op_type == "DequantizeLinear" and n.output[0] == result.name)
    renames = {first.output[0]: source.name, last.input[0]: result.name}
    g.node.remove(first)
    g.node.remove(last)
    for node in g.node:
        for names in (node.input, node.output):
            for i, name in enumerate(names):
                names[i] = renames.get(name, name)
    for value in (source, result):
        value.type.tensor_type.elem_type = TensorProto.INT8
    return copy
