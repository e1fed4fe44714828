"""Instructions per inference of the float16 accumulating kernels at each ``accumulation`` value.

The ``accumulation`` knob decides how float16 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED sum
their products: ``precise`` (the default) in float, ``fast`` (with ``allow_approximate``) in
Helium's eight float16 lanes. This script builds one float16 layer per family with the LiteRT
builder, converts it with each value (the self-test's golden is the float32 twin, within
``2^-4`` relative: this measures speed, tests/ops_builtin/common/test_float16_ops.py checks accuracy),
cross-builds it at -O2 for the Cortex-M55, checks the golden test passes, and counts one
inference's instructions under QEMU. It prints one row per family and value, and the ratio.

    python bench/float16_accumulation.py
    python bench/float16_accumulation.py --write-figures   # also record docs/float16.md's table

``--write-figures`` records the counts as docs/float16.md quotes them (millions to two decimals,
thousands to three figures, ratios to one decimal) in docs/figures.json as
``f16_accumulation.precise`` and ``f16_accumulation.fast`` (docs/figures.md).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import cross_build_module, run_qemu, toolchain_problem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import bench_main  # noqa: E402  (the same counted main as the model benchmark)

VALUES = ("precise", "fast")
SAME = litert.Padding.SAME


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


def _const(b: LiteRTModelBuilder, name: str, shape, rng) -> int:
    data = (rng.standard_normal(shape) * 0.25).astype(np.float16)
    return b.add_tensor(name, shape, "float16", data=data)


def conv(b: LiteRTModelBuilder, rng) -> tuple[int, int]:
    x = b.add_tensor("x", (1, 12, 12, 16), "float16")
    y = b.add_tensor("y", (1, 12, 12, 16), "float16")
    opts = _options(
        litert.Conv2DOptionsT, padding=SAME, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1
    )
    b.add_operator("CONV_2D", [x, _const(b, "w", (16, 3, 3, 16), rng), _const(b, "b", (16,), rng)], [y], opts)
    return x, y


def depthwise(b: LiteRTModelBuilder, rng) -> tuple[int, int]:
    x = b.add_tensor("x", (1, 16, 16, 32), "float16")
    y = b.add_tensor("y", (1, 16, 16, 32), "float16")
    opts = _options(
        litert.DepthwiseConv2DOptionsT,
        padding=SAME,
        strideH=1,
        strideW=1,
        depthMultiplier=1,
        dilationHFactor=1,
        dilationWFactor=1,
    )
    w, bias = _const(b, "w", (1, 3, 3, 32), rng), _const(b, "b", (32,), rng)
    b.add_operator("DEPTHWISE_CONV_2D", [x, w, bias], [y], opts)
    return x, y


def fully_connected(b: LiteRTModelBuilder, rng) -> tuple[int, int]:
    x = b.add_tensor("x", (1, 256), "float16")
    y = b.add_tensor("y", (1, 64), "float16")
    w, bias = _const(b, "w", (64, 256), rng), _const(b, "b", (64,), rng)
    b.add_operator("FULLY_CONNECTED", [x, w, bias], [y], litert.FullyConnectedOptionsT())
    return x, y


LAYERS: dict[str, Callable[[LiteRTModelBuilder, np.random.Generator], tuple[int, int]]] = {
    "conv_f16 16x3x3x16 on 12x12": conv,
    "depthwise_f16 3x3 x32 on 16x16": depthwise,
    "fully_connected_f16 256->64": fully_connected,
}


SHAPES = {
    "conv_f16 16x3x3x16 on 12x12": (1, 12, 12, 16),
    "depthwise_f16 3x3 x32 on 16x16": (1, 16, 16, 32),
    "fully_connected_f16 256->64": (1, 256),
}


def measure(name: str, work: Path) -> dict[str, int]:
    b = LiteRTModelBuilder()
    x, y = LAYERS[name](b, np.random.default_rng(0))
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(work / "model.tflite")
    shape = SHAPES[name]
    sample = np.random.default_rng(1).uniform(-2, 2, shape).astype(np.float16)
    counts = {}
    for value in VALUES:
        folder = work / value
        config = {
            "model": {"path": str(model)},
            "module": {"path": str(folder / "module"), "name": "bench"},
            "test": {"enabled": True, "tolerance": 2.0**-4},
            "optimization": {"accumulation": value, "allow_approximate": True},
        }
        result = AotConverter(ConvertArgs.model_validate(config)).convert()
        knobs = {op.knobs["accumulation"].value for op in result.plan.operators if "accumulation" in op.knobs}
        assert knobs == {value}, f"{name}: the plan records {knobs}, not {value}"
        inputs = [sample.tobytes()]
        elf = cross_build_module(
            Path(result.output),
            folder / "m55",
            "m55",
            prefix=result.prefix,
            main_source=bench_main(result.prefix, inputs),
        )
        run = run_qemu(elf, "m55", timeout=600)
        if run.returncode != 0 or "PASS" not in run.stdout or len(run.regions) != 1:
            raise SystemExit(f"{name} {value}: golden test failed\n{run.stdout[-400:]}")
        counts[value] = int(run.regions[0])
    return counts


def quoted(count: int) -> float:
    """A count as the docs quote it: 2,897,000 -> 2.90 (M), 114,482 -> 114 (k), 26,611 -> 26.6 (k)."""
    if count >= 1_000_000:
        return round(count / 1e6, 2)
    return round(count / 1e3) if count >= 100_000 else round(count / 1e3, 1)


def figures(counts: dict[str, dict[str, int]]) -> dict[str, list[float]]:
    """docs/float16.md's two rows: precise per layer; fast per layer with precise / fast."""
    precise = [quoted(c["precise"]) for c in counts.values()]
    fast: list[float] = []
    for c in counts.values():
        fast += [quoted(c["fast"]), round(c["precise"] / c["fast"], 1)]
    return {"f16_accumulation.precise": precise, "f16_accumulation.fast": fast}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-figures", action="store_true", help="record the table in docs/figures.json")
    args = parser.parse_args(argv)
    problem = toolchain_problem()
    if problem:
        print(f"skipped: {problem}")
        return 1
    print(f"{'layer (float16, Cortex-M55)':34} {'precise':>12} {'fast':>12} {'precise/fast':>13}")
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="f16-acc-") as tmp:
        for name in LAYERS:
            work = Path(tmp) / name.split()[0]
            work.mkdir()
            c = counts[name] = measure(name, work)
            print(f"{name:34} {c['precise']:>12,} {c['fast']:>12,} {c['precise'] / c['fast']:>12.2f}x")
    if args.write_figures:
        from figures import report_written, write_figures

        report_written(write_figures(figures(counts), "python bench/float16_accumulation.py"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
