"""``helia-aot plugins`` and ``helia-aot platforms``: what is installed and what it targets.

Each listing has a ``--json`` form for scripts; the JSON is the records' own dictionaries, so a
field a plugin or platform adds appears without a CLI change. Both take the conversion's
``--plugins.enabled`` / ``--plugins.disabled`` flags (and honour
``HELIA_AOT_DISABLE_PLUGIN_AUTOLOAD``), so they show what a conversion with that selection would
see, and a plugin that cannot import can be blocked here as well.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from helia_aot.cli.errors import reported_errors
from helia_aot.cli.flags import cli_keys, parse_flag_value
from helia_aot.config.sections import PluginsConfig
from helia_aot.platforms import cpu_compiler_flags, get_platform, list_platforms
from helia_aot.platforms.records import platform_show_json, platforms_list_json
from helia_aot.platforms.sizes import format_byte_size
from helia_aot.registry.build import build_default_registry_context, list_plugins

ENABLED_OPTION = typer.Option(
    None,
    "--plugins.enabled",
    help="Load only these plugins, as for helia-aot convert (a YAML list, or one name).",
    metavar="VALUE",
    show_default=False,
)
DISABLED_OPTION = typer.Option(
    None,
    "--plugins.disabled",
    help="Never load these plugins, as for helia-aot convert (a YAML list, or one name).",
    metavar="VALUE",
    show_default=False,
)


def plugin_selection(enabled: str | None, disabled: str | None) -> PluginsConfig:
    """The ``plugins`` section the flags describe, read exactly as ``helia-aot convert`` reads them."""
    keys = {key.key: key for key in cli_keys()}
    data: dict[str, Any] = {}
    if enabled is not None:
        data["enabled"] = parse_flag_value(keys["plugins.enabled"], enabled)
    if disabled is not None:
        data["disabled"] = parse_flag_value(keys["plugins.disabled"], disabled)
    return PluginsConfig.model_validate(data)


def record_dict(record: Any) -> dict[str, Any]:
    """A record as a plain dict: its ``to_dict()`` when it has one, else its dataclass fields."""
    if hasattr(record, "to_dict"):
        return dict(record.to_dict())
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return dataclasses.asdict(record)
    return dict(vars(record))


def _json_default(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(_json_default(v) if isinstance(v, enum.Enum) else v for v in value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def print_json(data: Any) -> None:
    """Write ``data`` as indented JSON on stdout, untouched by rich's wrapping or markup."""
    typer.echo(json.dumps(data, indent=2, default=_json_default))


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _text(value: Any, separator: str = ", ") -> str:
    """A record field as table text; memory budgets read as ``dtcm 496 KiB``."""
    if value is None:
        return "-"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, Mapping):
        return separator.join(f"{_text(k)} {_size(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return separator.join(
            _text(v) if not isinstance(v, tuple) else f"{_text(v[0])} {_size(v[1])}" for v in items
        )
    return str(value)


def _size(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return format_byte_size(value)
    return str(value)


def plugins_command(
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
    enabled: str | None = ENABLED_OPTION,
    disabled: str | None = DISABLED_OPTION,
) -> None:
    """List the installed plugins and what each registers; blocked ones are listed as blocked."""
    with reported_errors(lambda: 1):
        records = list_plugins(plugin_selection(enabled, disabled))
        rows = [record_dict(record) for record in records]
        if as_json:
            print_json(rows)
            return
        console = _console()
        if not rows:
            console.print("No plugins are installed.")
            return
        table = Table(title="Plugins", title_justify="left")
        for column in ("Name", "Distribution", "Version", "Status", "Registered"):
            table.add_column(column, overflow="fold")  # a long name folds onto the next line, never "…"
        for row in rows:
            registered = row.get("registered") or {}
            provided = "\n".join(
                f"{registry}: {', '.join(keys)}" for registry, keys in sorted(registered.items())
            )
            table.add_row(
                Text(str(row.get("name"))),
                Text(str(row.get("distribution"))),
                Text(str(row.get("version"))),
                Text(str(row.get("status", "loaded"))),
                Text(provided or "-"),
            )
        console.print(table, soft_wrap=False)  # wrapped to the terminal's width, not cut at its edge


platforms_app = typer.Typer(help="List and describe the target platforms.", no_args_is_help=True)


@platforms_app.command("list")
def platforms_list(
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
    enabled: str | None = ENABLED_OPTION,
    disabled: str | None = DISABLED_OPTION,
) -> None:
    """List every platform the selected plugins register."""
    with reported_errors(lambda: 1):
        context = build_default_registry_context(plugins=plugin_selection(enabled, disabled))
        platforms = list_platforms(context)
        rows = [record_dict(platform) for platform in platforms]
        if as_json:
            typer.echo(json.dumps(platforms_list_json(platforms)))
            return
        console = _console()
        if not rows:
            console.print("No platforms are registered; install a platform plugin.")
            return
        table = Table(title="Platforms", title_justify="left")
        table.add_column("Name", no_wrap=True)
        table.add_column("CPU", no_wrap=True)
        table.add_column("Capabilities")
        table.add_column("Memories", no_wrap=True)
        for row in rows:
            table.add_row(
                Text(_text(row.get("name"))),
                Text(_text(row.get("cpu"))),
                Text(_text(row.get("capabilities"))),
                Text(_text(row.get("memories"), "\n")),
            )
        console.print(table)


@platforms_app.command("show")
def platforms_show(
    name: str = typer.Argument(..., help="The platform's name."),
    as_json: bool = typer.Option(False, "--json", help="Print the platform as JSON."),
    enabled: str | None = ENABLED_OPTION,
    disabled: str | None = DISABLED_OPTION,
) -> None:
    """Describe one platform: CPU, capabilities, memory budgets, fill order, alignment, gcc flags."""
    with reported_errors(lambda: 1):
        context = build_default_registry_context(plugins=plugin_selection(enabled, disabled))
        platform = get_platform(name, context)
        row = record_dict(platform)
        if as_json:
            typer.echo(json.dumps(platform_show_json(platform)))
            return
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for key, value in row.items():
            table.add_row(key, Text(_text(value)))
        # What a build of a module for this platform must pass arm-none-eabi-gcc (the module
        # README prints the same flags).
        flags = cpu_compiler_flags(platform.cpu)
        table.add_row(
            "compiler_flags", Text(" ".join(flags) if flags else "(unknown CPU: use its -mcpu flags)")
        )
        _console().print(table)


__all__ = ["platforms_app", "plugin_selection", "plugins_command", "print_json", "record_dict"]
