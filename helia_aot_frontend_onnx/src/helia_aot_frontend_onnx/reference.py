"""onnxruntime as the reference of ONNX models: golden data for the self test and ``validate``.

The module takes its inputs and gives its outputs in its own layout (NHWC images); the model
file runs in its own (NCHW). :class:`OnnxRuntimeReference` moves each sample between the two by
the perms the reader recorded (``metadata["source_layouts"]``). ``optimized=False`` runs the
session with every graph optimization off (each node as written, the closest onnxruntime has to a
reference), ``optimized=True`` as ``InferenceSession`` runs by default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from helia_aot.air import AirModel
from helia_aot.errors import ReferenceExecutionError
from helia_aot.golden import source_layout

from helia_aot_frontend_onnx.builder import inverse


class OnnxRuntimeReference:
    """One onnxruntime CPU session over an ONNX file, fed and read in the module's layouts."""

    def __init__(self, path: Path, model: AirModel, *, optimized: bool = False) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ReferenceExecutionError(
                "onnxruntime, which computes the expected outputs of ONNX models, is not installed",
                hint="pip install onnxruntime, or supply test.golden_data",
            ) from exc
        options = ort.SessionOptions()
        if not optimized:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ReferenceExecutionError(
                f"onnxruntime cannot load {Path(path).name}: {exc}", hint="supply test.golden_data instead"
            ) from exc
        self.model_path = Path(path)
        self.optimized = optimized
        self._model = model
        self._inputs = self._session.get_inputs()

    def operator_names(self) -> list[str]:
        """The model's nodes by their ONNX operator type, in file order."""
        import onnx

        return [str(node.op_type) for node in onnx.load_model(str(self.model_path)).graph.node]

    def output_producers(self) -> list[str | None]:
        import onnx

        graph = onnx.load_model(str(self.model_path)).graph
        writers = {name: str(node.op_type) for node in graph.node for name in node.output}
        return [writers.get(output.name) for output in graph.output]

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """One sample: ``inputs`` in the module's layouts and order; outputs likewise."""
        feeds: dict[str, Any] = {}
        for index, (spec, value) in enumerate(zip(self._inputs, inputs, strict=True)):
            perm = source_layout(self._model, "input", index)
            array = np.asarray(value, dtype=np.float32)
            tensor = self._model.tensors[self._model.inputs[index]]
            array = array.reshape(tensor.shape)
            if perm is not None:
                array = np.transpose(array, inverse(perm))
            feeds[spec.name] = np.ascontiguousarray(array)
        try:
            results = self._session.run(None, feeds)
        except Exception as exc:
            raise ReferenceExecutionError(
                f"onnxruntime failed on {self.model_path.name}: {exc}", hint="supply test.golden_data instead"
            ) from exc
        outputs = []
        for index, value in enumerate(results):
            perm = source_layout(self._model, "output", index)
            array = np.asarray(value)
            outputs.append(np.ascontiguousarray(np.transpose(array, perm)) if perm is not None else array)
        return outputs


__all__ = ["OnnxRuntimeReference"]
