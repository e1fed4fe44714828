"""Regenerate the hybrid (dynamic-range quantized) corpus models and their golden data.

Not run by the tests (CI needs neither ai-edge-quantizer nor this script): it records how the
committed files were made. Each model is a float32 corpus model of this folder's parent quantized
with ai-edge-quantizer's dynamic recipe (float32 activations, int8 weights); its golden data are
the float twin's golden inputs (the calibrated range the corpus uses) run through LiteRT's
reference kernels. Run it in an environment with ai-edge-quantizer (it pulls ai-edge-litert):

    python -m venv /tmp/aeq && /tmp/aeq/bin/pip install ai-edge-quantizer==0.10.0
    /tmp/aeq/bin/python tests/data/hybrid/make_hybrid_models.py

It rewrites tests/data/models/<name>.tflite, tests/data/golden/<name>.npz and the models'
entries of tests/data/manifest.json (sha256, size, operators), and prints each model's hash.
"""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from ai_edge_quantizer import quantizer, recipe

DATA = Path(__file__).resolve().parents[1]
RECIPE = "dynamic_wi8_afp32"
MODELS = {
    "mlperf_kws_dscnn_hybrid": "mlperf_kws_dscnn_float32",
    "mlperf_ad_fc_autoencoder_hybrid": "mlperf_ad_fc_autoencoder_float32",
}
"""Hybrid model -> the float32 corpus model it is made from."""


def quantize(source: Path, target: Path) -> None:
    qt = quantizer.Quantizer(str(source))
    qt.load_quantization_recipe(getattr(recipe, RECIPE)())
    qt.quantize().export_model(str(target), overwrite=True)


def golden(model: Path, inputs: np.ndarray, target: Path) -> None:
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    (detail,) = interpreter.get_input_details()
    outputs = []
    for sample in inputs:
        interpreter.set_tensor(detail["index"], sample)
        interpreter.invoke()
        outputs.append([interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()])
    arrays = {"in_0": inputs}
    arrays.update({f"ref_out_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
    np.savez(target, **arrays)


def operators(model: Path) -> list[str]:
    interpreter = Interpreter(model_path=str(model))
    return sorted({op["op_name"] for op in interpreter._get_ops_details()})


def main() -> None:
    entries = json.loads((DATA / "manifest.json").read_text())
    by_name = {e["name"]: e for e in entries}
    for name, source_name in MODELS.items():
        source = by_name[source_name]
        model = DATA / "models" / f"{name}.tflite"
        quantize(DATA / source["file"], model)
        with np.load(DATA / source["golden"]) as data:
            golden(model, data["in_0"], DATA / "golden" / f"{name}.npz")
        raw = model.read_bytes()
        entry = {
            key: source[key]
            for key in ("category", "dtype", "inputs", "outputs", "reference_op_resolver")
            if key in source
        }
        entry.update(
            name=name,
            file=f"models/{name}.tflite",
            golden=f"golden/{name}.npz",
            ops=operators(model),
            bytes=len(raw),
            sha256=hashlib.sha256(raw).hexdigest(),
            notes=(
                f"{source_name} quantized with ai-edge-quantizer {version('ai-edge-quantizer')} "
                f"recipe {RECIPE} (hybrid: float32 activations, int8 weights); golden from "
                f"ai-edge-litert {version('ai-edge-litert')} BUILTIN_REF on {source_name}'s golden inputs. "
                "Made by tests/data/hybrid/make_hybrid_models.py."
            ),
        )
        if name in by_name:
            entries[entries.index(by_name[name])] = entry
        else:
            entries.append(entry)
        print(name, entry["sha256"], entry["bytes"])
    (DATA / "manifest.json").write_text(json.dumps(entries, indent=1) + "\n")


if __name__ == "__main__":
    main()
