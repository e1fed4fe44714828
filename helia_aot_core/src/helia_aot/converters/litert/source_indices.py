"""Each operator's index in the model file, kept across the LiteRT model hooks.

Reports and plans name an operator by its index in the file the user gave (``source_indices``),
but a model hook may remove, insert or reorder operators before Load reads the subgraph (the
resource-variable hook drops VAR_HANDLE and CALL_ONCE, the GRU fusion replaces three operators by
one), so an operator's position after the hooks is not its index. Load therefore marks every
operator object with its position before any hook runs; the mark is an attribute of the
``OperatorT``, so it moves with the operator when a hook reorders the list and survives a hook
returning a deep copy. An operator a hook creates carries no mark: it stands for no index unless
its parser states the indices (as the fused GRU's options do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from helia_aot.converters.litert import schema_access as sa

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

SOURCE_INDEX_ATTRIBUTE = "helia_aot_source_index"
"""The ``OperatorT`` attribute holding the operator's index in the file's subgraph."""


def mark_source_indices(model: litert.ModelT) -> None:
    """Mark every operator of every subgraph with its current position, unless that subgraph
    already carries marks (so a hook can call this first and keep the indices Load marked)."""
    for subgraph in sa.subgraphs_of(model):
        operators = sa.operators_of(subgraph)
        if any(hasattr(op, SOURCE_INDEX_ATTRIBUTE) for op in operators):
            continue
        for position, op in enumerate(operators):
            setattr(op, SOURCE_INDEX_ATTRIBUTE, position)


def source_index(op: litert.OperatorT) -> int | None:
    """The file index ``op`` was marked with, or None for an operator a hook created."""
    value = getattr(op, SOURCE_INDEX_ATTRIBUTE, None)
    return int(value) if value is not None else None


def subgraph_is_marked(subgraph: litert.SubGraphT) -> bool:
    """Whether any operator of ``subgraph`` carries a mark (a model read without marking, or
    rebuilt from bytes by a hook, has none: its positions are then the best indices known)."""
    return any(hasattr(op, SOURCE_INDEX_ATTRIBUTE) for op in sa.operators_of(subgraph))


__all__ = ["SOURCE_INDEX_ATTRIBUTE", "mark_source_indices", "source_index", "subgraph_is_marked"]
