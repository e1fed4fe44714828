"""The four MLPerf Tiny int8 models on both cores: modeled cycles and milliseconds beside published results.

Each model is converted, cross-built and run under the cycle model as bench/cross_bench.py does it
(one counted inference on the first golden sample, golden test passed), on the default platform
of each core (docs/cycles.md): weights in MRAM with that platform's wait states, activations in
DTCM (zero wait states), instruction fetch not charged. Beside each Cortex-M4 row stand the best
published MLPerf Tiny results on the same core class the issue lists (Cortex-M4 at 120 MHz, vendor
memory setup: code and weights in on-chip flash behind its accelerator, activations in SRAM),
converted to cycles at their clock; our milliseconds are given at the platform's clock and at
that same 120 MHz. No published Cortex-M55 figures are recorded here, so those rows compare with
nothing.

    python bench/mlperf_cycles.py                      # kws, ic, vww, ad on m55 and m4
    python bench/mlperf_cycles.py --models kws --cores m4

The v0.5 reference columns are MLPerf Tiny v0.5's reference submission (TFLM with CMSIS-NN on a
Nucleo-L4R5ZI at 120 MHz), the slowest published baseline on the same core. The model's own
check against silicon (Apollo510 kernels, PSoC6 DS-CNN calls) is in docs/cycles.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import DATA_DIR, MLPERF, bench_model  # noqa: E402
from helia_aot.registry import build_default_registry_context  # noqa: E402
from helia_aot.testing import toolchain_problem  # noqa: E402

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MLPERF), help="comma-separated: " + ", ".join(MLPERF))
    parser.add_argument("--cores", default="m55,m4", help="comma-separated: m55, m4")
    parser.add_argument("--work-dir", type=Path, help="keep modules and builds here")
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
    header = (
        f"{'model':5} {'core':4} {'cycles':>12} {'MHz':>4} {'ms':>9} {'ms @120':>9} {'instructions':>13}  "
        f"{'published (M4 @ 120 MHz)':28} {'cycles':>12} {'ours/pub':>8}  "
        f"{'v0.5 ref cycles':>15} {'ours/ref':>8}"
    )
    lines = [header, "-" * len(header)]
    failed = False
    with tempfile.TemporaryDirectory(prefix="helia_aot_mlperf_cycles_") as scratch:
        work = args.work_dir or Path(scratch)
        for model in models:
            entry = entries[f"{MLPERF[model]}_int8"]
            for r in bench_model(entry, cores, work / model, registry):
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
                lines.append(
                    f"{model:5} {r.core:4} {r.cycles:12,} {r.clock_mhz:4.0f} {ms:9.3f} {at_published:9.3f} "
                    f"{r.instructions:13,}  {theirs}"
                )
    print("\n".join(lines))
    print(
        "ours: modeled cycles, apollo510_evb (M55, 250 MHz) / apollo4p_evb (M4, 192 MHz): weights in MRAM "
        "(M55: through its 64 KiB data cache, 16-cycle line fills; M4: 2 wait states per access), "
        "activations in DTCM, fetch not charged; the model against silicon: docs/cycles.md"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
