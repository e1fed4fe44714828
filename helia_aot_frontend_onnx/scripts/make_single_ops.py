"""Make the single-operator ONNX models of the operators onnxruntime computes in its own way,
with golden data from onnxruntime (run by hand; needs onnx and onnxruntime, no torch):

    .venv/bin/python helia_aot_frontend_onnx/scripts/make_single_ops.py

Each model holds its cases side by side, one graph input and one output per case (they share
nothing), so one conversion and one build test them all:

- ``single_ops_float.onnx``: linear Resize in each coordinate transformation onnxruntime and
  the front end compute (half_pixel, pytorch_half_pixel, asymmetric, align_corners), up and
  down, by sizes and by scales (a scale whose output size is rounded down, so the scale is not
  output / input);
- ``single_ops_qdq.onnx``: the same Resizes, a Sigmoid, a LeakyRelu, and a zero Pad before a
  convolution and before a depthwise one (folded into their pads), written with
  ``onnx.helper`` and quantized by ``onnxruntime.quantization.quantize_static`` (QDQ, int8,
  ``ForceQuantizeNoInputCheck`` so a Resize of a graph input is quantized too), calibrated on
  seeded random inputs;
- ``single_ops_float.npz`` / ``single_ops_qdq.npz``: three samples of each input (NCHW,
  float32; ``input_<i>``) and onnxruntime's default session's outputs (``output_<j>``), the
  golden data of ``helia-aot test``; the QDQ file also holds the session without graph
  optimizations (``unoptimized_<j>``);
- ``single_ops.json``: the manifest (versions, each file's sha256 and size).

Written to ``helia_aot_frontend_onnx/tests/data/``; tests/test_onnx_single_ops.py converts both
models and requires every output identical to onnxruntime's.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SEED = 20261208
OPSET = 17
SAMPLES = 3
CALIBRATION_SAMPLES = 16

RESIZES = (
    # name, coordinate transformation, input shape, sizes or None, scales or None
    ("resize_half_pixel", "half_pixel", (1, 3, 5, 7), (1, 3, 9, 4), None),
    ("resize_pytorch_half_pixel", "pytorch_half_pixel", (1, 2, 6, 6), None, (1.0, 1.0, 0.5, 1.5)),
    ("resize_asymmetric", "asymmetric", (1, 4, 3, 3), None, (1.0, 1.0, 2.5, 2.0)),
    ("resize_align_corners", "align_corners", (1, 3, 4, 5), (1, 3, 7, 3), None),
)
PADDED = (
    # name, input shape, Pad pads (ONNX order), Conv weights, Conv attributes
    ("pad_conv", (1, 3, 6, 6), (0, 0, 1, 2, 0, 0, 2, 1), (4, 3, 3, 3), {"strides": [2, 2]}),
    (
        "pad_depthwise",
        (1, 4, 5, 5),
        (0, 0, 1, 1, 0, 0, 0, 1),
        (4, 1, 3, 3),
        {"group": 4, "pads": [0, 1, 1, 0]},
    ),
)
ACTIVATIONS = (
    ("sigmoid", "Sigmoid", (1, 64), {}),
    ("leaky_relu", "LeakyRelu", (1, 4, 4, 4), {"alpha": 0.1}),
)


def _graph(cases: list[tuple[str, str, tuple[int, ...], dict, list[onnx.TensorProto]]]) -> onnx.ModelProto:
    nodes, inputs, initializers = [], [], []
    for name, op_type, shape, attrs, consts in cases:
        inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        initializers += consts
        source = name
        if "_pad" in attrs:  # a zero Pad first (folded into the convolution after it)
            pads = numpy_helper.from_array(np.array(attrs.pop("_pad"), np.int64), f"{name}_pads")
            initializers.append(pads)
            source = f"{name}_padded"
            nodes.append(helper.make_node("Pad", [name, pads.name], [source], name=f"{name}_pad"))
        args = [source] + [c.name if c.name else "" for c in attrs.pop("_inputs", [])]
        nodes.append(helper.make_node(op_type, args, [f"{name}_out"], name=name, **attrs))
    graph = helper.make_graph(nodes, "single_ops", inputs, [], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
    model.graph.output.extend(inferred[f"{name}_out"] for name, *_ in cases)
    onnx.checker.check_model(model)
    return model


def _resize_cases() -> list:
    cases = []
    for name, transform, shape, sizes, scales in RESIZES:
        consts = []
        if sizes is not None:
            consts.append(numpy_helper.from_array(np.array(sizes, np.int64), f"{name}_sizes"))
            wired = [onnx.TensorProto(), onnx.TensorProto(), consts[-1]]
        else:
            consts.append(numpy_helper.from_array(np.array(scales, np.float32), f"{name}_scales"))
            wired = [onnx.TensorProto(), consts[-1]]
        attrs = {"mode": "linear", "coordinate_transformation_mode": transform, "_inputs": wired}
        cases.append((name, "Resize", shape, attrs, consts))
    return cases


def _pad_cases(rng: np.random.Generator) -> list:
    """A zero Pad before a convolution and before a depthwise one (folded into their pads)."""
    cases = []
    for name, shape, pads, weight_shape, attrs in PADDED:
        weights = numpy_helper.from_array(
            (rng.standard_normal(weight_shape) * 0.3).astype(np.float32), f"{name}_weights"
        )
        cases.append((name, "Conv", shape, {**attrs, "_pad": list(pads), "_inputs": [weights]}, [weights]))
    return cases


def float_model() -> onnx.ModelProto:
    return _graph(_resize_cases())


def qdq_source() -> onnx.ModelProto:
    """The float model the QDQ one is quantized from: the Resizes, the activations and the
    padded convolutions."""
    activations = [(n, op, s, dict(a), []) for n, op, s, a in ACTIVATIONS]
    return _graph(_resize_cases() + activations + _pad_cases(np.random.default_rng(SEED)))


class Calibration(CalibrationDataReader):
    def __init__(self, model: onnx.ModelProto, rng: np.random.Generator) -> None:
        shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
        self.samples = iter(
            {n: rng.uniform(-4, 4, s).astype(np.float32) for n, s in shapes.items()}
            for _ in range(CALIBRATION_SAMPLES)
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.samples, None)


def session(path: Path, optimized: bool = True) -> ort.InferenceSession:
    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def golden(path: Path, rng: np.random.Generator, *, unoptimized: bool) -> dict[str, np.ndarray]:
    """Three samples per input (multiples of 1/16 in [-4, 4]: exact in float32, compressible)
    and onnxruntime's outputs; each output differs between the samples."""
    sess = session(path)
    specs = sess.get_inputs()
    feeds = [
        {s.name: (np.round(rng.uniform(-4, 4, s.shape) * 16) / 16).astype(np.float32) for s in specs}
        for _ in range(SAMPLES)
    ]
    results = [sess.run(None, feed) for feed in feeds]
    arrays = {f"input_{i}": np.stack([f[s.name] for f in feeds]) for i, s in enumerate(specs)}
    for j in range(len(results[0])):
        arrays[f"output_{j}"] = np.stack([r[j] for r in results])
        assert not np.array_equal(results[0][j], results[1][j]), j
    if unoptimized:
        plain = session(path, optimized=False)
        for j in range(len(results[0])):
            arrays[f"unoptimized_{j}"] = np.stack([plain.run(None, f)[j] for f in feeds])
    return arrays


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    float_path, source_path, qdq_path = (
        DATA / "single_ops_float.onnx",
        DATA / "single_ops_source.onnx",
        DATA / "single_ops_qdq.onnx",
    )
    onnx.save(float_model(), str(float_path))
    source = qdq_source()
    onnx.save(source, str(source_path))
    quantize_static(
        str(source_path),
        str(qdq_path),
        Calibration(source, rng),
        quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8,
        extra_options={"ForceQuantizeNoInputCheck": True},  # a Resize of a graph input too
    )
    source_path.unlink()
    files = {}
    for path, unoptimized in ((float_path, False), (qdq_path, True)):
        npz = path.with_suffix(".npz")
        np.savez_compressed(npz, **golden(path, rng, unoptimized=unoptimized))
        files[path.name], files[npz.name] = path, npz
    manifest = {
        "source": "helia_aot_frontend_onnx/scripts/make_single_ops.py",
        "seed": SEED,
        "cases": [r[0] for r in RESIZES] + [a[0] for a in ACTIVATIONS] + [c[0] for c in PADDED],
        "versions": {
            "onnx": onnx.__version__,
            "onnxruntime": ort.__version__,
            "python": sys.version.split()[0],
        },
        "quantization": "quantize_static, QDQ, int8 activations, "
        f"{CALIBRATION_SAMPLES} seeded random calibration samples",
        "files": {n: {"sha256": sha256(p), "bytes": p.stat().st_size} for n, p in sorted(files.items())},
    }
    (DATA / "single_ops.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print({n: p.stat().st_size for n, p in sorted(files.items())})


if __name__ == "__main__":
    main()
