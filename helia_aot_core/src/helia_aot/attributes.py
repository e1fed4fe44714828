"""AttributeRuleset: the shape shared by ``operators[]`` and ``memory.tensors[]`` rules.

A rule reaches the entities whose type matches ``type`` (``"*"`` for any, compared ignoring case)
and, when ``id`` is given, whose id is ``id`` or one of a list of ids; it then sets
``attributes``. The configuration's own rule types (``helia_aot.config``) add their sections'
checks on top; this record is the product's public name for the common shape, for scripts that
build or inspect rules. Its matching is the configuration's own (``helia_aot.config.rules``
``rule_ids`` and ``rule_reaches``, which Resolve applies to every ``operators[]`` rule), so a rule
built here reaches exactly the operators the same rule in a configuration reaches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from helia_aot.config.rules import rule_ids, rule_reaches


class AttributeRuleset(BaseModel):
    """``type`` (or ``"*"``), an optional ``id`` or list of ids, and the ``attributes`` to set."""

    model_config = ConfigDict(extra="forbid")

    type: str = "*"
    id: str | list[str] | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)

    def ids(self) -> tuple[str, ...]:
        """The ids the rule names (empty when it names none)."""
        return tuple(rule_ids(self.id))

    def matches(self, entity_type: str, entity_ids: Iterable[str]) -> bool:
        """Whether the rule reaches an entity of ``entity_type`` known by any of ``entity_ids``
        (:func:`rule_reaches`)."""
        return rule_reaches(self.type, self.id, entity_type, entity_ids)

    def specificity(self) -> int:
        """Rule precedence: type and id (3) > id only (2) > type only (1) > neither (0)."""
        return (2 if self.id is not None else 0) + (1 if self.type != "*" else 0)


__all__ = ["AttributeRuleset"]
