"""Regenerate the hybrid LSTM model made by TensorFlow's converter, and its golden data.

Not run by the tests (CI needs no TensorFlow): it records how the committed files were made. A
Keras model (an LSTM over a short sequence, then a dense layer) with seeded random weights is
converted with ``optimizations = [tf.lite.Optimize.DEFAULT]`` and no representative dataset: the
converter's dynamic-range quantization, which keeps activations float32 and stores the LSTM's
and the dense layer's weights as int8 (a hybrid UNIDIRECTIONAL_SEQUENCE_LSTM and FULLY_CONNECTED).
The golden data are seeded inputs at several scales run one after another through one LiteRT
interpreter with the reference kernels (the LSTM's state carries from sample to sample, as in
the module). Run it in an environment with TensorFlow, tf-keras (Keras 3's LSTM is not fused
into UNIDIRECTIONAL_SEQUENCE_LSTM by the converter; Keras 2's is) and ai-edge-litert:

    python -m venv /tmp/tf
    /tmp/tf/bin/pip install tensorflow-cpu==2.21.0 tf-keras==2.21.0 ai-edge-litert==2.3.0
    /tmp/tf/bin/python tests/data/hybrid/make_lstm_hybrid_model.py

It rewrites lstm_hybrid.tflite and lstm_hybrid.npz beside this file and prints their hashes.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

os.environ["TF_USE_LEGACY_KERAS"] = "1"  # Keras 2 (tf-keras): its LSTM converts to one fused op
import tensorflow as tf  # noqa: E402
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

HERE = Path(__file__).resolve().parent
STEPS, FEATURES, UNITS, CLASSES = 6, 40, 32, 4
SAMPLES = 5


def keras_model() -> tf.keras.Model:
    tf.keras.utils.set_random_seed(31)
    inputs = tf.keras.Input((STEPS, FEATURES), batch_size=1)
    hidden = tf.keras.layers.LSTM(UNITS, return_sequences=True, unroll=False)(inputs)
    outputs = tf.keras.layers.Dense(CLASSES)(hidden)
    return tf.keras.Model(inputs, outputs)


def convert(model: tf.keras.Model) -> bytes:
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    return bytes(converter.convert())


def golden(path: Path) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(31)
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    (source,) = interpreter.get_input_details()
    (target,) = interpreter.get_output_details()
    inputs, outputs = [], []
    for k in range(SAMPLES):
        spread = 10.0 ** rng.uniform(-1, 0.7)
        value = (rng.standard_normal((1, STEPS, FEATURES)) * spread + rng.uniform(-1, 1) * spread).astype(
            np.float32
        )
        if k == 0:
            value[:] = 0.0  # the zero input skips the products, as the module must too
        interpreter.set_tensor(source["index"], value)
        interpreter.invoke()
        inputs.append(value)
        outputs.append(interpreter.get_tensor(target["index"]).copy())
    return {"input_0": np.stack(inputs), "output_0": np.stack(outputs)}


def main() -> None:
    model = HERE / "lstm_hybrid.tflite"
    model.write_bytes(convert(keras_model()))
    arrays = golden(model)
    np.savez(HERE / "lstm_hybrid.npz", **arrays)
    for path in (model, HERE / "lstm_hybrid.npz"):
        print(path.name, hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_size)


if __name__ == "__main__":
    main()
