"""The two callables a pack registers for the LiteRT front end, as types mypy checks.

A parser turns one node of a LiteRT subgraph into one AIR operator; a model hook edits the whole
object-API model before Load checks it. Both read the object API ``read_model`` makes
(:mod:`helia_aot.litert.objects`), which has the attributes of the flatc bindings' classes
(``ModelT``, ``SubGraphT``, ...): they are typed with those classes, so a type checker checks
every attribute a parser reads against the schema. The parameters are positional only: packs
name them as they like.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.air import AirModel, AirOperator
    from helia_aot.litert import schema_py_generated as litert


class LiteRTParser(Protocol):
    """``parser(op_index, model, subgraph, air_model) -> AirOperator``: node ``op_index`` of
    ``subgraph`` (of ``model``) as one AIR operator; ``air_model`` holds the tensors built so far
    (a parser may add tensors the operator needs). A node it cannot lower raises
    :class:`~helia_aot.errors.UnsupportedModelError` or ValueError, which Load collects."""

    def __call__(
        self, op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel, /
    ) -> AirOperator: ...


class LiteRTModelHook(Protocol):
    """``hook(model) -> model | None``: edits ``model`` in place (None) or returns its replacement."""

    def __call__(self, model: litert.ModelT, /) -> litert.ModelT | None: ...


__all__ = ["LiteRTModelHook", "LiteRTParser"]
