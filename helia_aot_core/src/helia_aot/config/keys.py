"""Every configuration key as a flat list: the source of the docs table and of the CLI flags.

Walking the models rather than keeping a hand-written list means a new field appears in
``docs/configuration.md`` and as a ``helia-aot convert --<key>`` flag the moment it is declared.
"""

from __future__ import annotations

import enum
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from helia_aot.config.args import ConvertArgs
from helia_aot.config.base import Choices

REQUIRED: Any = PydanticUndefined
"""The ``default`` of a key that has none (it must be given)."""

API_ONLY_KEYS = frozenset({"result_views", "model.data"})
"""Keys that only make sense from Python, so the command line has no flag for them."""


@dataclass(slots=True, frozen=True)
class ConfigKey:
    """One configuration key: its dotted name, default, type and help, and its CLI flag.

    ``cli_flag`` is the product's spelling (``--memory.dump-residency-json``); the command line
    also takes the key's own spelling (``--memory.dump_residency_json``).
    """

    key: str
    default: Any
    type: str
    description: str
    annotation: Any
    cli_flag: str | None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def default_text(self) -> str:
        """The default as it would be written in YAML (``hill_climb``, ``[]``, ``null``)."""
        return "(required)" if self.required else yaml_text(self.default)

    @property
    def is_list(self) -> bool:
        return typing.get_origin(_strip_optional(self.annotation)) is list


def yaml_text(value: Any) -> str:
    """A value as a YAML flow scalar or collection, the way a user would type it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, Path):
        text = value.as_posix()
        return text if value.is_absolute() or text.startswith(".") else f"./{text}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {yaml_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _strip_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _nested(annotation: Any) -> str:
    text = type_text(annotation)
    return f"({text})" if " | " in text or " or " in text else text


def type_text(annotation: Any) -> str:
    """A short human name for a field's type: ``path``, ``int``, ``list of string``, ``a | b``."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        for extra in extras:
            if isinstance(extra, Choices):
                return " | ".join(extra.values())
        return type_text(base)
    if origin in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        text = " or ".join(type_text(arg) for arg in args)
        return f"{text} or null" if len(args) < len(typing.get_args(annotation)) else text
    if origin is list:
        (item,) = typing.get_args(annotation)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return "list of rules"
        return f"list of {_nested(item)}"
    if origin is dict:
        key, value = typing.get_args(annotation)
        return f"mapping of {_nested(key)} to {_nested(value)}"
    if origin is typing.Literal:
        return " | ".join(str(arg) for arg in typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " | ".join(str(member.value) for member in annotation)
    names = {str: "string", int: "int", float: "float", bool: "bool", Path: "path"}
    if annotation in names:
        return names[annotation]
    if annotation is Any:
        return "any"
    return getattr(annotation, "__name__", str(annotation))


def _walk(model: type[BaseModel], prefix: str, items: bool, cli: bool) -> list[ConfigKey]:
    keys: list[ConfigKey] = []
    for name, field in model.model_fields.items():
        dotted = f"{prefix}{name}"
        annotation = field.rebuild_annotation() if field.metadata else field.annotation
        section = field.annotation if isinstance(field.annotation, type) else None
        if section is not None and issubclass(section, BaseModel):
            keys.extend(_walk(section, f"{dotted}.", items, cli))
            continue
        default = field.get_default(call_default_factory=True)
        keys.append(
            ConfigKey(
                key=dotted,
                default=default,
                type=type_text(annotation),
                description=field.description or "",
                annotation=field.annotation,
                cli_flag=f"--{dotted.replace('_', '-')}" if cli and dotted not in API_ONLY_KEYS else None,
            )
        )
        item = typing.get_args(_strip_optional(field.annotation))
        if items and typing.get_origin(_strip_optional(field.annotation)) is list and item:
            if isinstance(item[0], type) and issubclass(item[0], BaseModel):
                keys.extend(_walk(item[0], f"{dotted}[].", items, cli=False))
    return keys


def config_keys(*, items: bool = False) -> list[ConfigKey]:
    """Every dotted configuration key with its default, in declaration order.

    With ``items`` the keys inside list entries follow their list (``operators[].type``); those
    have no CLI flag, since a whole list is given as one YAML value (``--operators '[...]'``).
    """
    return _walk(ConvertArgs, "", items, cli=True)


__all__ = ["API_ONLY_KEYS", "REQUIRED", "ConfigKey", "config_keys", "type_text", "yaml_text"]
