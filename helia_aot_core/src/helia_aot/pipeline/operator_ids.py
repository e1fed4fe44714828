"""The ids an ``operators[]`` rule may name an operator by: its plan id or its index.

The plan id is stable across re-conversions of an edited model where the index is not: it is
``<subgraph>:<name of the first output tensor>`` (the subgraph an IF/WHILE region came from for
its operators), with ``#<k>`` (k from 1) appended when several
operators' first outputs share a name, ``<subgraph>:<OP_TYPE>@<position>`` when the output has no
name, and the operator's index when one of those forms would still name two operators. The index
(the AIR operator id, ``"0"``, ``"1"``, ...) is always accepted as well.
"""

from __future__ import annotations

from collections import Counter

from helia_aot.air import AirModel


def plan_operator_id_sources(model: AirModel, subgraph: int = 0) -> dict[str, tuple[str, str]]:
    """Every operator's plan id and how it was made (the plan's ``id_source``), keyed by AIR id."""
    names: list[str] = []
    for op in model.operators:
        tensor = model.tensors.get(op.output_ids[0]) if op.output_ids else None
        names.append((tensor.source_name or tensor.name) if tensor is not None else "")
    repeats = Counter(name for name in names if name)
    seen: Counter[str] = Counter()
    candidates: list[tuple[str, str]] = []
    for position, (op, name) in enumerate(zip(model.operators, names, strict=True)):
        # An IF/WHILE region's operator is named in the model file's subgraph it came from.
        home = model.regions[op.region].subgraph if op.region in model.regions else subgraph
        if not name:
            candidates.append((f"{home}:{op.op_type}@{position}", "index"))
        elif repeats[name] > 1:
            seen[name] += 1
            candidates.append((f"{home}:{name}#{seen[name]}", "tensor_name+ordinal"))
        else:
            candidates.append((f"{home}:{name}", "tensor_name"))
    taken = Counter(candidate for candidate, _ in candidates)
    node_ids = {str(op.id) for op in model.operators}
    return {
        str(op.id): (candidate, source)
        if taken[candidate] == 1 and candidate not in node_ids
        else (str(op.id), "node_id")
        for op, (candidate, source) in zip(model.operators, candidates, strict=True)
    }


def plan_operator_ids(model: AirModel, subgraph: int = 0) -> dict[str, str]:
    """The plan id of every operator, keyed by its AIR id, in execution order."""
    return {op_id: plan_id for op_id, (plan_id, _) in plan_operator_id_sources(model, subgraph).items()}


def operator_aliases(model: AirModel, subgraph: int = 0) -> dict[str, frozenset[str]]:
    """Every id a rule may name each operator by (its AIR id and its plan id), keyed by AIR id."""
    plan_ids = plan_operator_ids(model, subgraph)
    return {str(op.id): frozenset({str(op.id), plan_ids[str(op.id)]}) for op in model.operators}


__all__ = ["operator_aliases", "plan_operator_id_sources", "plan_operator_ids"]
