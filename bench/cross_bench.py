"""Instructions per inference, flash and RAM of the MLPerf Tiny models on Cortex-M55 and Cortex-M4.

Each model in ``tests/data/models`` is converted with its golden test, cross-built at -O2 for both
cores and run under QEMU (``helia_aot.testing.cross``). The program first runs the golden test
(uncounted, it must PASS), then one inference on the first golden sample, then a second one inside
the counted region, so the figure is exactly one ``<prefix>_model_run`` call. Flash is the
module's code and constants, RAM its data and arenas, both from the link map (the golden test,
runtime and C library are left out). Ratios compare with reference instruction counts of the
same models on the same cores; below 1.00 means fewer instructions.

    python bench/cross_bench.py                  # the four int8 models
    python bench/cross_bench.py --float          # and the float32 ones
    python bench/cross_bench.py --models kws --cores m55 --work-dir /tmp/bench
    python bench/cross_bench.py --goal size      # optimization.goal (default: balanced)

Models whose operators the installed packs do not support yet are skipped with the reason.
The headline is cycles: the same run under the cycle model (``helia_aot.testing.cycles``,
docs/cycles.md: the core's timing table, the default platform's wait states, apollo510_evb for the
M55 and apollo4p_evb for the M4) and milliseconds at that platform's clock; instructions, counted
exactly, stand beside them with the reference counts. The product's modules need their own
kernel sources (ns-cmsis-nn) to be cycle-modeled; here their column is the reference instruction
count only, and the table says so: bench/mlperf_cycles.py ``--product`` / ``--ns-cmsis-nn`` builds
and models them beside ours.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import (
    CORES,
    CrossBuildError,
    corpus_golden_to_npz,
    cross_build_module,
    module_size,
    toolchain_problem,
)
from helia_aot.testing.cross import QemuRun
from helia_aot.testing.cycles import CPUS, DEFAULT_PLATFORMS, platform_named, run_with_model

DATA_DIR = Path(__file__).resolve().parents[1] / "tests" / "data"

MLPERF = {  # short name -> corpus stem (without the _int8 / _float32 suffix)
    "kws": "mlperf_kws_dscnn",
    "ic": "mlperf_ic_resnet8",
    "vww": "mlperf_vww_mobilenetv1_025",
    "ad": "mlperf_ad_fc_autoencoder",
}

REFERENCE_INSTRUCTIONS = {  # int8 models: (Cortex-M55, Cortex-M4)
    "mlperf_kws_dscnn_int8": {"m55": 1_785_491, "m4": 7_695_197},
    "mlperf_ic_resnet8_int8": {"m55": 4_427_350, "m4": 29_846_281},
    "mlperf_vww_mobilenetv1_025_int8": {"m55": 6_368_630, "m4": 24_086_959},
    "mlperf_ad_fc_autoencoder_int8": {"m55": 67_319, "m4": 593_409},
}

FLOAT_TOLERANCE = 1e-5


@dataclass(slots=True)
class CoreResult:
    """One model on one core."""

    model: str
    core: str
    instructions: int | None
    flash: int
    ram: int
    passed: bool
    note: str = ""
    cycles: int | None = None
    clock_mhz: float = 0.0


CORE_CPU = {core: cpu for cpu, core in CPUS.items()}


def run_modeled(elf: Path, core: str, timeout: float = 600) -> tuple[QemuRun, list[int], float, list[str]]:
    """Run ``elf`` under the cycle model of ``core`` on its default platform: the emulator run,
    the cycles of each region, the platform's clock and the executed instructions the timing
    table lacks (timed as one cycle; listed, not fatal, in a bench)."""
    cpu = CORE_CPU[core]
    platform = platform_named(DEFAULT_PLATFORMS[cpu])
    modeled = run_with_model(elf, cpu, platform, strict=False, timeout=timeout)
    return modeled.run, [r.cycles for r in modeled.regions], platform.clock_mhz, modeled.unknown


def missing_ops(entry: dict, registry) -> list[str]:
    """The model's operators that no installed pack parses (conversion reports the rest)."""
    return sorted(op for op in entry["ops"] if op not in registry.litert_parsers)


