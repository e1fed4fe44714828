"""Reference execution: the LiteRT reference interpreter, for golden data (provisional API)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.errors import ReferenceExecutionError


@dataclass(slots=True)
class AirInterpreter:
    """Runs a LiteRT model with the reference kernels (ai-edge-litert, BUILTIN_REF resolver)."""

    model_path: Path
    _interpreter: Any

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """Run one sample; ``inputs`` in model input order, outputs returned in output order."""
        try:
            details = self._interpreter.get_input_details()
            for detail, value in zip(details, inputs):
                self._interpreter.set_tensor(
                    detail["index"], np.asarray(value, dtype=detail["dtype"]).reshape(detail["shape"])
                )
            self._interpreter.invoke()
            return [
                np.array(self._interpreter.get_tensor(d["index"]))
                for d in self._interpreter.get_output_details()
            ]
        except Exception as exc:
            raise ReferenceExecutionError(
                f"the reference interpreter failed on {self.model_path.name}: {exc}",
                hint="supply test.golden_data instead",
            ) from exc


def create_interpreter(
    model_path: Path | str, input_shapes: Sequence[Sequence[int]] | None = None
) -> AirInterpreter:
    """An interpreter over ``model_path`` using LiteRT's reference op resolver.

    ``input_shapes`` (one per model input, in order) resizes the inputs before the tensors are
    allocated, as an application calls ``resize_tensor_input``: a model converted with
    ``model.input_shapes`` runs at the shapes its module was generated for.
    Needs the optional extra ``helia-aot-core[reference]`` (ai-edge-litert).
    """
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError as exc:
        raise ReferenceExecutionError(
            "the reference interpreter (ai-edge-litert) is not installed",
            hint="pip install 'helia-aot-core[reference]', or supply test.golden_data",
        ) from exc
    try:
        interpreter = Interpreter(
            model_path=str(model_path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
        )
        for detail, shape in zip(interpreter.get_input_details(), input_shapes or ()):
            if tuple(int(d) for d in detail["shape"]) != tuple(int(d) for d in shape):
                interpreter.resize_tensor_input(detail["index"], [int(d) for d in shape], strict=False)
        interpreter.allocate_tensors()
    except Exception as exc:
        raise ReferenceExecutionError(
            f"the reference interpreter cannot load {model_path}: {exc}",
            hint="supply test.golden_data instead",
        ) from exc
    return AirInterpreter(Path(model_path), interpreter)


__all__ = ["AirInterpreter", "create_interpreter"]
