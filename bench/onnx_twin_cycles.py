"""Modeled cycles of the four QDQ ONNX MLPerf Tiny twins beside their LiteRT twins, on both cores.

The ONNX twins are the QDQ models ``helia_aot_frontend_onnx/scripts/make_models.py`` writes
(``helia_aot_frontend_onnx/tests/data``), converted with requantization ``onnx``; the LiteRT
twins are the int8 models of ``tests/data/models``. Both are measured as bench/cross_bench.py
measures a model: converted with their golden test (the ONNX one against the exact-arithmetic
QDQ model of ``scripts/qdq_numerics.py``, bit-exact), cross-built at -O2, the golden test run
first (it must PASS), then one counted inference on the first golden sample under the cycle
model (docs/cycles.md) of the core's default platform. Needs the ONNX front end installed.

The LiteRT twins take and give int8; the QDQ models as ``quantize_static`` writes them take and
give float32, so their modules quantize the input and dequantize the output besides. Each ONNX
twin is therefore measured twice: as written (float interface) and with the LiteRT twin's
interface (int8 in and out: the input's QuantizeLinear and the output's DequantizeLinear
removed, as the arena comparison of helia_aot_frontend_onnx/tests/test_onnx_qdq.py removes them;
golden data the exact model's int8 values there). The ratio compares like with like: the int8
interface's cycles over the LiteRT twin's.

    python bench/onnx_twin_cycles.py                   # kws, ic, vww, ad on m55 and m4
    python bench/onnx_twin_cycles.py --models kws --cores m55
    python bench/onnx_twin_cycles.py --write-figures   # and record docs/onnx.md's table

``--write-figures`` records each row (ONNX cycles at the float interface, at the int8 interface,
LiteRT cycles, the int8 interface's ratio to them to two places) as ``onnx_twin_<model>_<core>``
in docs/figures.json (bench/figures.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cross_bench import DATA_DIR, MLPERF, CoreResult, bench_model, measure_module  # noqa: E402
from helia_aot import AotConverter, ConvertArgs  # noqa: E402
from helia_aot.registry import build_default_registry_context  # noqa: E402

ONNX_DIR = Path(__file__).resolve().parents[1] / "helia_aot_frontend_onnx"
TWINS = {"kws": "kws_dscnn", "ic": "ic_resnet8", "vww": "vww_mobilenet025", "ad": "ad_autoencoder"}
"""Short name -> stem of the QDQ twin in helia_aot_frontend_onnx/tests/data."""


def _script(name: str, path: Path) -> ModuleType:
    """A module of the front end's that is a script or a test helper, not a package module."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_onnx_twin(stem: str, cores: list[str], work: Path, int8: bool) -> list[CoreResult]:
    """Convert the QDQ twin (``int8``: with the LiteRT twin's int8 interface) with the exact
    model's outputs as golden data and measure it."""
    import onnx

    numerics = _script("qdq_numerics", ONNX_DIR / "scripts" / "qdq_numerics.py")
    data = ONNX_DIR / "tests" / "data"
    model = onnx.load(str(data / f"{stem}_qdq.onnx"))
    golden = np.load(data / f"{stem}_qdq.npz")
    work.mkdir(parents=True, exist_ok=True)
    path = data / f"{stem}_qdq.onnx"
    inputs = golden["input"]
    if int8:
        graphs = _script("onnx_graphs", ONNX_DIR / "tests" / "onnx_graphs.py")
        g = model.graph
        quantize = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == g.input[0].name)
        dequantize = next(
            n for n in g.node if n.op_type == "DequantizeLinear" and n.output[0] == g.output[0].name
        )
        inputs = np.stack([numerics.exact_model(model, x, quantize.output[0]) for x in inputs]).astype(
            np.int8
        )
        exact = np.stack([numerics.exact_model(model, x, dequantize.input[0]) for x in golden["input"]])
        exact = exact.astype(np.int8)
        path = work / f"{stem}_qdq_int8.onnx"
        onnx.save(graphs.int8_boundaries(model), str(path))
    else:
        exact = np.stack([numerics.exact_model(model, x) for x in inputs]).astype(np.float32)
    npz = work / "exact.npz"
    np.savez(npz, input_0=inputs, output_0=exact)
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(path)},
            "module": {"path": str(work / "module"), "name": stem},
            "test": {"enabled": True, "golden_data": str(npz), "tolerance": 0.0},
            "force": True,
        }
    )
    result = AotConverter(config).convert()
    module = Path(result.output)
    plan = json.loads(next(module.glob("*_plan.json")).read_text())
    perm = plan.get("source", {}).get("layouts", {}).get("inputs", [None])[0]
    first = np.asarray(inputs[0])
    sample = np.ascontiguousarray(first if perm is None else np.transpose(first, perm))
    return measure_module(f"{stem}_qdq", module, result.prefix, [sample.tobytes()], cores, work)


