"""Memory-planning benchmark on the MLPerf Tiny models (not a test).

For each model: conversion wall time, the scratch arena's `used`, the tensors' own peak (the
bound the memory-aware kernel choice keeps `used` at: no kernel scratch buffer counted),
constant bytes, the released product's scratch
arena where it was observed (helia-aot 1.1.0, default settings), and TensorFlow Lite Micro's
arena figure from the corpus manifest. Every figure of ours comes from one run of this script.

With ``--goals`` it compares goals instead: per model the scratch `used` at each goal, the
layer-by-layer bound (the tensors' peak in the stored order), the bound of the order the planner
chose, the final bound at goal size (after in-place convolutions), the operators written in place
and the ratio of size's scratch to balanced's.

    .venv/bin/python bench/mlperf_memory.py [--planner hill_climb] [--goal balanced]
    .venv/bin/python bench/mlperf_memory.py --goals latency balanced size
    .venv/bin/python bench/mlperf_memory.py --goals balanced size --write-figures

``--write-figures`` (with ``--goals`` holding balanced and size) records docs/memory.md's table in
docs/figures.json: ``scratch_by_goal.<model>`` = balanced, size, size / balanced (docs/figures.md).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

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
    parser.add_argument("--goals", nargs="+", choices=["latency", "balanced", "size", "accuracy"])
    parser.add_argument(
        "--write-figures",
        action="store_true",
        help="with --goals balanced size: record the table in docs/figures.json (docs/figures.md)",
    )
    args = parser.parse_args()
    manifest = json.loads((DATA / "manifest.json").read_text())
    if args.write_figures and not {"balanced", "size"} <= set(args.goals or ()):
        parser.error("--write-figures needs --goals with balanced and size")
    if args.goals:
        used = compare_goals(manifest, args.planner, args.goals)
        if args.write_figures:
            write_scratch_figures(used, f"python bench/mlperf_memory.py --goals {' '.join(args.goals)}")
        return
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


def _convert(path: Path, planner: str, goal: str) -> tuple[Any, float]:
    with tempfile.TemporaryDirectory() as out:
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(path)},
                "module": {"path": out, "name": "m"},
                "memory": {"planner": planner},
                "optimization": {"goal": goal},
            }
        )
        start = time.perf_counter()
        result = AotConverter(config).convert()
        return result, time.perf_counter() - start


FIGURE_MODELS = {
    "kws": "mlperf_kws_dscnn_int8",
    "ic": "mlperf_ic_resnet8_int8",
    "vww": "mlperf_vww_mobilenetv1_025_int8",
    "vww96": "mlperf_vww_trained_int8",
}
"""docs/memory.md's table rows: figure name suffix -> corpus entry."""


def write_scratch_figures(used: dict[str, dict[str, int]], command: str) -> None:
    """docs/memory.md's figures from ``compare_goals``' result."""
    from figures import report_written, write_figures

    found: dict[str, list[int | float]] = {}
    for short, name in FIGURE_MODELS.items():
        if {"balanced", "size"} <= set(used.get(name, {})):
            balanced, size = used[name]["balanced"], used[name]["size"]
            found[f"scratch_by_goal.{short}"] = [balanced, size, round(size / balanced, 2)]
    if "scratch_by_goal.vww96" in found:
        found["scratch_by_goal.vww96_balanced"] = found["scratch_by_goal.vww96"][:1]
    report_written(write_figures(found, command))


def compare_goals(
    manifest: list[dict[str, Any]], planner: str, goals: list[str]
) -> dict[str, dict[str, int]]:
    """One row per model: scratch at each goal, the bounds and the techniques goal size used.
    Returns each model's scratch ``used`` by goal."""
    measured: dict[str, dict[str, int]] = {}
    table = Table(title=f"MLPerf Tiny scratch by goal ({planner})")
    columns = ["model", *[f"{g} used" for g in goals], "layer bound", "order bound", "size bound"]
    columns += ["in place", "size/balanced", "TFLM arena"]
    for column in columns:
        table.add_column(column, justify="left" if column == "model" else "right")
    for entry in (e for e in manifest if e["category"] == "mlperf_tiny"):
        used: dict[str, int] = {}
        bounds = ("-", "-", "-")
        in_place = "-"
        try:
            for goal in goals:
                result, _ = _convert(DATA / entry["file"], planner, goal)
                scratch = [a for a in result.arenas if a["role"] == "scratch"]
                used[goal] = sum(a["used"] for a in scratch)
                if goal == "size":
                    order = result.report.schedule
                    final = max((a.get("tensor_peak_live") or 0 for a in scratch), default=0)
                    if order is not None:
                        bounds = (f"{order.layer_bound:,}", f"{order.schedule_bound:,}", f"{final:,}")
                    in_place = str(sum(1 for op in result.report.operators if op.memory_technique))
        except HeliaAotError as error:
            table.add_row(entry["name"], f"[red]{type(error).__name__}[/]")
            continue
        measured[entry["name"]] = dict(used)
        ratio = f"{used['size'] / used['balanced']:.3f}" if {"size", "balanced"} <= set(used) else "-"
        tflm = entry.get("tflm_arena_used_bytes")
        table.add_row(
            entry["name"],
            *[f"{used[g]:,}" for g in goals],
            *bounds,
            in_place,
            ratio,
            f"{tflm:,}" if tflm else "-",
        )
    Console(width=200).print(table)
    return measured


if __name__ == "__main__":
    main()
