"""How much faster Load's struct-level unpacker is than the flatc bindings' object API.

Load reads a model with ``helia_aot.converters.litert.unpack.unpack_model`` (direct struct reads
for tensors, quantization, operators and buffers, every other table from its layout) instead of
the generated ``ModelT.InitFromPackedBuf``. This times both on the MLPerf Tiny int8 models (the
best of five repeats of twenty unpacks each, after one warm-up) and prints the ratio per model.
Timings vary with the machine's load; the ratio much less.

    python bench/unpack_speed.py
    python bench/unpack_speed.py --write-figures   # record docs/architecture.md's range
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

from helia_aot.converters.litert.unpack import unpack_model
from helia_aot.litert import schema_py_generated as litert

MODELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"
NAMES = ("mlperf_kws_dscnn_int8", "mlperf_ic_resnet8_int8", "mlperf_vww_mobilenetv1_025_int8")


def seconds(unpack: Callable[[bytes], object], buf: bytes) -> float:
    """Best time of one ``unpack(buf)``."""
    unpack(buf)
    return min(timeit.repeat(lambda: unpack(buf), number=20, repeat=5)) / 20


def bindings(buf: bytes) -> object:
    return litert.ModelT.InitFromPackedBuf(buf, 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-figures", action="store_true", help="record the range in docs/figures.json")
    args = parser.parse_args(argv)
    ratios = []
    print(f"{'model':34} {'unpack ms':>10} {'object API ms':>14} {'ratio':>6}")
    for name in NAMES:
        buf = (MODELS / f"{name}.tflite").read_bytes()
        ours, theirs = seconds(unpack_model, buf), seconds(bindings, buf)
        ratios.append(theirs / ours)
        print(f"{name:34} {ours * 1e3:10.2f} {theirs * 1e3:14.2f} {theirs / ours:5.1f}x")
    if args.write_figures:
        from figures import report_written, write_figures

        figures = {"unpack_speedup": [round(min(ratios)), round(max(ratios))]}
        report_written(write_figures(figures, "python bench/unpack_speed.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
