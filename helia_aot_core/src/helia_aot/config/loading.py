"""Reading configuration files and turning validation failures into one readable listing.

The YAML file and the command line are two layers of the same mapping: the file is read, then the
command-line values are laid over it key by key. Relative paths in either are left as written, so
they resolve from the working directory (the product's rule), wherever the file is. Only then is
the whole mapping validated, so one listing reports every problem whichever layer it came from.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from helia_aot.errors import HeliaAotError, InvalidConfigError

CONFIG_HINT = "helia-aot convert --help lists every key with its default"
"""Names what a pip user has (the docs/ pages come with the sources, not the wheel)."""


@functools.cache
def _strict_loader() -> type[Any]:
    """A safe loader that rejects a key written twice in one mapping.

    PyYAML keeps the last of two equal keys; in a hand-edited file the first one is usually the
    value the author is looking at, so a silent override is worse than an error. Built on first
    use: a conversion from flags alone never imports yaml.
    """
    import yaml

    class StrictLoader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, typing.Hashable) and key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key!r}",
                        key_node.start_mark,
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def read_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """The mapping a YAML configuration file holds (an empty file is an empty mapping).

    Raises InvalidConfigError when the file is missing, unreadable, not YAML or not a mapping.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise InvalidConfigError(
            f"configuration file {path} does not exist",
            hint="check the path given to --path (or ConvertArgs.from_yaml)",
        ) from error
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise InvalidConfigError(
            f"configuration file {path} cannot be read: {reason}",
            hint="give a readable UTF-8 YAML file",
        ) from error
    import yaml

    try:
        data = yaml.load(text, Loader=_strict_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        raise InvalidConfigError(
            f"configuration file {path} is not valid YAML: {' '.join(str(error).split())}",
            hint="fix the YAML syntax at the line and column shown",
        ) from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidConfigError(
            f"configuration file {path} holds a {type(data).__name__}, not a mapping of configuration keys",
            hint="the top level of the file must be keys such as model:, module:, platform:",
        )
    return data


def apply_overrides(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` with each dotted key of ``overrides`` (``memory.planner``) set.

    An intermediate value that is not a mapping (absent, or ``null`` in the file) becomes one, so a
    flag can set a key inside a section the file does not mention. A mapping value is merged key
    by key into the mapping already there (``--platform.memories '{"sram": 1048576}'`` changes
    only the SRAM budget the file gives); scalars and lists replace.
    """
    result: dict[str, Any] = _deep_copy_mappings(data)
    for dotted, value in overrides.items():
        *parents, leaf = dotted.split(".")
        node = result
        for part in parents:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        if isinstance(value, Mapping) and isinstance(node.get(leaf), dict):
            node[leaf] = {**node[leaf], **value}
        else:
            node[leaf] = value
    return result


def _deep_copy_mappings(data: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: _deep_copy_mappings(value) if isinstance(value, Mapping) else value
        for key, value in data.items()
    }


def format_location(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a reader writes it: ``memory.tensors[0].attributes``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def format_validation_errors(error: ValidationError) -> list[str]:
    """One ``location: problem`` line per error, with the typed error's message when there is one."""
    lines = []
    for item in error.errors(include_url=False):
        cause = (item.get("ctx") or {}).get("error")
        if isinstance(cause, HeliaAotError):
            message = cause.message
        elif isinstance(cause, BaseException):
            message = str(cause)
        else:
            message = item["msg"]
            value = item.get("input")
            if item["type"] != "missing" and (value is None or isinstance(value, (str, int, float, bool))):
                message += f" (got {value!r})"
        lines.append(f"{format_location(tuple(item['loc']))}: {message}")
    return lines


def invalid_config(error: ValidationError, source: str | None = None) -> InvalidConfigError:
    """The InvalidConfigError listing every problem of a failed validation."""
    problems = format_validation_errors(error)
    where = f"configuration file {source}" if source else "configuration"
    count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
    message = f"invalid {where} ({count}):\n" + "\n".join(f"  - {line}" for line in problems)
    return InvalidConfigError(message, hint=CONFIG_HINT, details=problems)


__all__ = [
    "CONFIG_HINT",
    "apply_overrides",
    "format_location",
    "format_validation_errors",
    "invalid_config",
    "read_yaml_mapping",
]
