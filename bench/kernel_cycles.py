"""Modeled cycles of each kernel a layer can take, on a grid of layer shapes: the kernel choice's table.

For every decision the choice makes (int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: the
``kernel`` knob's ``specialized`` fast paths or ``generic`` loop; int8 CONV_2D over few channels
on the Cortex-M55: the im2col kernel or the direct fast path) and every shape of its grid below,
a one-operator model is written (seeded weights, LiteRT's builder), converted with the kernel
forced (``operators[].optimization.kernel``, or ``kernel_cycles.forced``) for each core's default platform
(apollo510_evb for the Cortex-M55, apollo4p_evb for the Cortex-M4), cross-built at -O2 and run
under the cycle model (``helia_aot.testing.cycles``) as bench/cross_bench.py runs a model: the
golden test first (it must PASS: every kernel is bit-exact with the reference interpreter), then
one inference in the counted region. Each row is family, core, shape, kernel, modeled cycles and
instructions; the table is written sorted, one row a line, to the built-in pack's
``common/kernel_cycles.json``, which the choice reads (``helia_aot_ops_builtin.common.kernel_cycles``).

    python bench/kernel_cycles.py                         # measure the grid, rewrite the table
    python bench/kernel_cycles.py --check                 # measure, compare with the shipped table
    python bench/kernel_cycles.py --families fully_connected_s8 --limit 1 --dry-run

The grid holds the layer shapes of the four MLPerf Tiny models and a few around them. Modeled
cycles are deterministic (same compiler, same code, same table), so after a kernel changes the
whole table is regenerated with the first command and reviewed as a diff.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import cross_build_module, toolchain_problem
from helia_aot.testing.cycles import CPUS, DEFAULT_PLATFORMS
from helia_aot_ops_builtin.common.kernel_cycles import (
    FEATURES,
    IM2COL_VALUES,
    KernelCycles,
    forced,
    parse_table,
    table_text,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import bench_main, placement_flags, run_modeled  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "helia_aot_ops_builtin" / "src" / "helia_aot_ops_builtin" / "common" / "kernel_cycles.json"
GENERATED_BY = "bench/kernel_cycles.py"

GRID: dict[str, tuple[tuple[int, ...], ...]] = {
    # height, width, input channels, filters, filter height, filter width, stride: where the
    # im2col kernel applies (at most 8 input channels)
    "conv_im2col": (
        (16, 16, 8, 16, 3, 3, 1),
        (24, 24, 4, 16, 1, 1, 1),
        (32, 32, 3, 16, 3, 3, 1),
        (48, 48, 8, 16, 1, 1, 1),
        (49, 10, 1, 64, 10, 4, 2),
        (96, 96, 3, 8, 3, 3, 2),
    ),
    # height, width, input channels, filters, filter height, filter width, stride
    "conv_s8": (
        (6, 6, 128, 128, 1, 1, 1),
        (8, 8, 32, 64, 1, 1, 1),
        (16, 16, 16, 32, 3, 3, 2),
        (25, 5, 64, 64, 1, 1, 1),
        (32, 32, 3, 16, 3, 3, 1),
        (48, 48, 8, 16, 1, 1, 1),
        (49, 10, 1, 64, 10, 4, 2),
        (96, 96, 3, 8, 3, 3, 2),
    ),
    # height, width, channels, filter height, filter width, stride
    "depthwise_s8": (
        (6, 6, 128, 3, 3, 1),
        (12, 12, 64, 3, 3, 2),
        (24, 24, 32, 3, 3, 1),
        (25, 5, 64, 3, 3, 1),
        (48, 48, 8, 3, 3, 2),
    ),
    # depth, units
    "fully_connected_s8": (
        (8, 128),
        (64, 12),
        (128, 8),
        (128, 128),
        (128, 640),
        (256, 2),
        (640, 128),
    ),
}
"""The layer shapes measured per family, in ``FEATURES`` order."""

KNOB_VALUES = ("specialized", "generic")
VALUES = {"conv_im2col": IM2COL_VALUES}
"""The kernels of each decision: the ``kernel`` knob's values unless named here."""
CPUS_OF = {"conv_im2col": ("cortex-m55",)}
"""The cores each decision is measured on: both unless named here (im2col is Helium's)."""
BASELINE = {"conv_im2col": "im2col"}
"""Each decision no knob selects, as the pack took it before the table: every row is measured
with the others at these, so no row depends on the table it is written into (the table is
regenerated the same whatever it held)."""
OP_TYPES = {
    "conv_im2col": "CONV_2D",
    "conv_s8": "CONV_2D",
    "depthwise_s8": "DEPTHWISE_CONV_2D",
    "fully_connected_s8": "FULLY_CONNECTED",
}
CORE_OF = {cpu: core for cpu, core in CPUS.items()}  # cortex-m55 -> m55

