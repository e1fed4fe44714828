"""Per MLPerf Tiny model and optimization goal: memory, code and instructions, beside the product.

For each int8 model and each goal (latency, balanced, size) one conversion (golden test on) gives
the scratch arena's ``used`` and the tensors' own peak (its lower bound), the two bounds of issue
18 (``layer``: the tensors' peak in the model's layer-by-layer order; ``sched``: the peak of the
order the planner chose), the MACs patch-based execution recomputes, and the constant bytes;
the module is then cross-built at -O2 for the Cortex-M55 and the Cortex-M4 and run under QEMU
(``helia_aot.testing.cross``; the golden test must PASS, then one counted inference, as
bench/cross_bench.py counts it). Code is the module's linked ``.text`` on the M55 (link map,
golden test left out). The released product's scratch arena and constants (helia-aot 1.1.0,
default settings, where observed) stand beside each model, and TensorFlow Lite Micro's arena
(``tflm_arena_used_bytes`` of the corpus manifest). ``vs bal`` is the M55 instructions over the
same model's at ``balanced`` (issue 18 asks at most 1.15 at ``size``). Each core's headline is
its modeled cycles (``helia_aot.testing.cycles`` on the core's default platform, docs/cycles.md),
with the exact instruction count beside it; the product's cycles are not modeled here (its modules
need ns-cmsis-nn), so its columns stay bytes. Both cores run the one module converted for the
default platform (apollo510_evb), as they did when the instruction floors were recorded, so the
M4 columns stay comparable with those floors; bench/mlperf_cycles.py's M4 rows are the model
converted for apollo4p_evb instead (the same M4 cycles and instructions on the MLPerf models
today, docs/cycles.md).

    python bench/goal_bench.py                          # kws, ic, vww, ad x latency, balanced, size
    python bench/goal_bench.py --models kws --goals balanced,size
    python bench/goal_bench.py --models vww96 --cores m55    # the trained MLPerf VWW (issue 18)
    python bench/goal_bench.py --write-figures          # also record docs/optimization.md's table

``--write-figures`` records each complete row (both cores, golden test passed) in docs/figures.json
as ``goal_bench.<model>.<goal>`` (AD, the same module at every goal: ``goal_bench.ad``, from
balanced) in the docs table's column order, and the trained VWW's size / balanced M55 ratio
(docs/figures.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import (
    corpus_golden_to_npz,
    cross_build_module,
    module_size,
    toolchain_problem,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import MLPERF, bench_main, run_modeled  # noqa: E402  (the same counted main)
from mlperf_memory import PRODUCT_SCRATCH  # noqa: E402

DATA_DIR = Path(__file__).resolve().parents[1] / "tests" / "data"
MODELS = {**{name: f"{stem}_int8" for name, stem in MLPERF.items()}, "vww96": "mlperf_vww_trained_int8"}
"""Short name -> corpus entry: cross_bench's four int8 models and the trained MLPerf VWW (issue 18)."""
DEFAULT_MODELS = tuple(MLPERF)
GOALS = ("latency", "balanced", "size")
CORES = ("m55", "m4")
PRODUCT_CONSTANTS = {"mlperf_kws_dscnn_int8": 29_072}
"""helia-aot 1.1.0 constant arena bytes at default settings, where observed."""


@dataclass(slots=True)
class GoalRow:
    """One model at one goal."""

    model: str
    goal: str
    scratch: int
    tensor_peak: int
    constants: int
    layer_bound: int | None = None
    schedule_bound: int | None = None
    extra_macs: int = 0
    tflm_arena: int | None = None
    code_m55: int | None = None
    instructions: dict[str, int | None] = field(default_factory=dict)
    cycles: dict[str, int | None] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def measure(entry: dict, goal: str, work: Path, cores: tuple[str, ...]) -> GoalRow:
    """Convert ``entry`` at ``goal``, then build, run and count it on every core."""
    work.mkdir(parents=True, exist_ok=True)
    golden = corpus_golden_to_npz(DATA_DIR / entry["golden"], work / "golden.npz")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA_DIR / entry["file"])},
            "module": {"path": str(work / "module"), "name": entry["name"]},
            "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
            "optimization": {"goal": goal},
            "force": True,
        }
    )
    result = AotConverter(config).convert()
    scratch = [a for a in result.arenas if a["role"] == "scratch"]
    row = GoalRow(
        entry["name"],
        goal,
        sum(a["used"] for a in scratch),
        max((a.get("tensor_peak_live") or 0 for a in scratch), default=0),
        sum(a["used"] for a in result.arenas if a["role"] == "constant"),
        tflm_arena=entry.get("tflm_arena_used_bytes"),
        extra_macs=extra_macs(result.report),
    )
    if result.report.schedule is not None:
        row.layer_bound = result.report.schedule.layer_bound
        row.schedule_bound = result.report.schedule.schedule_bound
    with np.load(DATA_DIR / entry["golden"]) as data:
        count = sum(1 for key in data.files if key.startswith("in_"))
        inputs = [np.ascontiguousarray(data[f"in_{i}"][0]).tobytes() for i in range(count)]
    main = bench_main(result.prefix, inputs)
    for core in cores:
        elf = cross_build_module(result.output, work / core, core, prefix=result.prefix, main_source=main)
        run, cycles, _, _ = run_modeled(elf, core)
        passed = run.returncode == 0 and "PASS" in run.stdout and len(run.regions) == 1
        row.instructions[core] = run.regions[0] if passed else None
        row.cycles[core] = cycles[0] if passed and cycles else None
        if not passed:
            row.failures.append(f"{core}: {run.fault or run.stdout.strip()[-120:]}")
        if core == "m55":
            row.code_m55 = module_size(elf).text
    return row


