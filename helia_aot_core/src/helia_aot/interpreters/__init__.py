"""Reference execution: the LiteRT reference interpreter, for golden data (provisional API).

``create_interpreter(..., optimized=True)`` gives what ``Interpreter(model_path=...)`` gives a
user instead: LiteRT's optimized kernels and its default delegate (XNNPACK). ``helia-aot
validate`` compares the module with both, since the optimized kernels round some int8 operators
differently (see :mod:`helia_aot.validation.known_differences`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.errors import ReferenceExecutionError


@dataclass(slots=True)
class AirInterpreter:
    """Runs a LiteRT model with the reference kernels (ai-edge-litert, BUILTIN_REF resolver), or
    with the optimized ones an ``Interpreter()`` uses by default (``optimized``)."""

    model_path: Path
    _interpreter: Any
    optimized: bool = False

    def operator_names(self) -> list[str]:
        """The model's operators by their LiteRT names (``CONV_2D``), in execution order."""
        return [str(op["op_name"]) for op in self._interpreter._get_ops_details()]

    def output_producers(self) -> list[str | None]:
        """Per model output, the LiteRT name of the operator that writes it (None for an output
        that no operator writes: an input or a constant passed through)."""
        writers: dict[int, str] = {}
        for op in self._interpreter._get_ops_details():
            for index in op["outputs"]:
                writers[int(index)] = str(op["op_name"])
        return [writers.get(int(d["index"])) for d in self._interpreter.get_output_details()]

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
    model_path: Path | str, input_shapes: Sequence[Sequence[int]] | None = None, *, optimized: bool = False
) -> AirInterpreter:
    """An interpreter over ``model_path`` using LiteRT's reference op resolver (``optimized``: its
    default resolver, optimized kernels and the XNNPACK delegate, as ``Interpreter()`` has it).

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
        resolver = OpResolverType.AUTO if optimized else OpResolverType.BUILTIN_REF
        interpreter = Interpreter(model_path=str(model_path), experimental_op_resolver_type=resolver)
        for detail, shape in zip(interpreter.get_input_details(), input_shapes or ()):
            if tuple(int(d) for d in detail["shape"]) != tuple(int(d) for d in shape):
                interpreter.resize_tensor_input(detail["index"], [int(d) for d in shape], strict=False)
        interpreter.allocate_tensors()
    except Exception as exc:
        raise ReferenceExecutionError(
            f"the reference interpreter cannot load {model_path}: {exc}",
            hint="supply test.golden_data instead",
        ) from exc
    return AirInterpreter(Path(model_path), interpreter, optimized)


__all__ = ["AirInterpreter", "create_interpreter"]