def c_bytes(name: str, data: bytes) -> str:
    rows = [", ".join(str(b) for b in data[i : i + 24]) for i in range(0, len(data), 24)]
    body = ",\n    ".join(rows)
    return f"static const uint8_t {name}[{len(data)}] __attribute__((aligned(16))) = {{\n    {body}\n}};\n"


def bench_main(prefix: str, inputs: Sequence[bytes]) -> str:
    """A main: golden test, one inference outside the region, one inside it."""
    arrays = "".join(c_bytes(f"bench_input_{i}", data) for i, data in enumerate(inputs))
    names = ", ".join(f"bench_input_{i}" for i in range(len(inputs)))
    sizes = ", ".join(f"{len(data)}u" for data in inputs)
    return f"""/* main.c (bench/cross_bench.py): one counted inference on the first golden sample. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "{prefix}_model.h"
#include "{prefix}_test_case.h"

{arrays}
static const uint8_t *const bench_inputs[] = {{{names}}};
static const uint32_t bench_input_sizes[] = {{{sizes}}};
static {prefix}_model_context_t ctx;

static int32_t load_inputs(void)
{{
    for (int32_t i = 0; i < {prefix}_num_inputs; ++i) {{
        if (ctx.inputs[i].size != bench_input_sizes[i]) {{
            return -1;
        }}
        memcpy(ctx.inputs[i].data, bench_inputs[i], bench_input_sizes[i]);
    }}
    return 0;
}}

int main(void)
{{
    int32_t status = {prefix}_test_case_run();
    if (status != 0) {{
        printf("bench: golden test failed (%ld)\\n", (long)status);
        return 2;
    }}
    if ({prefix}_model_init(&ctx) != 0 || load_inputs() != 0) {{
        printf("bench: init or input size mismatch\\n");
        return 3;
    }}
    /* Nothing to warm on QEMU; the uncounted run keeps the counted one a steady-state call,
     * as it would be on silicon with caches. */
    status = {prefix}_model_run(&ctx);
    if (status != 0 || load_inputs() != 0) {{
        return 4;
    }}
    harness_region_begin();
    status = {prefix}_model_run(&ctx);
    harness_region_end();
    return status == 0 ? 0 : 5;
}}
"""


def convert(
    entry: dict, work: Path, registry, goal: str = "balanced", platform: str | None = None
) -> tuple[Path, str]:
    """Convert with the golden test enabled; returns the module folder and its C prefix.
    ``platform``: the registered platform to convert for (default: the converter's,
    apollo510_evb)."""
    integer = all(o["dtype"] not in ("float32", "float16") for o in entry["outputs"])
    tolerance = 0.0 if integer else FLOAT_TOLERANCE
    golden = corpus_golden_to_npz(DATA_DIR / entry["golden"], work / "golden.npz")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA_DIR / entry["file"])},
            "module": {"path": str(work / "module"), "name": entry["name"]},
            "test": {"enabled": True, "golden_data": str(golden), "tolerance": tolerance},
            "optimization": {"goal": goal},
            "force": True,
            **({"platform": {"name": platform}} if platform is not None else {}),
        }
    )
    result = AotConverter(config, registry).convert()
    return Path(result.output), result.prefix


DTCM_DATA_ROOM = 320 * 1024
"""Bytes of constants the harness links into the board's DTCM range (mps3-an547: 512 KiB less the
128 KiB stack, the fault stack and 16 KiB of heap); a larger DTCM constant region stays with the
other constants."""


