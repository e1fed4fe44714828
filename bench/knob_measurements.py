"""Instructions, code and constant bytes of each kernel family at each ``kernel`` knob value.

For every family the ``kernel`` knob acts on (int8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED)
one corpus model holding only that operator is converted with ``kernel: specialized`` and with
``kernel: generic``, cross-built at -O2 for the Cortex-M55 and the Cortex-M4 and run under QEMU
(``helia_aot.testing.cross``): the golden test first (it must PASS: every value is bit-exact),
then one counted inference. Code and constants are the module's linked ``.text`` and ``.rodata``
(``module_size``, golden test left out), scratch the module's scratch arena. The table is
written to ``helia_aot/optimization/measured.json``, whose code bytes and instructions the
report's hints quote (see ``helia_aot.optimization.measured``). The choice of a kernel per layer
reads modeled cycles per shape instead: bench/kernel_cycles.py's table.

    python bench/knob_measurements.py                   # measure and rewrite measured.json
    python bench/knob_measurements.py --dry-run         # measure and print only
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import (
    corpus_golden_to_npz,
    cross_build_module,
    module_size,
    run_qemu,
    toolchain_problem,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import bench_main  # noqa: E402  (the same counted main as the model benchmark)

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "tests" / "data"
TABLE = ROOT / "helia_aot_core" / "src" / "helia_aot" / "optimization" / "measured.json"

FAMILIES = {  # measured family -> (operator type, corpus model holding only it)
    "conv_s8": ("CONV_2D", "conv2d_3x3_s2_same_int8"),
    "depthwise_s8": ("DEPTHWISE_CONV_2D", "dwconv_3x3_dm1_s1_same_relu_int8"),
    "fully_connected_s8": ("FULLY_CONNECTED", "fc_64x32_relu_int8"),
}
VALUES = ("specialized", "generic")
CORES = {"m55": "cortex-m55", "m4": "cortex-m4"}


def convert(entry: dict, work: Path, op_type: str, value: str) -> tuple[Path, str, int]:
    """Convert with the golden test and the knob set on the operator type; module, prefix, scratch."""
    golden = corpus_golden_to_npz(DATA_DIR / entry["golden"], work / "golden.npz")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA_DIR / entry["file"])},
            "module": {"path": str(work / "module"), "name": entry["name"]},
            "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
            "operators": [{"type": op_type, "optimization": {"kernel": value}}],
            "force": True,
        }
    )
    result = AotConverter(config).convert()
    scratch = sum(a.used for a in result.report.arenas if str(a.role) == "scratch")
    return Path(result.output), result.prefix, scratch


def measure(work: Path) -> list[dict]:
    entries = {e["name"]: e for e in json.loads((DATA_DIR / "manifest.json").read_text())}
    rows = []
    for family, (op_type, name) in FAMILIES.items():
        entry = entries[name]
        with np.load(DATA_DIR / entry["golden"]) as golden:
            count = sum(1 for key in golden.files if key.startswith("in_"))
            inputs = [np.ascontiguousarray(golden[f"in_{i}"][0]).tobytes() for i in range(count)]
        for value in VALUES:
            folder = work / family / value
            folder.mkdir(parents=True, exist_ok=True)
            module, prefix, scratch = convert(entry, folder, op_type, value)
            for core, cpu in CORES.items():
                elf = cross_build_module(
                    module, folder / core, core, prefix=prefix, main_source=bench_main(prefix, inputs)
                )
                run = run_qemu(elf, core, timeout=600)
                if run.returncode != 0 or "PASS" not in run.stdout or len(run.regions) != 1:
                    raise SystemExit(f"{family} {value} {core}: golden test failed\n{run.stdout[-400:]}")
                size = module_size(elf)
                rows.append(
                    {
                        "family": family,
                        "knob": "kernel",
                        "value": value,
                        "cpu": cpu,
                        "instructions": int(run.regions[0]),
                        "code_bytes": size.text,
                        "const_bytes": size.rodata,
                        "scratch_bytes": scratch,
                        "subject": name,
                    }
                )
                print(
                    f"{family:20} {value:12} {cpu:11} {run.regions[0]:>10,} instr  "
                    f"text {size.text:>6,} B  rodata {size.rodata:>6,} B  scratch {scratch:>6,} B"
                )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the table, do not write it")
    parser.add_argument("--work-dir", type=Path, default=None)
    args = parser.parse_args()
    problem = toolchain_problem()
    if problem:
        print(f"skipped: {problem}")
        return 1
    with tempfile.TemporaryDirectory(prefix="knob-bench-") as tmp:
        rows = measure(args.work_dir or Path(tmp))
    if not args.dry_run:
        table = {"format_version": 1, "generated_by": "bench/knob_measurements.py", "entries": rows}
        TABLE.write_text(json.dumps(table, indent=2) + "\n")
        print(f"wrote {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