IN_Q, OUT_Q = (0.05, -3), (0.08, 2)
"""Input and output quantization of every layer (scale, zero point): nonzero zero points, so the
kernels' offset paths run as in the MLPerf models."""


def _filter(
    b: LiteRTModelBuilder, rng: np.random.Generator, shape: tuple[int, ...], axis: int
) -> tuple[int, int]:
    """Per-channel int8 weights of ``shape`` (channels along ``axis``) and their int32 bias."""
    channels = shape[axis]
    scales = rng.uniform(0.002, 0.01, channels).astype(np.float32)
    weights = b.add_tensor(
        "w",
        shape,
        "int8",
        data=rng.integers(-127, 128, shape).astype(np.int8),
        quantization=(scales, np.zeros(channels, np.int64), axis),
    )
    bias = b.add_tensor(
        "b",
        (channels,),
        "int32",
        data=rng.integers(-3000, 3000, channels),
        quantization=(scales * IN_Q[0], np.zeros(channels, np.int64), 0),
    )
    return weights, bias


def layer_model(family: str, shape: tuple[int, ...], path: Path) -> Path:
    """A model of one int8 layer of ``family`` and ``shape`` (RELU; SAME padding for windows),
    its constants drawn from a generator seeded by the shape."""
    rng = np.random.default_rng([len(family), *shape])
    b = LiteRTModelBuilder(f"kernel_cycles {family} {shape}")
    act = litert.ActivationFunctionType.RELU
    if family == "fully_connected_s8":
        depth, units = shape
        x = b.add_tensor("x", (1, depth), "int8", quantization=IN_Q)
        w, bias = _filter(b, rng, (units, depth), 0)
        y = b.add_tensor("y", (1, units), "int8", quantization=OUT_Q)
        fc = litert.FullyConnectedOptionsT()
        fc.fusedActivationFunction = act
        b.add_operator("FULLY_CONNECTED", [x, w, bias], [y], fc)
    else:
        if OP_TYPES[family] == "CONV_2D":
            h, w_, cin, cout, kh, kw, stride = shape
            options: litert.Conv2DOptionsT | litert.DepthwiseConv2DOptionsT = litert.Conv2DOptionsT()
            filt, axis = (cout, kh, kw, cin), 0
        else:
            h, w_, cin, kh, kw, stride = shape
            cout = cin
            options = litert.DepthwiseConv2DOptionsT()
            options.depthMultiplier = 1
            filt, axis = (1, kh, kw, cin), 3
        options.padding = litert.Padding.SAME if kh * kw > 1 else litert.Padding.VALID
        options.strideH = options.strideW = stride
        options.dilationHFactor = options.dilationWFactor = 1
        options.fusedActivationFunction = act
        x = b.add_tensor("x", (1, h, w_, cin), "int8", quantization=IN_Q)
        w, bias = _filter(b, rng, filt, axis)
        out_h, out_w = (-(-h // stride), -(-w_ // stride)) if kh * kw > 1 else (h, w_)
        y = b.add_tensor("y", (1, out_h, out_w, cout), "int8", quantization=OUT_Q)
        b.add_operator(OP_TYPES[family], [x, w, bias], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def measure_one(family: str, shape: tuple[int, ...], value: str, cpu: str, work: Path) -> KernelCycles:
    """Convert, build and run one layer with one kernel on one core; its row."""
    core = CORE_OF[cpu]
    work.mkdir(parents=True, exist_ok=True)
    model = layer_model(family, shape, work / "layer.tflite")
    knob = family not in VALUES
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model)},
            "module": {"path": str(work / "module"), "name": "layer"},
            "platform": {"name": DEFAULT_PLATFORMS[cpu]},
            "test": {"enabled": True, "samples": 1, "tolerance": 0.0},
            "operators": [{"type": OP_TYPES[family], "optimization": {"kernel": value}}] if knob else [],
            "force": True,
        }
    )
    with ExitStack() as stack:
        for other, today in BASELINE.items():  # the other decisions as they were before any table
            stack.enter_context(forced(other, today))
        stack.enter_context(forced(family, value))
        result = AotConverter(config).convert()
    module, prefix = Path(result.output), result.prefix
    plan = json.loads(next(module.glob("*plan.json")).read_text())
    if knob:
        chosen = {op["knobs"]["kernel"]["value"] for op in plan["operators"] if "kernel" in op["knobs"]}
    else:
        calls = json.dumps([op["kernel"] for op in plan["operators"]])
        chosen = {"im2col" if "im2col" in calls else "direct"}
    if chosen != {value}:
        raise SystemExit(f"{family} {shape}: asked for the {value} kernel, the conversion took {chosen}")
    size = int(np.prod(model_input_shape(family, shape)))
    data = np.random.default_rng([7, *shape]).integers(-128, 128, size).astype(np.int8).tobytes()
    elf = cross_build_module(
        module,
        work / core,
        core,
        prefix=prefix,
        main_source=bench_main(prefix, [data]),
        extra_cflags=placement_flags(module, prefix),
    )
    run, cycles, _clock, unknown = run_modeled(elf, core)
    if run.returncode != 0 or "PASS" not in run.stdout or len(run.regions) != 1 or unknown:
        raise SystemExit(
            f"{family} {shape} {value} {core}: golden test or model failed "
            f"(exit {run.returncode}, unknown {unknown[:3]})\n{run.stdout[-400:]}"
        )
    return KernelCycles(family, cpu, shape, value, int(cycles[0]), int(run.regions[0]))


