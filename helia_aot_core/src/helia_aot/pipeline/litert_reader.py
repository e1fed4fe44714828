"""The core's LiteRT front end: the reader the ``litert`` model loader names.

Load for LiteRT is :func:`~helia_aot.pipeline.load.load_model` (the file read once, the model
hooks run, every node checked, AIR built by the parsers of the operator packs); this class is
how a conversion and ``helia-aot check`` reach it through the model-loader registry, exactly as
they reach any other front end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel, TensorId, c_identifier
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import read_model
from helia_aot.converters.loaders import LoadCheck, ModelReader
from helia_aot.errors import UnsupportedModelError
from helia_aot.pipeline.load import (
    build_tensors,
    load_model,
    load_view,
    naming_dynamic_inputs,
    parse_operators,
)

if TYPE_CHECKING:
    from helia_aot.config.args import ConvertArgs
    from helia_aot.registry.context import RegistryContext


class LiteRTReader(ModelReader):
    """Reads LiteRT flatbuffers (``.tflite``) into AIR."""

    def load(self, path: Path, config: ConvertArgs, context: RegistryContext) -> AirModel:
        model = load_model(path, config.model.subgraph, context, config.model.input_shapes)
        model.metadata["source_format"] = "litert"
        return model

    @contextmanager
    def explaining(self, path: Path, config: ConvertArgs) -> Iterator[None]:
        """An error of a model with inputs of unknown size names them (``naming_dynamic_inputs``)."""
        with naming_dynamic_inputs(path, config.model.subgraph, config.model.input_shapes):
            yield

    def check(self, path: Path, config: ConvertArgs, context: RegistryContext) -> LoadCheck:
        subgraph = config.model.subgraph
        listed = _file_operators(path, subgraph)
        shapes = config.model.input_shapes
        try:
            view = load_view(path, subgraph, context, shapes)
        except UnsupportedModelError as error:
            return LoadCheck(listed, _view_problems(error))
        air = AirModel(name=c_identifier(path.stem, fallback="model"))
        build_tensors(view.subgraph, air)
        air.inputs = [TensorId(str(i)) for i in view.subgraph.inputs]
        air.outputs = [TensorId(str(i)) for i in view.subgraph.outputs]
        blocked = getattr(context, "blocked_plugins", None)
        failures = parse_operators(view.subgraph, view.node, air, context.litert_parsers, blocked)
        if failures:
            problems: dict[int, list[str]] = {}
            for index, _key, reason, _hint in failures:
                problems.setdefault(int(index), []).append(str(reason))
            return LoadCheck(listed, problems, air)
        return LoadCheck(listed, {}, self.load(path, config, context), complete=True)

    def notes(self, path: Path, config: ConvertArgs) -> list[tuple[str, str]]:
        """Rows ``helia-aot check`` adds when something fails: the inputs of unknown size."""
        return _unfixed_inputs(path, config)


def _file_operators(path: Path, subgraph: int) -> list[tuple[int, str]]:
    """(index, key) of each operator of the file's subgraph, as the user wrote it (before any
    model hook removes or fuses one)."""
    model = read_model(path)
    subgraphs = sa.subgraphs_of(model)
    if not 0 <= subgraph < len(subgraphs):
        return []  # load_view names the bad index
    return [
        (index, sa.op_key(model, node)) for index, node in enumerate(sa.operators_of(subgraphs[subgraph]))
    ]


def _view_problems(error: UnsupportedModelError) -> dict[int, list[str]]:
    """The tensor and operator problems Load collected, by the file index of each operator they
    concern (-1: a tensor no operator uses)."""
    found: dict[int, list[str]] = {}
    details: list[dict[str, Any]] = (
        error.details if isinstance(error.details, list) else [{"operators": [], "reason": error.message}]
    )
    for problem in details:
        operators = problem.get("operators") or [{"index": -1}]
        for op in operators:
            found.setdefault(int(op["index"]), []).append(str(problem["reason"]))
    return found


def _unfixed_inputs(path: Path, config: ConvertArgs) -> list[tuple[str, str]]:
    """The inputs of unknown size ``model.input_shapes`` leaves open, as the conversion's
    DynamicShapeError names them."""
    # Imported here, as load.py does: only a check that found a problem needs it.
    from helia_aot.pipeline.input_shapes import dynamic_inputs

    found = dynamic_inputs(read_model(path), config.model.subgraph)
    rows = []
    for dynamic in found:
        if dynamic.name in config.model.input_shapes:
            continue
        fix = f"fix it with --model.input-shapes {dynamic.flag()} (with its real sizes)"
        rows.append((f"(model input {dynamic.name!r})", f"{dynamic.sentence()}; {fix}"))
    return rows


__all__ = ["LiteRTReader"]