Row = tuple[str, str, CoreResult, CoreResult, CoreResult]
"""model, core, the ONNX twin at the float interface, at the int8 interface, the LiteRT twin."""


def format_rows(rows: list[Row]) -> str:
    header = f"{'model':6} {'core':4} {'ONNX float io':>14} {'ONNX int8 io':>13} {'LiteRT':>12} {'ratio':>6}"
    header += "  tests"
    lines = [header, "-" * len(header)]
    for short, core, float_row, int8_row, litert_row in rows:
        ratio = (
            f"{int8_row.cycles / litert_row.cycles:6.2f}"
            if int8_row.cycles and litert_row.cycles
            else f"{'-':>6}"
        )
        status = " ".join(
            "PASS" if r.passed else f"FAIL({r.note})" for r in (float_row, int8_row, litert_row)
        )
        lines.append(
            f"{short:6} {core:4} {float_row.cycles or 0:14,} {int8_row.cycles or 0:13,} "
            f"{litert_row.cycles or 0:12,} {ratio}  {status}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(TWINS), help="comma-separated: " + ", ".join(TWINS))
    parser.add_argument("--cores", default="m55,m4", help="comma-separated: m55, m4")
    parser.add_argument("--work-dir", type=Path, help="keep modules and builds here (default: a temp dir)")
    parser.add_argument("--write-figures", action="store_true", help="record the rows in docs/figures.json")
    args = parser.parse_args(argv)
    cores = args.cores.split(",")
    entries = {e["name"]: e for e in json.loads((DATA_DIR / "manifest.json").read_text())}
    registry = build_default_registry_context()
    rows = []
    with tempfile.TemporaryDirectory(prefix="helia_aot_twins_") as scratch:
        work = args.work_dir or Path(scratch)
        for short in args.models.split(","):
            float_rows = bench_onnx_twin(TWINS[short], cores, work / f"{short}_onnx", int8=False)
            int8_rows = bench_onnx_twin(TWINS[short], cores, work / f"{short}_onnx_int8", int8=True)
            litert_rows = bench_model(
                entries[f"{MLPERF[short]}_int8"], cores, work / f"{short}_litert", registry
            )
            for float_row, int8_row, litert_row in zip(float_rows, int8_rows, litert_rows, strict=True):
                rows.append((short, float_row.core, float_row, int8_row, litert_row))
            print(format_rows(rows[-len(cores) :]).splitlines()[-len(cores) :], flush=True)
    print(format_rows(rows))
    passed = all(f.passed and i.passed and r.passed for _, _, f, i, r in rows)
    if args.write_figures and passed:
        from figures import report_written, write_figures

        figures = {
            f"onnx_twin_{short}_{core}": [
                f.cycles or 0,
                i.cycles or 0,
                r.cycles or 0,
                round((i.cycles or 0) / (r.cycles or 1), 2),
            ]
            for short, core, f, i, r in rows
        }
        report_written(write_figures(figures, "python bench/onnx_twin_cycles.py --write-figures"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
