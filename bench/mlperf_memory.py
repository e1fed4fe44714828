"""Memory-planning benchmark on the MLPerf Tiny models (not a test).

For each model: conversion wall time, the scratch arena's `used`, the tensors' own peak (the
bound the memory-aware kernel choice keeps `used` at: no kernel scratch buffer counted),
constant bytes, the released product's scratch
arena where it was observed (helia-aot 1.1.0, default settings), and TensorFlow Lite Micro's
arena figure from the corpus manifest. Every figure of ours comes from one run of this script.

    .venv/bin/python bench/mlperf_memory.py [--planner hill_climb] [--goal balanced]
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

PRODUCT_SCRATCH = {  # helia-aot 1.1.0 scratch arena `used` at default settings (observed)
    "mlperf_kws_dscnn_int8": 19_344,
    "mlperf_ic_resnet8_int8": 49_728,
    "mlperf_vww_mobilenetv1_025_int8": 55_296,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--planner", default="hill_climb", choices=["greedy", "greedy_by_size", "hill_climb"])
    parser.add_argument("--goal", default="balanced", choices=["latency", "balanced", "size", "accuracy"])
    args = parser.parse_args()
    manifest = json.loads((DATA / "manifest.json").read_text())
    table = Table(title=f"MLPerf Tiny memory plan ({args.planner}, goal {args.goal})")
    for column in (
        "model",
        "convert s",
        "scratch used",
        "tensor peak",
        "used/tensors",
        "constants",
        "product arena",
        "TFLM arena",
    ):
        table.add_column(column, justify="left" if column == "model" else "right")
    for entry in (e for e in manifest if e["category"] == "mlperf_tiny"):
        with tempfile.TemporaryDirectory() as out:
            config = ConvertArgs.model_validate(
                {
                    "model": {"path": str(DATA / entry["file"])},
                    "module": {"path": out, "name": "m"},
                    "memory": {"planner": args.planner},
                    "optimization": {"goal": args.goal},
                }
            )
            start = time.perf_counter()
            try:
                result = AotConverter(config).convert()
            except HeliaAotError as error:
                table.add_row(entry["name"], "-", f"[red]{type(error).__name__}[/]", *[""] * 6)
                continue
            seconds = time.perf_counter() - start
        scratch_rows = [a for a in result.arenas if a["role"] == "scratch"]
        used = sum(a["used"] for a in scratch_rows)
        bound = max((a.get("tensor_peak_live") or 0 for a in scratch_rows), default=0)
        constants = sum(a["used"] for a in result.arenas if a["role"] == "constant")
        tflm = entry.get("tflm_arena_used_bytes")
        product = PRODUCT_SCRATCH.get(entry["name"])
        table.add_row(
            entry["name"],
            f"{seconds:.2f}",
            f"{used:,}",
            f"{bound:,}",
            f"{used / bound:.3f}" if bound else "-",
            f"{constants:,}",
            f"{product:,}" if product else "-",
            f"{tflm:,}" if tflm else "-",
        )
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
