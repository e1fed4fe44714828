"""The four MLPerf Tiny int8 models on both cores: modeled cycles and milliseconds beside published results.

Each model is converted for the default platform of each core (docs/cycles.md; apollo510_evb for
the Cortex-M55, apollo4p_evb for the Cortex-M4, one conversion per core), then cross-built and run
under the cycle model as bench/cross_bench.py does it (one counted inference on the first golden
sample, golden test passed) on that platform: weights and activations where the default
placement puts them, in DTCM (zero wait states; the harness links the DTCM constant region
there), instruction fetch not charged. Beside each Cortex-M4 row stand the best
published MLPerf Tiny results on the same core class the issue lists (Cortex-M4 at 120 MHz, vendor
memory setup: code and weights in on-chip flash behind its accelerator, activations in SRAM),
converted to cycles at their clock; our milliseconds are given at the platform's clock and at
that same 120 MHz. No published Cortex-M55 figures are recorded here, so those rows compare with
nothing.

    python bench/mlperf_cycles.py                      # kws, ic, vww, ad on m55 and m4
    python bench/mlperf_cycles.py --models kws --cores m4
    python bench/mlperf_cycles.py --cores m55 --product /tmp/product-venv/bin/helia-aot \
        --ns-cmsis-nn /tmp/ns-cmsis-nn                 # and the product's modules beside ours

With the product's ``helia-aot`` (``--product`` or ``$HELIA_AOT_PRODUCT``, installed in a venv
outside this repository) and an ns-cmsis-nn checkout (``--ns-cmsis-nn`` or ``$NS_CMSIS_NN``), each
Cortex-M55 row also carries the product's module of the same model, built against those kernels
and run under the same cycle model in the same run (bench/product_cycles.py), and ours/product.

The v0.5 reference columns are MLPerf Tiny v0.5's reference submission (TFLM with CMSIS-NN on a
Nucleo-L4R5ZI at 120 MHz), the slowest published baseline on the same core. The model's own
check against silicon (Apollo510 kernels, PSoC6 DS-CNN calls) is in docs/cycles.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import DATA_DIR, MLPERF, bench_main, bench_model, placement_flags, run_modeled  # noqa: E402
from helia_aot.registry import build_default_registry_context  # noqa: E402
from helia_aot.testing import CrossBuildError, toolchain_problem  # noqa: E402
from helia_aot.testing.cycles import CPUS, DEFAULT_PLATFORMS  # noqa: E402
from product_cycles import (  # noqa: E402
    ProductSetup,
    build_product_module,
    convert_with_product,
    first_sample_golden,
    kernel_archive,
    product_setup,
)

PUBLISHED_CLOCK_MHZ = 120.0
PUBLISHED_M4_MS = {
    "kws": ("X-CUBE-AI 9.0", 43.19),
    "ic": ("X-CUBE-AI 9.0", 165.1),
    "vww": ("X-CUBE-AI 9.0", 88.93),
    "ad": ("Plumerai", 4.05),
}
"""Best published MLPerf Tiny latency on a Cortex-M4 at 120 MHz per model (system, ms)."""

REFERENCE_V05_MS = {"kws": 181.92, "ic": 704.25, "vww": 600.54, "ad": 10.052}
"""MLPerf Tiny v0.5's reference submission (TFLM 2.3.1 with CMSIS-NN, Nucleo-L4R5ZI, Cortex-M4 at
120 MHz, closed/reference/results/*/performance/results.txt): runtime / inferences of window 2."""


CORE_PLATFORMS = {core: DEFAULT_PLATFORMS[cpu] for cpu, core in CPUS.items()}
"""The platform each core's module is converted for, the one whose wait states and clock the
cycle model applies (apollo510_evb for the M55, apollo4p_evb for the M4): an Apollo4 Plus user's
module, whose kernel choices, tables and placement follow that platform, not the M55 module run
on the M4."""

PRODUCT_CORES = ("m55",)
"""The product's modules are converted for apollo510_evb (its default platform, Helium kernels)."""


def product_cycles(setup: ProductSetup, entry: dict, work: Path, kernels: Path) -> tuple[int, int] | str:
    """The product's module of ``entry`` on the M55: (cycles, instructions) of one counted
    inference after its golden test passed, or why there is no figure. ``kernels``: where the
    ns-cmsis-nn archive is built once for every model."""
    work.mkdir(parents=True, exist_ok=True)
    golden = first_sample_golden(DATA_DIR / entry["golden"], work / "golden.npz")
    try:
        module, prefix = convert_with_product(setup, DATA_DIR / entry["file"], golden, work / "module")
    except RuntimeError as error:
        return str(error).splitlines()[0]
    with np.load(DATA_DIR / entry["golden"]) as data:
        count = sum(1 for key in data.files if key.startswith("in_"))
        inputs = [np.ascontiguousarray(data[f"in_{i}"][0]).tobytes() for i in range(count)]
    try:
        archive = kernel_archive(setup, "m55", kernels)
        elf = build_product_module(
            setup,
            module,
            prefix,
            bench_main(prefix, inputs),
            "m55",
            work / "m55",
            archive,
            placement_flags(module, prefix),
        )
    except CrossBuildError as error:
        first = next((line for line in (error.stderr or "").splitlines() if "error" in line), "")
        return f"product build failed: {first}"
    run, cycles, _clock, _unknown = run_modeled(elf, "m55")
    if run.returncode != 0 or "passed" not in run.stdout.lower() or not cycles or not run.regions:
        return f"product run failed: exit {run.returncode}: {run.stdout.strip()[-160:]}"
    return cycles[0], run.regions[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MLPERF), help="comma-separated: " + ", ".join(MLPERF))
    parser.add_argument("--cores", default="m55,m4", help="comma-separated: m55, m4")
    parser.add_argument("--work-dir", type=Path, help="keep modules and builds here")
    parser.add_argument(
        "--product",
        type=Path,
        default=os.environ.get("HELIA_AOT_PRODUCT"),
        help="the product's helia-aot executable (default $HELIA_AOT_PRODUCT)",
    )
    parser.add_argument(
        "--ns-cmsis-nn",
        type=Path,
        default=os.environ.get("NS_CMSIS_NN"),
        help="an ns-cmsis-nn checkout to build the product's modules against (default $NS_CMSIS_NN)",
    )
    args = parser.parse_args(argv)
    problem = toolchain_problem()
    if problem:
        print(f"mlperf_cycles: cannot run: {problem}", file=sys.stderr)
        return 2
    models = [m for m in args.models.split(",") if m]
    cores = [c for c in args.cores.split(",") if c]
    unknown = [m for m in models if m not in MLPERF] + [c for c in cores if c not in ("m55", "m4")]
    if unknown:
        parser.error(f"unknown model or core: {', '.join(unknown)}")
    entries = {e["name"]: e for e in json.loads((DATA_DIR / "manifest.json").read_text())}
    registry = build_default_registry_context()
    setup = product_setup(args.product, args.ns_cmsis_nn)
    if (args.product or args.ns_cmsis_nn) and setup is None:
        print(
            "mlperf_cycles: the product's column needs both --product (an executable) and --ns-cmsis-nn "
            "(a checkout with Include/arm_nn_types.h)",
            file=sys.stderr,
        )
        return 2
    header = (
        f"{'model':5} {'core':4} {'cycles':>12} {'MHz':>4} {'ms':>9} {'ms @120':>9} {'instructions':>13}  "
        f"{'product cycles':>14} {'instructions':>13} {'ours/prod':>9}  "
        f"{'published (M4 @ 120 MHz)':28} {'cycles':>12} {'ours/pub':>8}  "
        f"{'v0.5 ref cycles':>15} {'ours/ref':>8}"
    )
    lines = [header, "-" * len(header)]
    notes: list[str] = []
    failed = False
    with tempfile.TemporaryDirectory(prefix="helia_aot_mlperf_cycles_") as scratch:
        work = args.work_dir or Path(scratch)
        for model in models:
            entry = entries[f"{MLPERF[model]}_int8"]
            results = [
                r
                for core in cores
                for r in bench_model(
                    entry, [core], work / model / core, registry, platform=CORE_PLATFORMS[core]
                )
            ]
            for r in results:
                failed |= not r.passed
                if r.cycles is None or not r.passed:
                    lines.append(f"{model:5} {r.core:4} FAIL {r.note}")
                    continue
                ms = r.cycles / (r.clock_mhz * 1e3)
                at_published = r.cycles / (PUBLISHED_CLOCK_MHZ * 1e3)
                published = PUBLISHED_M4_MS.get(model) if r.core == "m4" else None
                if published is not None:
                    system, pub_ms = published
                    pub_cycles = round(pub_ms * PUBLISHED_CLOCK_MHZ * 1e3)
                    theirs = f"{system + f' {pub_ms:g} ms':28} {pub_cycles:12,} {r.cycles / pub_cycles:8.2f}"
                    ref_cycles = round(REFERENCE_V05_MS[model] * PUBLISHED_CLOCK_MHZ * 1e3)
                    theirs += f"  {ref_cycles:15,} {r.cycles / ref_cycles:8.2f}"
                else:
                    theirs = f"{'-':28} {'-':>12} {'-':>8}  {'-':>15} {'-':>8}"
                product = f"{'-':>14} {'-':>13} {'-':>9}"
                if setup is not None and r.core in PRODUCT_CORES:
                    measured = product_cycles(
                        setup, entry, work / model / "product", work / "ns_cmsis_nn_m55"
                    )
                    if isinstance(measured, str):
                        failed = True
                        product = f"{'FAIL':>14} {'-':>13} {'-':>9}"
                        notes.append(f"{model} product: {measured}")
                    else:
                        p_cycles, p_insns = measured
                        product = f"{p_cycles:14,} {p_insns:13,} {r.cycles / p_cycles:9.3f}"
                lines.append(
                    f"{model:5} {r.core:4} {r.cycles:12,} {r.clock_mhz:4.0f} {ms:9.3f} {at_published:9.3f} "
                    f"{r.instructions:13,}  {product}  {theirs}"
                )
    print("\n".join(lines + notes))
    if setup is not None:
        print(f"product: {setup.describe()}; its cycles under the same model, same platform, same bench main")
    print(
        "ours: modeled cycles, each model converted for and run on apollo510_evb (M55, 250 MHz) / "
        "apollo4p_evb (M4, 192 MHz): weights and "
        "activations in DTCM (the default placement; a constant that spills is read from SRAM or MRAM, on "
        "the M55 through its 64 KiB data cache), fetch not charged; the model against silicon: docs/cycles.md"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
