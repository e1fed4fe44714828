"""``helia-aot ops`` (the operator catalogue) and ``helia-aot check MODEL`` (one model against it).

``ops`` prints one line per operator (key, element types, providing pack, how many restrictions),
short enough to scan, and the whole record (LiteRT keys, restriction sentences) for the operators
named on the command line or with ``--json``. ``check`` answers "will this model convert?" without
converting: one line per operator of the file, and the exit status a conversion would end with
(0, or the unsupported-operator status 1).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import typer

from helia_aot.cli.errors import reported_errors
from helia_aot.cli.listing import DISABLED_OPTION, ENABLED_OPTION, plugin_selection
from helia_aot.config import load_config
from helia_aot.errors import InvalidConfigError, UnsupportedModelError


def _support() -> Any:
    # Looked up at call time, as convert does: checking a model pulls in the whole pipeline.
    return importlib.import_module("helia_aot.support")


def catalogue_lines(entries: list[Any]) -> list[str]:
    """One line per operator: key, types, pack, and the count of restrictions it is checked against."""
    width = max((len(e.operator) for e in entries), default=8)
    lines = []
    for e in entries:
        types = e.types_text
        keys = "" if e.litert_keys == (e.operator,) else f"  [LiteRT: {', '.join(e.litert_keys) or '-'}]"
        count = len(e.restrictions)
        noun = "restriction" if count == 1 else "restrictions"
        lines.append(f"{e.operator:<{width}}  {types}  ({e.pack or '-'}; {count} {noun}){keys}")
    return lines


def detail_lines(entry: Any) -> list[str]:
    """Everything the catalogue knows about one operator, restrictions one per line."""
    lines = [
        entry.operator,
        f"  LiteRT keys: {', '.join(entry.litert_keys) or '-'}",
        f"  types: {entry.types_text}",
        f"  pack: {entry.pack or '-'} ({entry.distribution or '-'})",
        "  restrictions:" if entry.restrictions else "  restrictions: none beyond the types",
    ]
    lines.extend(f"    - {r}" for r in entry.restrictions)
    return lines


NAMES_ARGUMENT = typer.Argument(None, help="Show these operators in full (restrictions included).")
OPS_JSON_OPTION = typer.Option(False, "--json", help="Print every field of every operator as JSON.")


def ops_command(
    names: list[str] | None = NAMES_ARGUMENT,
    as_json: bool = OPS_JSON_OPTION,
    enabled: str | None = ENABLED_OPTION,
    disabled: str | None = DISABLED_OPTION,
) -> None:
    """List the operators the installed packs convert: types, pack and restrictions."""
    with reported_errors(lambda: 1):
        entries = _support().operator_catalogue(plugin_selection(enabled, disabled))
        if names:
            wanted = {n.upper() for n in names}
            unknown = sorted(wanted - {e.operator for e in entries})
            if unknown:
                raise InvalidConfigError(
                    f"no installed pack converts {', '.join(unknown)}",
                    hint="`helia-aot ops` lists every operator the installed packs convert",
                )
            entries = [e for e in entries if e.operator in wanted]
        if as_json:
            typer.echo(
                json.dumps({"schema_version": 1, "operators": [e.to_dict() for e in entries]}, indent=2)
            )
            return
        if names:
            for entry in entries:
                typer.echo("\n".join(detail_lines(entry)))
            return
        if not entries:
            typer.echo("No operators are registered; install an operator pack (helia-aot-ops-builtin).")
            return
        typer.echo("\n".join(catalogue_lines(entries)))
        typer.echo(f"\n{len(entries)} operators; `helia-aot ops NAME` shows one in full.")


MODEL_ARGUMENT = typer.Argument(..., help="The LiteRT (.tflite) model file to check.")
CHECK_PATH_OPTION = typer.Option(None, "--path", help="A YAML configuration whose settings the check uses.")
PLATFORM_OPTION = typer.Option(
    None, "--platform.name", help="The platform to check for (default: the YAML's)."
)
SUBGRAPH_OPTION = typer.Option(None, "--model.subgraph", help="The subgraph to check (default 0).")
CHECK_JSON_OPTION = typer.Option(False, "--json", help="Print the result as JSON.")
INPUT_SHAPES_OPTION = typer.Option(
    None,
    "--model.input-shapes",
    help="Static shapes for inputs of unknown size, name=1,49,10 (';' between inputs), as convert takes.",
)


def check_command(
    model: Path = MODEL_ARGUMENT,
    path: Path | None = CHECK_PATH_OPTION,
    platform: str | None = PLATFORM_OPTION,
    subgraph: int | None = SUBGRAPH_OPTION,
    as_json: bool = CHECK_JSON_OPTION,
    input_shapes: str | None = INPUT_SHAPES_OPTION,
) -> None:
    """Say which operators of a model convert and why the others do not, without converting.

    Exit status 0 when every operator is supported, 1 (a conversion's unsupported-operator status)
    when one is not, 2 for a file that cannot be read or a configuration that is not valid.
    """
    with reported_errors(lambda: 1):
        overrides: dict[str, Any] = {"model.path": str(model)}
        if platform is not None:
            overrides["platform.name"] = platform
        if subgraph is not None:
            overrides["model.subgraph"] = subgraph
        if input_shapes is not None:
            overrides["model.input_shapes"] = input_shapes
        config = load_config(path, overrides)
        rows = _support().check_model(config)
        failed = [row for row in rows if not row.supported]
        if as_json:
            typer.echo(
                json.dumps(
                    {
                        "schema_version": 1,
                        "model": str(model),
                        "platform": config.platform.name,
                        "supported": not failed,
                        "operators": [row.to_dict() for row in rows],
                    },
                    indent=2,
                )
            )
        else:
            width = max((len(row.key) for row in rows), default=8)
            for row in rows:
                status = "ok" if row.supported else "unsupported: " + "; ".join(row.reasons)
                typer.echo(f"#{row.index:<4} {row.key:<{width}}  {status}")
            typer.echo(
                f"\n{len(rows) - len(failed)} of {len(rows)} operators convert for {config.platform.name}"
                + (
                    "."
                    if not failed
                    else "; `helia-aot ops NAME` lists an operator's types and restrictions."
                )
            )
        if failed:
            raise typer.Exit(UnsupportedModelError.exit_code)


__all__ = ["catalogue_lines", "check_command", "detail_lines", "ops_command"]
