"""Loading the subgraphs that control-flow operators (IF, WHILE) run into the one AIR model.

The main subgraph is parsed first. Each operator whose options are
:class:`~helia_aot.air.AirControlFlowOptions` names the model file's subgraphs it runs; every one
is read and checked like the main one (``subgraph_view``), parsed into a model of its own (so the
parsers keep using LiteRT tensor indices as ids), then merged: its tensors and operators get ids
prefixed with a fresh region name (``r1_4``), fresh tensor names, and its operators the region
tag. The merged operators go right after their owner, nested regions after their own owner, which
is the layout :func:`helia_aot.air.region_layout` reads. A subgraph two operators run is loaded
twice, as two regions (each with its own tensors), so every region has one owner; a subgraph that
runs itself, directly or not, is refused (the emitted C has no stack of activations).
"""

from __future__ import annotations

from collections.abc import Callable

from helia_aot.air import AirControlFlowOptions, AirModel, AirOperator, AirRegion, OpId, TensorId
from helia_aot.converters.litert.view import ModelView, SubgraphView
from helia_aot.converters.litert.view_builder import subgraph_view
from helia_aot.errors import UnsupportedModelError

Failure = tuple[int, str, str, str | None]
"""An operator that cannot be parsed: (index, key, reason, install hint or None)."""

ParseSubgraph = Callable[[SubgraphView, AirModel], list[Failure]]
"""Adds a subgraph's tensors and parsed operators to a model; returns the operators that failed."""


class _RegionLoader:
    def __init__(self, view: ModelView, air: AirModel, parse: ParseSubgraph) -> None:
        self.view = view
        self.air = air
        self.parse = parse
        self.failures: list[Failure] = []
        self.count = 0

    def expand(self, operators: list[AirOperator], stack: tuple[int, ...]) -> list[AirOperator]:
        """``operators`` with each owner's region operators inserted after it, recursively."""
        result: list[AirOperator] = []
        for op in operators:
            result.append(op)
            options = op.options
            if not isinstance(options, AirControlFlowOptions):
                continue
            names: list[str] = []
            for subgraph in options.subgraphs:
                if subgraph in stack:
                    chain = " -> ".join(str(s) for s in (*stack, subgraph))
                    raise UnsupportedModelError(
                        f"operator {op.id} ({op.op_type}) runs subgraph {subgraph}, which is already "
                        f"running (subgraphs {chain}): recursion is not supported",
                        hint="unroll the recursion into a WHILE loop before converting",
                    )
                self.count += 1
                name = f"r{self.count}"
                names.append(name)
                result.extend(self.load(subgraph, name, op, type(options).LOOPS, (*stack, subgraph)))
            options.regions = tuple(names)
        return result

    def load(
        self, subgraph: int, name: str, owner: AirOperator, loops: bool, stack: tuple[int, ...]
    ) -> list[AirOperator]:
        view = subgraph_view(self.view.node, subgraph, self.view.arities)
        part = AirModel(name=name)
        failures = self.parse(view, part)
        if failures:
            self.failures += [
                (i, key, f"in subgraph {subgraph}: {why}", hint) for i, key, why, hint in failures
            ]
            return []
        ids = {tid: TensorId(f"{name}_{tid}") for tid in part.tensors}
        for tid, tensor in part.tensors.items():
            tensor.id = ids[tid]
            tensor.name = self.air.unique_tensor_name(tensor.source_name or tensor.name)
            self.air.add_tensor(tensor)
        for op in part.operators:
            op.id = OpId(f"{name}_{op.id}")
            op.input_ids = [ids[t] if t else t for t in op.input_ids]
            op.output_ids = [ids[t] for t in op.output_ids]
            op.named_tensors = {key: ids[t] for key, t in op.named_tensors.items()}
            op.region = name
        self.air.regions[name] = AirRegion(
            name=name,
            subgraph=subgraph,
            owner=OpId(owner.id),
            inputs=[ids[TensorId(str(i))] for i in view.inputs],
            outputs=[ids[TensorId(str(i))] for i in view.outputs],
            loops=loops,
        )
        return self.expand(part.operators, stack)


def load_regions(view: ModelView, air: AirModel, parse: ParseSubgraph) -> list[Failure]:
    """Merge every subgraph ``air``'s control-flow operators run into ``air``; return parse failures.

    ``parse`` adds one subgraph's tensors and operators to a model (Load's own parsing step).
    """
    loader = _RegionLoader(view, air, parse)
    air.operators = loader.expand(list(air.operators), (view.subgraph.index,))
    return loader.failures


__all__ = ["Failure", "ParseSubgraph", "load_regions"]