def extra_macs(report: Any) -> int:
    """MACs the module computes beyond the model's (patches recompute their halos): the report's
    total where it states one, else the sum of its operators' (0 when nothing recomputes)."""
    total = getattr(report, "extra_macs", None)
    if isinstance(total, int):
        return total
    return sum(int(getattr(op, "extra_macs", 0) or 0) for op in report.operators)


def _n(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def versus_balanced(rows: list[GoalRow], row: GoalRow, core: str = "m55") -> str:
    """``row``'s instructions over its model's at ``balanced`` on ``core`` ("-" when unknown)."""
    base = next((r for r in rows if r.model == row.model and r.goal == "balanced"), None)
    mine = row.instructions.get(core)
    theirs = None if base is None else base.instructions.get(core)
    return "-" if not mine or not theirs else f"{mine / theirs:.2f}"


def format_rows(rows: list[GoalRow]) -> str:
    header = (
        f"{'model':32} {'goal':8} {'scratch':>8} {'bound':>8} {'layer':>8} {'sched':>8} "
        f"{'product':>8} {'TFLM':>8} {'extra MACs':>10} {'constants':>10} {'product':>8} "
        f"{'code M55':>9} {'cycles M55':>11} {'instr M55':>11} {'vs bal':>6} "
        f"{'cycles M4':>12} {'instr M4':>12}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(
            f"{r.model:32} {r.goal:8} {r.scratch:8,} {r.tensor_peak:8,} {_n(r.layer_bound):>8} "
            f"{_n(r.schedule_bound):>8} {_n(PRODUCT_SCRATCH.get(r.model)):>8} {_n(r.tflm_arena):>8} "
            f"{r.extra_macs:10,} {r.constants:10,} {_n(PRODUCT_CONSTANTS.get(r.model)):>8} "
            f"{_n(r.code_m55):>9} {_n(r.cycles.get('m55')):>11} {_n(r.instructions.get('m55')):>11} "
            f"{versus_balanced(rows, r):>6} {_n(r.cycles.get('m4')):>12} {_n(r.instructions.get('m4')):>12}"
            + ("  FAIL " + "; ".join(r.failures) if r.failures else "")
        )
    return "\n".join(lines)


def figures(rows: list[GoalRow]) -> dict[str, list[int | float]]:
    """The docs' figures among ``rows``: scratch used and bound, constants, M55 code and
    instructions, M4 instructions; rows missing a core or failing are left out."""
    short = {stem: name for name, stem in MODELS.items()}
    found: dict[str, list[int | float]] = {}
    for r in rows:
        m55, m4 = r.instructions.get("m55"), r.instructions.get("m4")
        if r.failures or m55 is None or m4 is None or r.code_m55 is None:
            continue
        name = short[r.model]
        key = "goal_bench.ad" if name == "ad" else f"goal_bench.{name}.{r.goal}"
        if name == "ad" and r.goal != "balanced":
            continue
        found[key] = [r.scratch, r.tensor_peak, r.constants, r.code_m55, m55, m4]
    trained = {r.goal: r.instructions.get("m55") for r in rows if r.model == MODELS["vww96"]}
    if trained.get("size") and trained.get("balanced"):
        found["size_over_balanced.vww96"] = [round(trained["size"] / trained["balanced"], 2)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", default=",".join(DEFAULT_MODELS), help="comma-separated: " + ", ".join(MODELS)
    )
    parser.add_argument("--goals", default=",".join(GOALS), help="comma-separated: " + ", ".join(GOALS))
    parser.add_argument("--cores", default=",".join(CORES), help="comma-separated: " + ", ".join(CORES))
    parser.add_argument("--work-dir", type=Path, help="keep modules and builds here (default: a temp dir)")
    parser.add_argument(
        "--write-figures", action="store_true", help="record the rows in docs/figures.json (docs/figures.md)"
    )
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    goals = [g for g in args.goals.split(",") if g]
    cores = tuple(c for c in args.cores.split(",") if c)
    unknown = [m for m in models if m not in MODELS] + [g for g in goals if g not in GOALS]
    unknown += [c for c in cores if c not in CORES]
    if unknown:
        parser.error(f"unknown model, goal or core: {', '.join(unknown)}")
    problem = toolchain_problem()
    if problem:
        print(f"goal_bench: cannot run: {problem}", file=sys.stderr)
        return 2
    entries = {e["name"]: e for e in json.loads((DATA_DIR / "manifest.json").read_text())}
    rows = []
    with tempfile.TemporaryDirectory(prefix="helia_aot_goal_bench_") as scratch:
        work = args.work_dir or Path(scratch)
        for model in models:
            entry = entries[MODELS[model]]
            for goal in goals:
                started = time.monotonic()
                rows.append(measure(entry, goal, work / entry["name"] / goal, cores))
                print(f"done {entry['name']} {goal} in {time.monotonic() - started:.1f}s", flush=True)
    print()
    print(format_rows(rows))
    if args.write_figures:
        from figures import report_written, write_figures

        command = (
            f"python bench/goal_bench.py --models {args.models} --goals {args.goals} --cores {args.cores}"
        )
        report_written(write_figures(figures(rows), command))
    return 1 if any(r.failures for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
