"""One ``--<dotted.key>`` flag per configuration key, and how a flag's text becomes a value.

The flags are derived here, in one place, from :func:`helia_aot.config.config_keys`, so the command
line can set exactly what a YAML file can and gains a flag whenever the configuration gains a key.
Every flag has the product's spelling (``--memory.dump-residency-json``: dots between levels,
hyphens inside names) and ours (``--memory.dump_residency_json``), which is rewritten to the first
before click parses the line, so help shows one spelling.

Kinds of flag, by the key's type:

- bool: ``--force`` alone is true and ``--no-force`` false (the last one given wins); ours, a YAML
  word after the flag (``--force true``, ``--force=false``), keeps working.
- list: several values up to the next token that starts with ``-``, and repeating the flag adds
  more; a bare flag is an explicit empty list. For lists of rules or pairs each value is JSON (or
  YAML), and an array whose items are all arrays or objects contributes its items.
- mapping (``--platform.memories``): one JSON/YAML object, merged key by key into the file's.
- text and paths: the text as written (a model called ``yes`` stays a string); anything else is
  read as YAML (``3``, ``1.5``).

pydantic-settings' CLI source derives such flags from a model too, but it parses with argparse on
its own; the ``helia-aot`` app is a click/typer app with subcommands, help panels and plugin
options, so the flags are derived here and parsed by click.
"""

from __future__ import annotations

import enum
import functools
import inspect
import types
import typing
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel

from helia_aot.config.keys import ConfigKey, config_keys
from helia_aot.errors import InvalidConfigError

PATH_KEY = "path"
"""The key whose flag names the YAML file to load rather than overriding a value."""

EMPTY_LIST = "\x00empty-list"
"""What a bare list flag is rewritten to: an explicit empty list (click needs a value)."""

BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False}
"""Values our older flags took after a boolean flag (``--force true``)."""

PANELS = ("general", "model", "module", "test", "memory", "platform", "documentation", "optimization")
"""Help panels, in the order ``helia-aot convert --help`` shows them; plugin keys come last."""


def parameter_name(key: str) -> str:
    """The Python identifier a dotted key travels under (``memory.planner`` -> ``memory__planner``)."""
    return key.replace(".", "__")


def kebab_flag(key: str) -> str:
    """The product's spelling of a key's flag (``memory.dump_residency_json`` ->
    ``--memory.dump-residency-json``)."""
    return "--" + key.replace("_", "-")


def negated(flag: str) -> str:
    """The ``--no-`` form of a boolean flag."""
    return "--no-" + flag[2:]


def cli_keys() -> list[ConfigKey]:
    """The configuration keys the command line has a flag for."""
    return list(_cli_keys())


@functools.cache
def _cli_keys() -> tuple[ConfigKey, ...]:
    # Walked once per process: every command line asks several times (convert and profile).
    return tuple(key for key in config_keys() if key.cli_flag is not None)