def placement_flags(module: Path, prefix: str) -> tuple[str, ...]:
    """Link the module's DTCM constant region where the cycle model prices DTCM, as an Apollo's
    startup code places ``<PREFIX>_PUT_IN_DTCM_INIT`` data: in ``.data`` (the harness's RAM, DTCM
    on both boards), not in the constants' range (modeled as MRAM). Constants read from SRAM stay
    in that range, so the model charges them MRAM's wait states, one more than SRAM's."""
    tensors = (module / "includes-api" / f"{prefix}_tensors.h").read_text()
    found = re.search(rf"#define {prefix}_arena_const_dtcm_size\s+(\d+)", tensors)
    if found is None or int(found[1]) > DTCM_DATA_ROOM:
        return ()
    return (f'-D{prefix.upper()}_PUT_IN_DTCM_INIT=__attribute__((section(".data.{prefix}_const_dtcm")))',)


def bench_model(
    entry: dict,
    cores: Sequence[str],
    work: Path,
    registry,
    *,
    opt: str = "-O2",
    timeout: float = 600,
    goal: str = "balanced",
    platform: str | None = None,
) -> list[CoreResult]:
    """Convert one model at ``goal`` (for ``platform``, default the converter's), then build, run
    and measure it on every core."""
    work.mkdir(parents=True, exist_ok=True)
    module, prefix = convert(entry, work, registry, goal, platform)
    with np.load(DATA_DIR / entry["golden"]) as golden:
        count = sum(1 for key in golden.files if key.startswith("in_"))
        inputs = [np.ascontiguousarray(golden[f"in_{i}"][0]).tobytes() for i in range(count)]
    return measure_module(entry["name"], module, prefix, inputs, cores, work, opt=opt, timeout=timeout)


def measure_module(
    name: str,
    module: Path,
    prefix: str,
    inputs: Sequence[bytes],
    cores: Sequence[str],
    work: Path,
    *,
    opt: str = "-O2",
    timeout: float = 600,
) -> list[CoreResult]:
    """Build a converted module (its golden test enabled) with :func:`bench_main` on ``inputs``,
    then run and measure it on every core."""
    main = bench_main(prefix, inputs)
    results = []
    for core in cores:
        try:
            elf = cross_build_module(
                module,
                work / core,
                core,
                prefix=prefix,
                main_source=main,
                opt=opt,
                extra_cflags=placement_flags(module, prefix),
            )
        except CrossBuildError as error:
            first_error = next((line for line in (error.stderr or "").splitlines() if "error" in line), "")
            results.append(CoreResult(name, core, None, 0, 0, False, f"build failed: {first_error}"))
            continue
        run, cycles, clock_mhz, unknown = run_modeled(elf, core, timeout)
        size = module_size(elf)
        passed = run.returncode == 0 and "PASS" in run.stdout and len(run.regions) == 1
        note = (
            ""
            if passed
            else (
                run.fault
                or ("timeout" if run.timed_out else f"exit {run.returncode}: " + run.stdout.strip()[-200:])
            )
        )
        results.append(
            CoreResult(
                name,
                core,
                run.regions[0] if run.regions else None,
                size.flash,
                size.ram,
                passed,
                note + (f" ({len(unknown)} instructions missing from the timing table)" if unknown else ""),
                cycles[0] if cycles else None,
                clock_mhz,
            )
        )
    return results