def model_input_shape(family: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The input tensor's shape of :func:`layer_model`'s layer."""
    if family == "fully_connected_s8":
        return (1, shape[0])
    return (1, shape[0], shape[1], shape[2])


def cases(families: Iterable[str], limit: int | None = None) -> list[tuple[str, tuple[int, ...]]]:
    """(family, shape) of the grid, the first ``limit`` shapes of each family when given."""
    return [(f, s) for f in families for s in GRID[f][:limit]]


def measure(
    chosen: Sequence[tuple[str, tuple[int, ...]]], cpus: Sequence[str], work: Path, echo: bool = True
) -> list[KernelCycles]:
    """Every kernel of every (family, shape) in ``chosen`` on every core in ``cpus``."""
    rows = []
    for family, shape in chosen:
        for value in VALUES.get(family, KNOB_VALUES):
            for cpu in (c for c in cpus if c in CPUS_OF.get(family, CPUS)):
                folder = work / family / "x".join(map(str, shape)) / value / CORE_OF[cpu]
                row = measure_one(family, shape, value, cpu, folder)
                rows.append(row)
                if echo:
                    print(
                        f"{family:19} {str(list(shape)):28} {value:12} {cpu:10} "
                        f"{row.cycles:>12,} cycles {row.instructions:>12,} instructions",
                        flush=True,
                    )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join(GRID), help="comma-separated: " + ", ".join(GRID))
    parser.add_argument("--cores", default="m55,m4", help="comma-separated: m55, m4")
    parser.add_argument("--limit", type=int, default=None, help="the first N shapes of each family only")
    parser.add_argument("--dry-run", action="store_true", help="print the rows, do not write the table")
    parser.add_argument("--check", action="store_true", help="compare with the shipped table, write nothing")
    parser.add_argument("--work-dir", type=Path, default=None, help="keep models, modules and builds here")
    args = parser.parse_args(argv)
    problem = toolchain_problem()
    if problem:
        print(f"kernel_cycles: cannot run: {problem}", file=sys.stderr)
        return 2
    families = [f for f in args.families.split(",") if f]
    cores = [c for c in args.cores.split(",") if c]
    unknown = [f for f in families if f not in GRID] + [c for c in cores if c not in ("m55", "m4")]
    if unknown:
        parser.error(f"unknown family or core: {', '.join(unknown)}")
    cpus = [cpu for cpu, core in CPUS.items() if core in cores]
    with tempfile.TemporaryDirectory(prefix="kernel-cycles-") as tmp:
        rows = measure(cases(families, args.limit), cpus, args.work_dir or Path(tmp))
    if args.check:
        shipped = {row.key(): row for row in parse_table(TABLE.read_text(encoding="utf-8"))}
        differ = [row for row in rows if shipped.get(row.key()) != row]
        for row in differ:
            print(f"differs: {row.record()} (shipped: {shipped.get(row.key())})")
        return 1 if differ else 0
    whole = set(families) == set(GRID) and set(cpus) == set(CPUS) and args.limit is None
    if not args.dry_run:
        if not whole:
            parser.error("a subset (--families, --cores, --limit) is not written: add --dry-run or --check")
        TABLE.write_text(table_text(rows, GENERATED_BY), encoding="utf-8")
        print(f"wrote {TABLE.relative_to(ROOT)} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "CPUS_OF",
    "FEATURES",
    "GRID",
    "KNOB_VALUES",
    "VALUES",
    "cases",
    "layer_model",
    "measure",
    "measure_one",
]