def _base(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def takes_text(key: ConfigKey) -> bool:
    """Whether a key's flag value is used as written instead of being read as YAML."""
    base = _base(key.annotation)
    return base in (str, Path) or (isinstance(base, type) and issubclass(base, (str, enum.Enum)))


def is_bool(key: ConfigKey) -> bool:
    return _base(key.annotation) is bool


def is_mapping(key: ConfigKey) -> bool:
    return typing.get_origin(_base(key.annotation)) is dict


def _item_type(key: ConfigKey) -> Any:
    args = typing.get_args(_base(key.annotation))
    return args[0] if args else Any


def is_structured_list(key: ConfigKey) -> bool:
    """Whether each value of a list flag is a JSON document (rules, pairs) rather than a word."""
    if not key.is_list:
        return False
    item = _item_type(key)
    return typing.get_origin(item) is tuple or (isinstance(item, type) and issubclass(item, BaseModel))


def _load(key: ConfigKey, text: str) -> Any:
    import yaml  # here: most command lines never parse a structured value

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidConfigError(
            f"{key.cli_flag}: invalid JSON {text!r}: {' '.join(str(error).split())}",
            hint='quote the value for the shell, e.g. --operators \'{"type": "CONV_2D"}\'',
        ) from error


def parse_flag_value(key: ConfigKey, text: str) -> Any:
    """The value one flag text stands for, as the key's YAML value would be written."""
    if key.is_list:
        return parse_list_values(key, [text])
    if takes_text(key):
        return text
    return _load(key, text)


def parse_list_values(key: ConfigKey, texts: list[str]) -> list[Any]:
    """The list the values given to a list flag make (``EMPTY_LIST`` entries add nothing)."""
    items: list[Any] = []
    for text in texts:
        if text == EMPTY_LIST:
            continue
        if is_structured_list(key):
            value = _load(key, text)
            if isinstance(value, list) and value and all(isinstance(v, (list, dict)) for v in value):
                items.extend(value)
            else:
                items.append(value)
        elif text.lstrip().startswith("["):
            # Ours: a YAML flow list as one value (`--plugins.disabled '[a, b]'`).
            value = _load(key, text)
            items.extend(value if isinstance(value, list) else [value])
        else:
            items.append(text)
    return items


def overrides_from_flags(values: dict[str, Any]) -> tuple[Path | None, dict[str, Any]]:
    """The YAML file and the dotted-key overrides the given flags ask for.

    ``values`` maps parameter names to what click parsed (``None`` or ``[]`` for a flag not given:
    a given list flag always holds at least one value, ``EMPTY_LIST`` when it was bare).
    """
    config_path: Path | None = None
    overrides: dict[str, Any] = {}
    for key in cli_keys():
        value = values.get(parameter_name(key.key))
        if value is None or (isinstance(value, (list, tuple)) and not value):
            continue
        if key.key == PATH_KEY:
            config_path = Path(value)
        elif is_bool(key):
            overrides[key.key] = bool(value)
        elif key.is_list:
            overrides[key.key] = parse_list_values(key, list(value))
        else:
            overrides[key.key] = parse_flag_value(key, value)
    return config_path, overrides


def _metavar(key: ConfigKey) -> str:
    base = _base(key.annotation)
    if key.is_list:
        item = _item_type(key)
        if is_structured_list(key):
            return "[JSON ...]"
        return "[INT ...]" if _base(item) is int else "[TEXT ...]"
    if is_mapping(key):
        return "JSON"
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return "<" + "|".join(str(member.value) for member in base) + ">"
    names = {Path: "PATH", int: "INT", float: "FLOAT"}
    return names.get(base, "TEXT")


def _help(key: ConfigKey) -> str:
    if key.key == PATH_KEY:
        return "YAML configuration file to load; every other flag overrides the key it names in it"
    text = key.description.rstrip(".")
    if key.default in (None, [], {}) or key.required:
        return text
    return f"{text} (default: {key.default_text})"


def _panel(key: ConfigKey) -> str:
    return key.key.split(".", 1)[0] if "." in key.key else "general"


def _flag_order(key: ConfigKey) -> tuple[int, int]:
    panel = _panel(key)
    return (PANELS.index(panel) if panel in PANELS else len(PANELS), 0 if key.key == PATH_KEY else 1)


def flag_signature() -> inspect.Signature:
    """The keyword-only parameters typer turns into one option per configuration key."""
    import typer  # here: a plain convert command line is parsed without typer (helia_aot.cli.direct)

    parameters = []
    keys = sorted(cli_keys(), key=_flag_order)
    for key in keys:
        flag = kebab_flag(key.key)
        annotation: Any
        common: dict[str, Any] = {"help": _help(key), "rich_help_panel": _panel(key), "show_default": False}
        if is_bool(key):
            option = typer.Option(f"{flag}/{negated(flag)}", **common)
            annotation = Annotated[bool | None, option]
        elif key.is_list:
            option = typer.Option(flag, metavar=_metavar(key), **common)
            annotation = Annotated[list[str] | None, option]
        else:
            option = typer.Option(flag, metavar=_metavar(key), **common)
            annotation = Annotated[str | None, option]
        parameters.append(
            inspect.Parameter(
                parameter_name(key.key), inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        )
    return inspect.Signature(parameters)


def flag_spellings() -> dict[str, tuple[ConfigKey, bool]]:
    """Every spelling a flag may be typed in, mapped to its key and whether it negates a bool."""
    spellings: dict[str, tuple[ConfigKey, bool]] = {}
    for key in cli_keys():
        for flag in {kebab_flag(key.key), f"--{key.key}"}:
            spellings[flag] = (key, False)
            if is_bool(key):
                spellings[negated(flag)] = (key, True)
    return spellings


def normalise_args(args: list[str]) -> list[str]:
    """The command line with every flag in the spelling and shape click is given.

    Our spellings become the product's; ``--force true`` becomes ``--force`` (``false``:
    ``--no-force``); ``--transforms A B`` becomes ``--transforms A --transforms B`` and a bare list
    flag ``--transforms EMPTY_LIST``. Anything else (unknown flags included) is passed on for click
    to accept or reject.
    """
    spellings = flag_spellings()
    result: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            result.extend(args[index:])
            break
        name, equals, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        found = spellings.get(name)
        if found is None:
            result.append(arg)
            index += 1
            continue
        key, negative = found
        flag = kebab_flag(key.key)
        index += 1
        if is_bool(key):
            word: str | None = inline if equals else None
            if word is None and not negative and index < len(args) and args[index].lower() in BOOL_WORDS:
                word = args[index]
                index += 1
            if word is not None and word.lower() not in BOOL_WORDS:
                import typer  # only to report the mistake the way click reports its own

                raise typer.BadParameter(
                    f"{name} takes no value or one of {', '.join(BOOL_WORDS)}, not {word!r}"
                )
            truth = not negative if word is None else BOOL_WORDS[word.lower()] != negative
            result.append(flag if truth else negated(flag))
        elif key.is_list:
            values = [inline] if equals else []
            while not equals and index < len(args) and not args[index].startswith("-"):
                values.append(args[index])
                index += 1
            for text in values or [EMPTY_LIST]:
                result.extend([flag, text])
        else:
            result.append(f"{flag}={inline}" if equals else flag)
    return result


__all__ = [
    "EMPTY_LIST",
    "PATH_KEY",
    "cli_keys",
    "flag_signature",
    "flag_spellings",
    "is_bool",
    "kebab_flag",
    "normalise_args",
    "overrides_from_flags",
    "parameter_name",
    "parse_flag_value",
    "parse_list_values",
    "takes_text",
]
