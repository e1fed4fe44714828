"""Streaming wake-word model: arena bytes and instructions per frame on Cortex-M55 and Cortex-M4.

The microWakeWord "okay nabu" model (tests/data/streaming, from pymicro-wakeword 2.5.0) is
converted for apollo510_evb (M55) and apollo4p_evb (M4) with its frame-by-frame golden test,
cross-built at -O2 and run under QEMU. The program runs the golden stream first (uncounted, it
must PASS: every frame bit-exact with one LiteRT reference interpreter), puts the state back with
``<prefix>_model_reset_state``, then runs every frame again inside the counted region, so the
figure is the stream's instructions divided by its frames. Scratch and persistent bytes are the
module's arenas; the product's figures for the same model on apollo510_evb are printed beside.

    python bench/streaming_bench.py
    python bench/streaming_bench.py --cores m55 --work-dir /tmp/stream
    python bench/streaming_bench.py --write-figures     # also record docs/streaming.md's figures

Instruction counts are not cycles: QEMU models no pipeline, wait states or MVE beats.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.interpreters import create_interpreter
from helia_aot.testing import CORES, cross_build_module, run_qemu

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "tests" / "data" / "streaming" / "okay_nabu.tflite"
FRAMES = ROOT / "tests" / "data" / "streaming" / "okay_nabu_frames.npz"
PLATFORM = {"m55": "apollo510_evb", "m4": "apollo4p_evb"}
PRODUCT = {"scratch": 9584, "persistent": 3408}
"""heliaAOT 1.1.0's arenas for okay_nabu on apollo510_evb (bytes)."""

_MAIN = """#include <stdint.h>
#include <string.h>
#include "harness.h"
#include "aot_model.h"
#include "aot_test_case.h"

static const int8_t frames[{count}][{size}] = {{
{rows}
}};

int main(void)
{{
    static aot_model_context_t ctx;
    if (aot_test_case_init() != 0 || aot_test_case_run() != 0) {{
        return 1;
    }}
    if (aot_model_init(&ctx) != 0 || aot_model_reset_state(&ctx) != 0) {{
        return 2;
    }}
    harness_region_begin();
    for (int32_t i = 0; i < {count}; ++i) {{
        memcpy(ctx.inputs[0].data, frames[i], {size});
        if (aot_model_run(&ctx) != 0) {{
            return 3;
        }}
    }}
    harness_region_end();
    return 0;
}}
"""


def golden(work: Path) -> tuple[Path, np.ndarray]:
    with np.load(FRAMES) as data:
        frames = data["input_0"]
    interpreter = create_interpreter(MODEL)
    outputs = np.stack([interpreter.run([f])[0] for f in frames])
    path = work / "golden.npz"
    np.savez(path, input_0=frames, output_0=outputs)
    return path, frames


def measure(core: str, work: Path) -> dict[str, int | float]:
    work.mkdir(parents=True, exist_ok=True)
    golden_path, frames = golden(work)
    config = {
        "model": {"path": str(MODEL)},
        "module": {"path": str(work / "out"), "name": "module"},
        "platform": {"name": PLATFORM[core]},
        "test": {"enabled": True, "golden_data": str(golden_path), "tolerance": 0.0},
        "result_views": True,
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    arenas: dict[str, int] = {"scratch": 0, "persistent": 0}
    for region in result.regions or ():
        if region.role in arenas:
            arenas[region.role] += region.size
    rows = ",\n".join("{" + ", ".join(str(int(v)) for v in f.reshape(-1)) + "}" for f in frames)
    main = _MAIN.format(count=len(frames), size=frames[0].size, rows=rows)
    elf = cross_build_module(result.output, work / "build", core, prefix=result.prefix, main_source=main)
    run = run_qemu(elf, core, timeout=600)
    if run.returncode != 0 or "PASS" not in run.stdout or not run.regions:
        raise SystemExit(f"{core}: the stream failed under QEMU:\n{run.stdout}")
    return {**arenas, "frames": len(frames), "per_frame": run.regions[0] / len(frames)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", nargs="+", default=sorted(CORES), choices=sorted(CORES))
    parser.add_argument("--work-dir", type=Path, default=None)
    parser.add_argument(
        "--write-figures", action="store_true", help="record the rows in docs/figures.json (docs/figures.md)"
    )
    args = parser.parse_args(argv)
    figures: dict[str, list[int]] = {}
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="streaming-bench-"))
    print(f"okay_nabu (pymicro-wakeword 2.5.0), {MODEL.stat().st_size} B model")
    print(f"{'core':<5} {'platform':<15} {'scratch B':>10} {'persistent B':>13} {'instr/frame':>12}")
    for core in args.cores:
        row = measure(core, work / core)
        print(
            f"{core:<5} {PLATFORM[core]:<15} {row['scratch']:>10} {row['persistent']:>13} "
            f"{row['per_frame']:>12.0f}   ({row['frames']} frames, bit-exact)"
        )
        figures[f"streaming.{core}"] = [row["scratch"], row["persistent"], round(row["per_frame"])]
    print(
        f"{'product':<5} {'apollo510_evb':<15} {PRODUCT['scratch']:>10} {PRODUCT['persistent']:>13} "
        f"{'-':>12}   (heliaAOT 1.1.0 arenas)"
    )
    if args.write_figures:
        from figures import report_written, write_figures

        figures["streaming.product"] = [PRODUCT["scratch"], PRODUCT["persistent"]]
        report_written(
            write_figures(figures, f"python bench/streaming_bench.py --cores {' '.join(args.cores)}")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
