"""int16x8 and float32 fast paths: Helium / portable (and DSP / portable) instructions per inference.

The int16x8 and float32 kernels have a portable C loop that is the reference and fast paths chosen
at compile time (hk_isa.h). This bench converts each model once (golden test enabled), then builds
the same module for the Cortex-M55 twice, with Helium and with ``+nomve+nodsp`` (the portable C
path on the same core), and for the Cortex-M4 with and without the DSP extension, runs each under
QEMU and prints the instructions of one inference and the ratio fast / portable. Every build must
pass its golden test, so a ratio is only printed for a module that gave the right outputs.

    python bench/fast_path_ratios.py                 # every model below, both cores
    python bench/fast_path_ratios.py --cores m55 --models conv2d_3x3_s1_same_relu_int16x8
    python bench/fast_path_ratios.py --cores m4 --models add_int16x8,mul_int16x8
    python bench/fast_path_ratios.py --write-figures  # also record docs/on-target-testing.md's table

``--write-figures`` records, per model measured on both cores (the float32 model: the M55), the
ratios the docs table quotes as ``fast_path_ratios.<short name>`` in docs/figures.json
(docs/figures.md).

Targets (issue 17): Helium / portable at most 0.40 on the int16x8 convolution, depthwise and fully
connected models, at most 0.50 on the float32 KWS model. The corpus has no int16x8 ADD or MUL
model, so two are built here with the LiteRT builder (``BUILT``: 16x16x16 general-scale ADD and
MUL; the module's self-test compares with the LiteRT reference interpreter); their ratios are
printed without a target.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from cross_bench import DATA_DIR, bench_main, convert
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import cross_build_module, run_qemu, toolchain_problem

MODELS = {  # corpus model -> the target for fast / portable on the M55
    "conv2d_3x3_s1_same_relu_int16x8": 0.40,
    "dwconv_3x3_dm1_s1_same_relu_int16x8": 0.40,
    "fc_64x32_relu_int16x8": 0.40,
    "mlperf_kws_dscnn_float32": 0.50,
}

BUILT_SHAPE = (1, 16, 16, 16)
BUILT = {  # builder-made model -> (operator, options, scales of input 1, input 2, output)
    "add_int16x8": ("ADD", litert.AddOptionsT, (2.0**-10 * 1.3, 2.0**-12 * 1.7, 2.0**-9 * 1.1)),
    "mul_int16x8": ("MUL", litert.MulOptionsT, (2.0**-10 * 1.3, 2.0**-12 * 1.7, 2.0**-12 * 1.1)),
}


def convert_built(name: str, work: Path, registry) -> tuple[Path, str, list[bytes]]:
    """Build one ``BUILT`` model (general scales: not the power-of-two ADD), convert it with the
    golden test enabled (outputs from the LiteRT reference interpreter), return the module folder,
    its prefix and one input sample."""
    op, options_type, (s1, s2, so) = BUILT[name]
    options = options_type()
    if op == "ADD":
        options.potScaleInt16 = False
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", BUILT_SHAPE, "int16", quantization=(s1, 0))
    y = b.add_tensor("y", BUILT_SHAPE, "int16", quantization=(s2, 0))
    z = b.add_tensor("z", BUILT_SHAPE, "int16", quantization=(so, 0))
    b.add_operator(op, [x, y], [z], options)
    b.set_inputs([x, y])
    b.set_outputs([z])
    model = b.save(work / f"{name}.tflite")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model)},
            "module": {"path": str(work / "module"), "name": name},
            "test": {"enabled": True, "tolerance": 0.0},
            "force": True,
        }
    )
    result = AotConverter(config, registry).convert()
    rng = np.random.default_rng(0)
    inputs = [rng.integers(-20000, 20000, BUILT_SHAPE).astype(np.int16).tobytes() for _ in range(2)]
    return Path(result.output), result.prefix, inputs


# core -> (label of the fast build, its flags), (label of the portable build, its flags)
BUILDS = {
    "m55": (("helium", ()), ("portable", ("-mcpu=cortex-m55+nomve+nodsp",))),
    "m4": (("dsp", ()), ("portable", ("-U__ARM_FEATURE_DSP",))),
}


def measure(module: Path, prefix: str, main: str, core: str, flags, work: Path, timeout: float) -> int | None:
    """Instructions of one counted inference, or None when the build or its golden test failed."""
    elf = cross_build_module(module, work, core, prefix=prefix, main_source=main, extra_cflags=flags)
    run = run_qemu(elf, core, timeout=timeout)
    if run.returncode != 0 or "PASS" not in run.stdout or len(run.regions) != 1:
        print(f"  {work.name}: FAIL {run.fault or run.stdout.strip()[-200:]}", flush=True)
        return None
    return run.regions[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", default=",".join([*MODELS, *BUILT]), help="comma-separated corpus or BUILT names"
    )
    parser.add_argument("--cores", default="m55,m4", help="comma-separated: m55, m4")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per QEMU run")
    parser.add_argument("--work-dir", type=Path, help="keep modules and builds here")
    parser.add_argument("--write-figures", action="store_true", help="record the ratios in docs/figures.json")
    args = parser.parse_args(argv)
    problem = toolchain_problem()
    if problem:
        print(f"fast_path_ratios: cannot run: {problem}", file=sys.stderr)
        return 2
    entries = {e["name"]: e for e in json.loads((DATA_DIR / "manifest.json").read_text())}
    registry = build_default_registry_context()
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="helia_aot_fast_paths_") as scratch:
        root = args.work_dir or Path(scratch)
        for name in [m.strip() for m in args.models.split(",") if m.strip()]:
            work = root / name
            work.mkdir(parents=True, exist_ok=True)
            if name in BUILT:
                module, prefix, inputs = convert_built(name, work, registry)
            else:
                entry = entries[name]
                module, prefix = convert(entry, work, registry)
                with np.load(DATA_DIR / entry["golden"]) as golden:
                    count = sum(1 for key in golden.files if key.startswith("in_"))
                    inputs = [np.ascontiguousarray(golden[f"in_{i}"][0]).tobytes() for i in range(count)]
            main_c = bench_main(prefix, inputs)
            for core in [c.strip() for c in args.cores.split(",") if c.strip()]:
                if core == "m4" and name.endswith("float32"):
                    continue  # the Cortex-M4 has no float vector unit: no fast path to compare
                (fast_label, fast_flags), (slow_label, slow_flags) = BUILDS[core]
                fast = measure(
                    module, prefix, main_c, core, fast_flags, work / f"{core}-{fast_label}", args.timeout
                )
                slow = measure(
                    module, prefix, main_c, core, slow_flags, work / f"{core}-{slow_label}", args.timeout
                )
                ok = ok and fast is not None and slow is not None
                rows.append((name, core, fast_label, fast, slow, MODELS.get(name) if core == "m55" else None))
                print(f"done {name} {core}", flush=True)
    header = f"{'model':38} {'core':4} {'path':7} {'fast':>12} {'portable':>12} {'ratio':>6} {'target':>6}"
    print()
    print(header)
    print("-" * len(header))
    for name, core, label, fast, slow, target in rows:
        ratio = f"{fast / slow:6.2f}" if fast and slow else f"{'-':>6}"
        if target and fast and slow and fast / slow > target:
            ok = False  # a fast path that misses the target fails the bench
        print(
            f"{name:38} {core:4} {label:7} {fast or 0:12,} {slow or 0:12,} {ratio} "
            f"{(f'{target:.2f}' if target else '-'):>6}"
        )
    if args.write_figures:
        from figures import report_written, write_figures

        command = f"python bench/fast_path_ratios.py --models {args.models} --cores {args.cores}"
        report_written(write_figures(figures(rows), command))
    return 0 if ok else 1


FIGURE_NAMES = {
    "conv2d_3x3_s1_same_relu_int16x8": "conv2d",
    "dwconv_3x3_dm1_s1_same_relu_int16x8": "dwconv",
    "fc_64x32_relu_int16x8": "fc",
    "mlperf_kws_dscnn_float32": "kws_float32",
    "add_int16x8": "add",
    "mul_int16x8": "mul",
}
"""Model -> its row's name in docs/figures.json (``fast_path_ratios.<name>``)."""


def figures(rows: list[tuple]) -> dict[str, list[float]]:
    """Each model's fast / portable ratios, M55 then M4, rounded as the docs quote them; a model
    with a failed build or a core not measured is left out (the float32 model has no M4 row)."""
    ratios: dict[str, dict[str, float | None]] = {}
    for name, core, _, fast, slow, _ in rows:
        ratios.setdefault(name, {})[core] = round(fast / slow, 2) if fast and slow else None
    found: dict[str, list[float]] = {}
    for name, by_core in ratios.items():
        cores = ("m55",) if name.endswith("float32") else ("m55", "m4")
        values = [by_core.get(core) for core in cores]
        if name in FIGURE_NAMES and all(v is not None for v in values):
            found[f"fast_path_ratios.{FIGURE_NAMES[name]}"] = [v for v in values if v is not None]
    return found


if __name__ == "__main__":
    sys.exit(main())
