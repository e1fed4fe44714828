"""The checked, typed view of a LiteRT model that the Load stage builds AIR from.

The generated object API (``ModelT`` and friends) is the file as stored: optional vectors that may
be None or numpy arrays, indices nobody has checked, bytes where text is meant. The view is what
is left once :func:`~helia_aot.converters.litert.view_builder.build_view` has read and checked all
of it, once: Python ints and tuples, decoded constant data and quantization, the canonical
operator key, options of the class the operator takes. Every index in it names an existing tensor
(``-1`` marks an absent optional input), so building AIR from it needs no further checks.

The object-API nodes stay attached (``node``): model hooks edit them before the view is built, and
operator parsers still read their options from them (the parser signature plugins are written
against takes the object-API model and subgraph).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from helia_aot.air.types import AirQuantization, AirTensorType

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(frozen=True, slots=True, eq=False)
class TensorView:
    """One tensor of the converted subgraph, its element type, static shape and contents checked.

    ``shape`` is the shape the generated code uses: a dynamic batch (``-1`` first) runs as one
    sample, any other unknown dimension was rejected. ``data`` is the constant contents (a fresh
    array of ``shape``), None for a tensor computed at run time; the AIR tensor built from the
    view takes the array over (a view is built for one conversion and dropped once AIR exists).
    """

    index: int
    name: str
    dtype: AirTensorType
    shape: tuple[int, ...]
    buffer: int
    data: np.ndarray | None
    quantization: AirQuantization | None
    is_variable: bool


@dataclass(frozen=True, slots=True, eq=False)
class OperatorView:
    """One operator of the converted subgraph: its key, wiring and options, checked.

    ``inputs`` keep positions, an absent optional input being ``-1``; ``options`` is the builtin
    options object (of the class LiteRT reads for ``key``) or None when the file has none.
    """

    index: int
    key: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    intermediates: tuple[int, ...]
    options: object | None
    node: litert.OperatorT


@dataclass(frozen=True, slots=True, eq=False)
class SubgraphView:
    """The subgraph being converted: every tensor and operator, in file order, and its inputs and
    outputs (tensor indices)."""

    index: int
    tensors: tuple[TensorView, ...]
    operators: tuple[OperatorView, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    node: litert.SubGraphT


# Compared (two packs must not declare different counts for one key).
@dataclass(frozen=True, slots=True)
class Arity:
    """How many inputs and outputs an operator's LiteRT kernel accepts (``None``: no limit).

    ``optional`` lists input positions that may be absent (``-1``) or left off the end; every
    other position up to ``min_inputs`` must name a tensor. The pack that registers an operator
    declares its arity in its ``OperatorRecord`` (``arity=``; the context keeps them in
    ``litert_arities``): the core knows no operator's counts. An operator without one is not
    checked here (its parser must check what it reads).
    """

    min_inputs: int
    max_inputs: int | None
    min_outputs: int = 1
    max_outputs: int | None = 1
    optional: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class ModelView:
    """A LiteRT model as one conversion sees it.

    Only the subgraph being converted is read and checked here (as the LiteRT runtime prepares
    only the subgraphs it runs); the subgraphs its IF/WHILE operators run are read the same way
    when Load reaches them (``view_builder.subgraph_view``). ``subgraph_count`` is what option
    references to other subgraphs are checked against. ``name`` is how errors name the file;
    ``description`` is the file's text as stored: sanitize it before emitting.
    """

    name: str
    description: str
    subgraph_count: int
    subgraph: SubgraphView
    node: litert.ModelT
    arities: Mapping[str, Arity] = field(default_factory=dict)
    """The input and output counts the registered packs declare, by LiteRT key (the context's
    ``litert_arities``): the region subgraphs Load reaches later are checked against them too."""
    stored_blocks: Mapping[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    """The constants the file stored sparse, by (subgraph index, tensor index): the block each
    was stored in, one size per dimension (``sparsity.stored_block``); Load made them dense."""


__all__ = ["Arity", "ModelView", "OperatorView", "SubgraphView", "TensorView"]