def format_table(results: Sequence[CoreResult]) -> str:
    """Cycles first (ms at the platform clock), then instructions beside the reference counts."""
    header = (
        f"{'model':34} {'core':4} {'cycles':>12} {'ms':>8} {'MHz':>4} {'instructions':>13} "
        f"{'reference':>12} {'ratio':>6} {'flash B':>9} {'RAM B':>9}  test"
    )
    lines = [header, "-" * len(header)]
    for r in results:
        ref = REFERENCE_INSTRUCTIONS.get(r.model, {}).get(r.core)
        ratio = f"{r.instructions / ref:6.2f}" if ref and r.instructions else f"{'-':>6}"
        insns = f"{r.instructions:13,}" if r.instructions is not None else f"{'-':>13}"
        cycles = f"{r.cycles:12,}" if r.cycles is not None else f"{'-':>12}"
        ms = f"{r.cycles / (r.clock_mhz * 1e3):8.3f}" if r.cycles is not None and r.clock_mhz else f"{'-':>8}"
        refs = f"{ref:12,}" if ref else f"{'-':>12}"
        status = "PASS" if r.passed else f"FAIL {r.note}"
        lines.append(
            f"{r.model:34} {r.core:4} {cycles} {ms} {r.clock_mhz:4.0f} {insns} {refs} {ratio} "
            f"{r.flash:9,} {r.ram:9,}  {status}"
        )
    lines.append(
        "cycles: modeled (docs/cycles.md) on apollo510_evb (M55) / apollo4p_evb (M4); reference: the "
        "product's instructions only (its cycles: bench/mlperf_cycles.py --product --ns-cmsis-nn)"
    )
    return "\n".join(lines)


def run_all(
    entries: Sequence[dict],
    cores: Sequence[str],
    work: Path,
    registry,
    *,
    opt: str,
    timeout: float,
    goal: str = "balanced",
) -> list[CoreResult]:
    """Bench every model, printing a line per model as it finishes or is skipped."""
    results: list[CoreResult] = []
    for entry in entries:
        name = entry["name"]
        missing = missing_ops(entry, registry)
        if missing:
            print(f"skip {name}: operators not supported yet: {', '.join(missing)}", flush=True)
            continue
        started = time.monotonic()
        try:
            model_results = bench_model(
                entry, cores, work / name, registry, opt=opt, timeout=timeout, goal=goal
            )
        except HeliaAotError as error:
            print(f"skip {name}: conversion failed: {error}", flush=True)
            continue
        results += model_results
        print(f"done {name} in {time.monotonic() - started:.1f}s", flush=True)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MLPERF), help="comma-separated: " + ", ".join(MLPERF))
    parser.add_argument("--float", action="store_true", help="also run the float32 variants")
    parser.add_argument("--cores", default="m55,m4", help="comma-separated: " + ", ".join(CORES))
    parser.add_argument("--opt", default="-O2", help="optimisation flag for every C file (default -O2)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per QEMU run")
    parser.add_argument("--work-dir", type=Path, help="keep modules and builds here (default: a temp dir)")
    parser.add_argument(
        "--goal",
        default="balanced",
        choices=["latency", "balanced", "size", "accuracy"],
        help="optimization.goal of every conversion (default balanced, the converter's default)",
    )
    args = parser.parse_args(argv)

    problem = toolchain_problem()
    if problem:
        print(f"cross_bench: cannot run: {problem}", file=sys.stderr)
        return 2
    cores = [c.strip() for c in args.cores.split(",") if c.strip()]
    unknown = [c for c in cores if c not in CORES] + [m for m in args.models.split(",") if m not in MLPERF]
    if unknown:
        parser.error(f"unknown core or model: {', '.join(unknown)}")
    names = [
        f"{MLPERF[m]}_{kind}"
        for m in args.models.split(",")
        for kind in (("int8", "float32") if args.float else ("int8",))
    ]
    entries = {e["name"]: e for e in json.loads((DATA_DIR / "manifest.json").read_text())}
    registry = build_default_registry_context()
    with tempfile.TemporaryDirectory(prefix="helia_aot_cross_bench_") as scratch:
        results = run_all(
            [entries[n] for n in names],
            cores,
            args.work_dir or Path(scratch),
            registry,
            opt=args.opt,
            timeout=args.timeout,
            goal=args.goal,
        )
    if results:
        print()
        print(f"optimization.goal {args.goal}")
        print(format_table(results))
    if args.work_dir:
        print(f"\nmodules and builds kept in {args.work_dir}")
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
