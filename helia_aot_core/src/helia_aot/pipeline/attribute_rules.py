"""Checking ``operators[]`` attribute rules against the registry, before the model loads.

The configuration cannot know which attributes an operator declares (plugins add operators and
attributes), so the converter checks each rule against the ``ATTRIBUTES`` models of the operator
classes the rule reaches in its registry context. Doing it before the model loads means a typo such
as ``code_placment`` fails in milliseconds, naming the nearest valid key, instead of after parsing.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from helia_aot.errors import InvalidConfigError

if TYPE_CHECKING:
    from helia_aot.config.rules import OperatorRule
    from helia_aot.registry.context import RegistryContext

REMOVED_KEYS = {
    "scratch_placement": "scratch tensors are placed with memory.tensors[] rules (type: scratch)",
}
"""Attribute keys older configurations used, with what replaced them."""


def _fields(attributes_cls: type) -> dict[str, Any]:
    fields = getattr(attributes_cls, "__pydantic_fields__", None)
    if fields is not None:
        return dict(fields)
    if dataclasses.is_dataclass(attributes_cls):
        return {f.name: f for f in dataclasses.fields(attributes_cls)}
    return {}


def takes_free_form_keys(attributes_cls: type) -> bool:
    """Whether the model keeps keys it does not declare (``extra="allow"``)."""
    config = getattr(attributes_cls, "__pydantic_config__", None) or {}
    return config.get("extra") == "allow"


def _annotation(field: Any) -> Any:
    return getattr(field, "annotation", None) or getattr(field, "type", Any)


def _reached(rule: OperatorRule, context: RegistryContext) -> list[tuple[str, type | None]]:
    classes = context.aot_operator_classes
    rule_type = str(rule.type or "*")
    keys = list(classes.keys()) if rule_type == "*" else [rule_type]
    return [(key, getattr(classes.get(key), "ATTRIBUTES", None)) for key in keys if key in classes]


def check_operator_rules(rules: Iterable[OperatorRule], context: RegistryContext) -> None:
    """Raise InvalidConfigError for an attribute key or value no operator the rule reaches takes.

    A rule for one type whose operator takes free-form keys accepts any key it does not declare; a
    ``type: "*"`` rule is checked against the operators that declare their keys. A rule for a type
    no registered class lowers reaches nothing here: if the model has such an operator, Load
    reports it with the operator pack that provides it, which says more than a rule check could.
    """
    for index, rule in enumerate(rules or ()):
        attributes = dict(rule.attributes or {})
        if not attributes:
            continue
        reached = [(key, cls) for key, cls in _reached(rule, context) if cls is not None]
        for name, value in attributes.items():
            _check_key(f"operators[{index}]", name, value, reached)


def _check_key(where: str, name: str, value: Any, reached: list[tuple[str, type]]) -> None:
    if name in REMOVED_KEYS:
        raise InvalidConfigError(f"{where}.attributes.{name} was removed", hint=REMOVED_KEYS[name])
    declaring = [(key, cls) for key, cls in reached if name in _fields(cls)]
    strict = [(key, cls) for key, cls in reached if not takes_free_form_keys(cls)]
    if not declaring:
        if not strict:
            return  # every operator the rule reaches keeps undeclared keys as written
        valid = sorted({field for _, cls in strict for field in _fields(cls)})
        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
        hint = f"did you mean {close[0]!r}?" if close else None
        raise InvalidConfigError(
            f"{where}.attributes has key {name!r}, which no operator the rule reaches takes",
            hint=(hint + " " if hint else "") + f"valid keys: {', '.join(valid) or 'none'}",
            details={"key": name, "valid": valid},
        )
    problems = []
    for key, cls in declaring:
        try:
            TypeAdapter(_annotation(_fields(cls)[name])).validate_python(value)
            return
        except ValidationError as exc:
            problems.append(f"{key}: {exc.errors()[0].get('msg', exc)}")
    raise InvalidConfigError(
        f"{where}.attributes.{name} = {value!r} is not a value the operators take",
        hint="; ".join(problems[:3]),
        details=problems,
    )


__all__ = ["REMOVED_KEYS", "check_operator_rules", "takes_free_form_keys"]
