"""Regenerate ``mlperf_vww_trained_float_input``: the trained VWW with a float32 input and an int8 body.

Not run by the tests (CI needs neither TensorFlow nor this script): it records how the committed
files were made. A user who converts a trained Keras model with the TensorFlow converter's int8
recipe and leaves ``inference_input_type`` at float32 gets a model whose first operator is a
QUANTIZE of the 96x96x3 float image: that is the model this script writes. Its weights are the
trained MLPerf Tiny VWW MobileNetV1-0.25 of ``../models/mlperf_vww_trained_int8.tflite``
(mlcommons/tiny, Apache License 2.0), dequantized into a Keras model of the same layers, which the
TensorFlow converter quantizes again (per-channel weights, int8 activations, calibrated on seeded
random images in [0, 1), the range the trained model's input quantization covers). Golden outputs
are LiteRT's reference kernels on three seeded images. Run it where TensorFlow and LiteRT are:

    python -m venv /tmp/tf && /tmp/tf/bin/pip install tensorflow-cpu==2.21.0 ai-edge-litert==2.3.0
    /tmp/tf/bin/python tests/data/float_input/make_float_input_vww.py

It rewrites tests/data/models/mlperf_vww_trained_float_input.tflite, its golden data and its
manifest entry, and prints the model's hash.
"""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import tensorflow as tf
from ai_edge_litert.interpreter import Interpreter, OpResolverType

DATA = Path(__file__).resolve().parents[1]
SOURCE = DATA / "models" / "mlperf_vww_trained_int8.tflite"
NAME = "mlperf_vww_trained_float_input"
SEED = 20261207


def dequantized_layers(path: Path) -> list[tuple[str, dict[str, np.ndarray], int]]:
    """(op name, {"w", "b"} float weights, stride) of every weighted layer of the trained model."""
    interpreter = Interpreter(model_path=str(path))
    details = {t["index"]: t for t in interpreter.get_tensor_details()}
    layers = []
    for op in interpreter._get_ops_details():
        if op["op_name"] not in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            continue
        weights = {}
        for key, index in zip(("w", "b"), op["inputs"][1:3], strict=True):
            q = details[index]["quantization_parameters"]
            raw = interpreter.get_tensor(index).astype(np.float32)
            axis = q["quantized_dimension"]
            shape = [1] * raw.ndim
            shape[axis] = -1
            scales = q["scales"].reshape(shape) if raw.ndim > 1 else q["scales"]
            weights[key] = (raw - q["zero_points"].reshape(shape if raw.ndim > 1 else -1)) * scales
        source = details[op["inputs"][0]]["shape"]
        target = details[op["outputs"][0]]["shape"]
        stride = int(source[1] // target[1]) if len(source) == 4 else 1
        layers.append((op["op_name"], weights, stride))
    return layers


def keras_model(layers: list[tuple[str, dict[str, np.ndarray], int]]) -> tf.keras.Model:
    image = tf.keras.Input((96, 96, 3), batch_size=1)
    x = image
    for name, weights, stride in layers:
        w, b = weights["w"], weights["b"]
        if name == "CONV_2D":
            layer = tf.keras.layers.Conv2D(w.shape[0], w.shape[1:3], stride, "same", activation="relu")
            x = layer(x)
            layer.set_weights([np.transpose(w, (1, 2, 3, 0)), b])
        elif name == "DEPTHWISE_CONV_2D":
            layer = tf.keras.layers.DepthwiseConv2D(w.shape[1:3], stride, "same", activation="relu")
            x = layer(x)
            layer.set_weights([np.transpose(w, (1, 2, 3, 0)), b])
        else:
            x = tf.keras.layers.GlobalAveragePooling2D()(x)
            layer = tf.keras.layers.Dense(w.shape[0], activation="softmax")
            x = layer(x)
            layer.set_weights([w.T, b])
    return tf.keras.Model(image, x)


def convert(model: tf.keras.Model) -> bytes:
    rng = np.random.default_rng(SEED)

    def representative() -> object:
        for _ in range(32):
            yield [rng.random((1, 96, 96, 3), dtype=np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.float32  # the default, said out loud: a QUANTIZE comes first
    converter.inference_output_type = tf.int8
    return bytes(converter.convert())


def golden(path: Path, target: Path) -> None:
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    (detail,) = interpreter.get_input_details()
    inputs = np.random.default_rng(SEED + 1).random((3, 1, 96, 96, 3), dtype=np.float32)
    outputs = []
    for sample in inputs:
        interpreter.set_tensor(detail["index"], sample)
        interpreter.invoke()
        outputs.append([interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()])
    arrays = {"in_0": inputs}
    arrays.update({f"ref_out_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
    np.savez(target, **arrays)


def io_entries(details: list[dict]) -> list[dict]:
    rows = []
    for d in details:
        scale, zero_point = d["quantization"]
        quant = {"scale": float(scale), "zero_point": int(zero_point)} if scale else None
        rows.append(
            {"name": d["name"], "shape": d["shape"].tolist(), "dtype": d["dtype"].__name__, "quant": quant}
        )
    return rows


def main() -> None:
    target = DATA / "models" / f"{NAME}.tflite"
    target.write_bytes(convert(keras_model(dequantized_layers(SOURCE))))
    golden(target, DATA / "golden" / f"{NAME}.npz")
    interpreter = Interpreter(model_path=str(target))
    raw = target.read_bytes()
    entry = {
        "name": NAME,
        "file": f"models/{NAME}.tflite",
        "category": "mlperf_tiny",
        "dtype": "int8",
        "ops": sorted({op["op_name"] for op in interpreter._get_ops_details()}),
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "inputs": [dict(row, golden_range=[0.0, 1.0]) for row in io_entries(interpreter.get_input_details())],
        "outputs": io_entries(interpreter.get_output_details()),
        "golden": f"golden/{NAME}.npz",
        "reference_op_resolver": "BUILTIN_REF",
        "notes": "The trained MLPerf Tiny VWW MobileNetV1-0.25 weights of mlperf_vww_trained_int8 "
        "(mlcommons/tiny, Apache License 2.0), dequantized into Keras and converted again by the "
        f"TensorFlow converter {version('tensorflow-cpu')} with a float32 input (its first operator "
        "QUANTIZEs the 96x96x3 image) and an int8 output, calibrated on seeded random images; made by "
        "float_input/make_float_input_vww.py. Golden: three images in [0, 1), reference interpreter "
        f"(ai-edge-litert {version('ai-edge-litert')}).",
    }
    manifest = DATA / "manifest.json"
    entries = [e for e in json.loads(manifest.read_text()) if e["name"] != NAME] + [entry]
    manifest.write_text(json.dumps(entries, indent=1) + "\n")
    print(NAME, entry["sha256"])


if __name__ == "__main__":
    main()
