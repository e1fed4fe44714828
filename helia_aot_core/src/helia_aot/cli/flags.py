"""One ``--<dotted.key>`` flag per configuration key, and how a flag's text becomes a value.

The flags are generated from :func:`helia_aot.config.config_keys`, so the command line can set
exactly what a YAML file can and gains a flag whenever the configuration gains a key. Values are
read as YAML (``true``, ``3``, ``[a, b]``, ``{sram: 1MiB}``) except for keys whose type is text or a
path, which take the text as written: a model called ``yes`` or ``null`` must not turn into a bool.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from typer.core import TyperCommand

from helia_aot.config.keys import ConfigKey, config_keys
from helia_aot.errors import InvalidConfigError

PATH_KEY = "path"
"""The key whose flag names the YAML file to load rather than overriding a value."""


def parameter_name(key: str) -> str:
    """The Python identifier a dotted key travels under (``memory.planner`` -> ``memory__planner``)."""
    return key.replace(".", "__")


def cli_keys() -> list[ConfigKey]:
    """The configuration keys the command line has a flag for."""
    return [key for key in config_keys() if key.cli_flag is not None]


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


def parse_flag_value(key: ConfigKey, text: str) -> Any:
    """The value a flag's text stands for, as the key's YAML value would be written."""
    if takes_text(key):
        return text
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidConfigError(
            f"{key.cli_flag} {text!r} is not a valid YAML value: {' '.join(str(error).split())}",
            hint="quote the value for the shell, e.g. --operators '[{type: CONV_2D}]'",
        ) from error
    if key.is_list and value is not None and not isinstance(value, list):
        value = [value]  # `--plugins.disabled foo` means a list of one
    return value


def overrides_from_flags(values: dict[str, str | None]) -> tuple[Path | None, dict[str, Any]]:
    """The YAML file and the dotted-key overrides the given flags ask for.

    ``values`` maps parameter names to the flag text, ``None`` for flags not given.
    """
    config_path: Path | None = None
    overrides: dict[str, Any] = {}
    for key in cli_keys():
        text = values.get(parameter_name(key.key))
        if text is None:
            continue
        if key.key == PATH_KEY:
            config_path = Path(text)
        else:
            overrides[key.key] = parse_flag_value(key, text)
    return config_path, overrides


def _help(key: ConfigKey) -> str:
    if key.key == PATH_KEY:
        return "YAML configuration file to load; every other flag overrides the key it names in it"
    default = "required unless given in the --path file" if key.required else f"default: {key.default_text}"
    text = key.description.rstrip(".")
    return f"{text} ({key.type}; {default})"


def flag_signature() -> inspect.Signature:
    """The keyword-only parameters typer turns into one option per configuration key."""
    parameters = []
    for key in cli_keys():
        if "." in key.key:
            panel = f"{key.key.split('.', 1)[0]}.*"
        else:
            panel = f"{key.key}[]" if key.type == "list of rules" else "General"
        option = typer.Option(
            key.cli_flag,
            help=_help(key),
            metavar="[BOOL]" if is_bool(key) else "VALUE",
            rich_help_panel=panel,
            show_default=False,
        )
        parameters.append(
            inspect.Parameter(
                parameter_name(key.key),
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[str | None, option],
            )
        )
    return inspect.Signature(parameters)


class DottedFlagsCommand(TyperCommand):
    """A command whose boolean flags may stand alone: ``--force`` means ``--force true``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        bools = {key.cli_flag for key in cli_keys() if is_bool(key)}
        expanded: list[str] = []
        for index, arg in enumerate(args):
            expanded.append(arg)
            following = args[index + 1] if index + 1 < len(args) else None
            if arg in bools and (following is None or following.startswith("--")):
                expanded.append("true")
        return super().parse_args(ctx, expanded)


__all__ = [
    "PATH_KEY",
    "DottedFlagsCommand",
    "cli_keys",
    "flag_signature",
    "is_bool",
    "overrides_from_flags",
    "parameter_name",
    "parse_flag_value",
    "takes_text",
]
