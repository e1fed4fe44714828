"""``helia-aot sweep``: convert a base YAML once per combination of ``--vary`` values, print a table.

Each ``--vary KEY=V1,V2`` names a configuration key (as in the YAML file) and its values, read
exactly as ``helia-aot convert --KEY V`` reads one value; the points run on a process pool
(``--workers``), or on a Dask cluster (``--dask ADDRESS``). The table on stdout shows the varied
settings and what each point costs in memory and time; ``--csv`` and ``--json`` write every
summary column for a spreadsheet or a script.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.cli.flags import cli_keys, parse_flag_value
from helia_aot.config import load_config
from helia_aot.errors import InvalidConfigError

VARY_HINT = "write --vary KEY=VALUE,VALUE, e.g. --vary memory.planner=greedy,hill_climb"


def parse_vary(texts: list[str]) -> dict[str, list[Any]]:
    """``["memory.planner=greedy,hill_climb", ...]`` as key -> values, each value read as the
    key's flag reads it (a number for a number key, a word for a text key); InvalidConfigError for
    text that is not ``KEY=VALUES``, a key given twice or a key that has no flag."""
    keys = {key.key: key for key in cli_keys()}
    vary: dict[str, list[Any]] = {}
    for text in texts:
        name, sep, values = text.partition("=")
        name = name.strip().removeprefix("--").replace("-", "_")
        if not sep or not name or not values.strip():
            raise InvalidConfigError(f"--vary {text!r} is not KEY=VALUE,VALUE", hint=VARY_HINT)
        if name in vary:
            raise InvalidConfigError(f"--vary names {name} twice", hint="give all its values in one --vary")
        key = keys.get(name)
        if key is None:
            # The sweep's own check names the nearest key; keep the text for it.
            vary[name] = [v.strip() for v in values.split(",")]
            continue
        vary[name] = [parse_flag_value(key, v.strip()) for v in values.split(",")]
    if not vary:
        raise InvalidConfigError("helia-aot sweep needs at least one --vary", hint=VARY_HINT)
    return vary


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every column any row has, in first-seen order (points that failed have fewer)."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            seen.setdefault(key, None)
    return list(seen)


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    """Every column of every row; a cell a row lacks is empty."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=_columns(rows), restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})


def write_json(rows: list[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=2, default=str) + "\n", encoding="utf-8")


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(getattr(value, "value", value))


def sweep_table(rows: list[dict[str, Any]], varied: list[str]) -> Table:
    """The varied settings, the bytes per memory and role, MACs, seconds, and where each module
    went (or why the point failed)."""
    columns = _columns(rows)
    memory = [c for c in columns if c.startswith("memory_") and c.endswith("_bytes")]
    shown = ["point", *varied, *memory, "scratch_bytes", "constants_bytes", "macs", "seconds_total"]
    table = Table(title="Sweep", title_justify="left")
    for column in shown:
        table.add_column(column, justify="left" if column in varied else "right")
    table.add_column("output or error")
    for row in rows:
        last = f"error: {row['error']}" if row.get("error") else str(row.get("output", "-"))
        table.add_row(*(Text(_cell(row.get(c))) for c in shown), Text(last))
    return table


PATH_OPTION = typer.Option(..., "--path", help="The base YAML configuration, as for helia-aot convert.")
VARY_OPTION = typer.Option(
    ..., "--vary", help="KEY=VALUE,VALUE: a configuration key and its values; repeat for a cross product."
)
CSV_OPTION = typer.Option(None, "--csv", help="Also write every summary column as CSV.")
JSON_OPTION = typer.Option(None, "--json", help="Also write the rows as JSON.")
DRY_RUN_OPTION = typer.Option(False, "--dry-run", help="Plan every point without writing modules.")
FORCE_OPTION = typer.Option(False, "--force", help="Replace modules an earlier sweep wrote.")
WORKERS_OPTION = typer.Option(
    None, "--workers", min=1, help="Processes converting at once (default: one per CPU)."
)

DASK_OPTION = typer.Option(
    None,
    "--dask",
    help="Run the points on the Dask scheduler at this address (tcp://host:8786) instead of "
    'local processes; needs pip install "helia-aot[distributed]".',
    show_default=False,
)


def sweep_command(
    path: Path = PATH_OPTION,
    vary: list[str] = VARY_OPTION,
    csv_file: Path | None = CSV_OPTION,
    json_file: Path | None = JSON_OPTION,
    dry_run: bool = DRY_RUN_OPTION,
    force: bool = FORCE_OPTION,
    workers: int | None = WORKERS_OPTION,
    dask: str | None = DASK_OPTION,
) -> None:
    """Convert the base configuration once per combination of --vary values and print a table.

    Each point writes its module into its own folder under module.path, named for its values
    (greedy-apollo4p_evb), unless --dry-run. With --dask ADDRESS the points run on that Dask
    cluster's workers. Exit status 0 when every point converted, 1 when one failed (its row says
    why), 2 for a bad --vary or configuration, or a cluster that cannot be reached.
    """
    # Looked up at call time, as convert does: the sweep pulls in the whole pipeline.
    from helia_aot.sweeps import sweep
    from helia_aot.sweeps_dask import dask_executor

    with reported_errors(lambda: 1):
        varied = parse_vary(vary)
        overrides: dict[str, Any] = {"verbose": 0}
        if dry_run:
            overrides["dry_run"] = True
        if force:
            overrides["force"] = True
        base = load_config(path, overrides)
        if dask is not None and workers is not None:
            raise InvalidConfigError(
                "--workers sets local processes, which --dask does not use",
                hint="give one of them: the cluster's workers decide how many points run at once",
            )
        if dask is None:
            rows = sweep(base, varied, max_workers=workers, console=error_console())
        else:
            with dask_executor(dask) as executor:
                rows = sweep(base, varied, executor=executor, console=error_console())
        stdout = Console(highlight=False, soft_wrap=True)
        if not stdout.is_terminal:  # a log or a pipe: a row per line rather than wrapped cells
            stdout = Console(highlight=False, soft_wrap=True, width=1000)
        stdout.print(sweep_table(rows, list(varied)))
        if csv_file is not None:
            write_csv(rows, csv_file)
        if json_file is not None:
            write_json(rows, json_file)
        if any(row.get("error") for row in rows):
            raise typer.Exit(1)


__all__ = ["parse_vary", "sweep_command", "sweep_table", "write_csv", "write_json"]
