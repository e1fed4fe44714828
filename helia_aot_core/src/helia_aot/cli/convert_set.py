"""``helia-aot convert-set``: convert several models whose modules share one scratch buffer.

Each ``--path`` is one model's YAML configuration, as ``helia-aot convert --path`` reads it; the
set is planned together (:func:`helia_aot.shared_arena.convert_shared`), so the shared buffer is the
largest scratch need of the set, and the table on stdout says, per module and memory, what it
needs, the shared size and which model sets it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.config import load_config

PATHS_OPTION = typer.Option(
    ..., "--path", help="One model's YAML configuration; repeat for every model of the image."
)
DRY_RUN_OPTION = typer.Option(False, "--dry-run", help="Plan the set without writing modules.")
FORCE_OPTION = typer.Option(False, "--force", help="Replace modules an earlier conversion wrote.")


def shared_table(result: Any) -> Table:
    """One row per module and memory: its own scratch need, the shared size, who sets it, where
    the module went."""
    table = Table(title="Shared scratch", title_justify="left")
    for column in ("module", "memory", "needs (B)", "shared (B)", "set by", "output"):
        table.add_column(column, justify="right" if "(B)" in column else "left")
    for converted in result.results:
        name = str(converted.config.module.name)
        for memory, need in sorted(result.needs[name].items()):
            table.add_row(
                name,
                memory,
                f"{need:,}",
                f"{result.size[memory]:,}",
                result.set_by[memory],
                "-" if converted.dry_run else str(converted.output),
            )
    return table


def convert_set_command(
    paths: list[Path] = PATHS_OPTION,
    dry_run: bool = DRY_RUN_OPTION,
    force: bool = FORCE_OPTION,
) -> None:
    """Convert several models for one image: their modules share one scratch buffer, as large as the
    largest need of the set (memory.shared_arena).

    Exit status 0 when every model converted, 2 for a bad configuration or set (one prefix twice),
    as helia-aot convert for a failed conversion.
    """
    from helia_aot.shared_arena import convert_shared  # the whole pipeline: only when run

    with reported_errors(lambda: 1):
        overrides: dict[str, Any] = {"verbose": 0}
        if dry_run:
            overrides["dry_run"] = True
        if force:
            overrides["force"] = True
        configs = [load_config(path, overrides) for path in paths]
        stderr = error_console()
        stderr.print(f"Planning {len(configs)} models for one shared scratch buffer", markup=False)
        result = convert_shared(configs)
        stdout = Console(highlight=False, soft_wrap=True)
        if not stdout.is_terminal:
            stdout = Console(highlight=False, soft_wrap=True, width=1000)
        stdout.print(shared_table(result))


__all__ = ["convert_set_command", "shared_table"]
