"""Memory-planning benchmark on the MLPerf Tiny models (not a test).

For each model: conversion wall time, the scratch arena's `used` and its lower bound `peak_live`
with their ratio, constant bytes, and TensorFlow Lite Micro's arena figure from the corpus manifest
with our scratch arena's ratio to it. Every figure comes from one run of this script.

    .venv/bin/python bench/mlperf_memory.py [--planner hill_climb]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError
from rich.console import Console
from rich.table import Table

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--planner", default="hill_climb", choices=["greedy", "greedy_by_size", "hill_climb"])
    args = parser.parse_args()
    manifest = json.loads((DATA / "manifest.json").read_text())
    table = Table(title=f"MLPerf Tiny memory plan ({args.planner})")
    for column in (
        "model",
        "convert s",
        "scratch used",
        "peak_live",
        "used/peak",
        "constants",
        "TFLM arena",
        "used/TFLM",
    ):
        table.add_column(column, justify="left" if column == "model" else "right")
    for entry in (e for e in manifest if e["category"] == "mlperf_tiny"):
        with tempfile.TemporaryDirectory() as out:
            config = ConvertArgs.model_validate(
                {
                    "model": {"path": str(DATA / entry["file"])},
                    "module": {"path": out, "name": "m"},
                    "memory": {"planner": args.planner},
                }
            )
            start = time.perf_counter()
            try:
                result = AotConverter(config).convert()
            except HeliaAotError as error:
                table.add_row(entry["name"], "-", f"[red]{type(error).__name__}[/]", "", "", "", "", "")
                continue
            seconds = time.perf_counter() - start
        arenas = {a["role"]: a for a in result.arenas}
        scratch = arenas.get("scratch", {"used": 0, "peak_live": 0})
        constants = arenas.get("constant", {"used": 0})["used"]
        tflm = entry.get("tflm_arena_used_bytes")
        ratio = scratch["used"] / scratch["peak_live"] if scratch["peak_live"] else 1.0
        table.add_row(
            entry["name"],
            f"{seconds:.2f}",
            f"{scratch['used']:,}",
            f"{scratch['peak_live']:,}",
            f"{ratio:.3f}",
            f"{constants:,}",
            f"{tflm:,}" if tflm else "-",
            f"{scratch['used'] / tflm:.3f}" if tflm else "-",
        )
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
