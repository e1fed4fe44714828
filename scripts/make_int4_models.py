"""Make the int4-weight test models in tests/data/int4 and their golden data.

Two kinds of models, both run through LiteRT's reference kernels (``ai-edge-litert``,
``OpResolverType.BUILTIN_REF``) for the golden outputs:

- ``aeq_*``: float32 models quantized by ai-edge-quantizer (Apache-2.0) with int4 weights (per
  channel or per tensor) and int8 or int16 activations, as a user would make them (its static
  recipe quantizes FULLY_CONNECTED and CONV_2D weights to int4 and the other operators to
  int8): models of tests/data/models, and two weight-dominated models built here, each also
  with int8 weights (``*_w8a8``, the twins the constant-size test compares with);
- ``aeq_*_wi4_afp32``: its weight-only int4 recipe (int4 constants DEQUANTIZEd into float
  operators);
- ``op_*``: single-operator models written with ``helia_aot.litert.builder`` for the operator
  ai-edge-quantizer leaves at int8 (DEPTHWISE_CONV_2D), odd sizes and per-tensor filters.
  (LiteRT's BATCH_MATMUL refuses an int4 operand in its Prepare, and its int16 depthwise kernel
  reads an int4 filter's packed bytes as int8 without unpacking them, so neither has a model.)

ai-edge-quantizer is needed only here (``pip install ai-edge-quantizer==0.10.0`` in the venv that
runs this script); the tests read the committed files. Run from the repository root::

    .venv/bin/python scripts/make_int4_models.py

It rewrites tests/data/int4/ (models, golden ``.npz`` with ``in_<i>`` / ``ref_out_<j>``, three
samples each, and ``manifest.json`` with each file's source, tool versions, licence and sha256).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "int4"
SOURCES = ROOT / "tests" / "data" / "models"
SAMPLES = 3

# (name, float32 source in tests/data/models, activation bits, weight granularity, input range);
# weight bits 4 unless the name says w8 (the int8 twin the constant-size test compares with).
QUANTIZED = [
    ("aeq_kws_dscnn_probe_w8a8", "mlperf_kws_dscnn_float32_probe", 8, "CHANNELWISE", (-2.0, 2.0)),
    ("aeq_kws_dscnn_probe_w4a8", "mlperf_kws_dscnn_float32_probe", 8, "CHANNELWISE", (-2.0, 2.0)),
    # Depthwise filters int4 too (_dw4): what the KWS constant ratio is with every filter packed.
    ("aeq_kws_dscnn_probe_w4a8_dw4", "mlperf_kws_dscnn_float32_probe", 8, "CHANNELWISE", (-2.0, 2.0)),
    ("aeq_small_cnn_w4a8", "small_cnn_conv_pool_fc_float32", 8, "CHANNELWISE", (0.0, 1.0)),
    ("aeq_small_cnn_w4a8_tensorwise", "small_cnn_conv_pool_fc_float32", 8, "TENSORWISE", (0.0, 1.0)),
    ("aeq_conv2d_3x3_s2_valid_w4a8", "conv2d_3x3_s2_valid_relu6_float32", 8, "CHANNELWISE", (-1.0, 1.0)),
    ("aeq_fc_3d_keepdims_w4a8", "fc_3d_input_keepdims_float32", 8, "CHANNELWISE", (-1.0, 1.0)),
    ("aeq_small_cnn_w4a16", "small_cnn_conv_pool_fc_float32", 16, "CHANNELWISE", (0.0, 1.0)),
]


TWINS = [
    # (name stem, float32 model built by _float_twin_source, input range): quantized twice, int4
    # and int8 weights, for the constant-size comparison (weights dominate their constants).
    ("aeq_mlp_192_96_48", "mlp", (-1.0, 1.0)),
    ("aeq_convnet_24_48", "convnet", (-1.0, 1.0)),
]


def _float_twin_source(kind: str, work: Path) -> Path:
    """A small float32 model with seeded random weights: an MLP (FC 192->96 relu, FC 96->48)
    or a convnet (CONV 3x3 24->48 relu, CONV 1x1 48->48)."""
    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.litert.builder import LiteRTModelBuilder

    rng = np.random.default_rng(4)
    b = LiteRTModelBuilder()
    if kind == "mlp":
        x = b.add_tensor("input", (1, 192), "float32")
        h = b.add_tensor("hidden", (1, 96), "float32")
        y = b.add_tensor("output", (1, 48), "float32")
        for src, dst, (units, depth), act in ((x, h, (96, 192), 1), (h, y, (48, 96), 0)):
            w = b.add_tensor(
                f"w{units}", (units, depth), "float32", rng.normal(0, depth**-0.5, (units, depth))
            )
            bias = b.add_tensor(f"b{units}", (units,), "float32", rng.normal(0, 0.1, units))
            opts = litert.FullyConnectedOptionsT()
            opts.fusedActivationFunction = act
            b.add_operator("FULLY_CONNECTED", [src, w, bias], [dst], opts)
    else:
        x = b.add_tensor("input", (1, 8, 8, 24), "float32")
        h = b.add_tensor("hidden", (1, 8, 8, 48), "float32")
        y = b.add_tensor("output", (1, 8, 8, 48), "float32")
        for src, dst, (oc, k, ic), act in ((x, h, (48, 3, 24), 1), (h, y, (48, 1, 48), 0)):
            fan = k * k * ic
            w = b.add_tensor(f"w{k}", (oc, k, k, ic), "float32", rng.normal(0, fan**-0.5, (oc, k, k, ic)))
            bias = b.add_tensor(f"b{k}", (oc,), "float32", rng.normal(0, 0.1, oc))
            opts = litert.Conv2DOptionsT()
            opts.padding, opts.strideH, opts.strideW = 0, 1, 1
            opts.dilationHFactor = opts.dilationWFactor = 1
            opts.fusedActivationFunction = act
            b.add_operator("CONV_2D", [src, w, bias], [dst], opts)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(work / f"{kind}_float32.tflite")


def _quantized() -> list[tuple[str, str, int, str, tuple[float, float]]]:
    """QUANTIZED and both quantizations of each twin."""
    twins = [
        (f"{stem}_w{bits}a8", kind, 8, "CHANNELWISE", rng) for stem, kind, rng in TWINS for bits in (4, 8)
    ]
    return QUANTIZED + twins


def _with_signature(path: Path, work: Path) -> Path:
    """A copy of the model with a ``serving_default`` signature over its inputs and outputs
    (ai-edge-quantizer calibrates through signature runners; the test models have none)."""
    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.litert.builder import pack_model

    model = litert.ModelT.InitFromPackedBuf(path.read_bytes(), 0)
    graph = model.subgraphs[0]
    if not model.signatureDefs:
        sig = litert.SignatureDefT()
        sig.signatureKey = "serving_default"
        sig.subgraphIndex = 0

        def maps(indices: Any, stem: str) -> list[Any]:
            out = []
            for i, t in enumerate(indices):
                m = litert.TensorMapT()
                m.name, m.tensorIndex = f"{stem}_{i}", int(t)
                out.append(m)
            return out

        sig.inputs, sig.outputs = maps(graph.inputs, "input"), maps(graph.outputs, "output")
        model.signatureDefs = [sig]
    target = work / f"{path.stem}_signed.tflite"
    target.write_bytes(pack_model(model))
    return target


WEIGHT_ONLY = [
    # (name, float32 source in tests/data/models, input range): ai-edge-quantizer's weight-only
    # int4 recipe, int4 constants DEQUANTIZEd into float operators.
    ("aeq_small_cnn_wi4_afp32", "small_cnn_conv_pool_fc_float32", (0.0, 1.0)),
]


def _weight_only(name: str, source: str, work: Path) -> Path:
    """ai-edge-quantizer's ``weight_only_wi4_afp32`` recipe (no calibration)."""
    from ai_edge_quantizer import quantizer, recipe

    qt = quantizer.Quantizer(str(_with_signature(SOURCES / f"{source}.tflite", work)))
    qt.load_quantization_recipe(recipe.weight_only_wi4_afp32())
    path = work / f"{name}.tflite"
    qt.quantize().export_model(str(path), overwrite=True)
    return path


def _quantize(name: str, source: str, bits: int, granularity: str, work: Path) -> Path:
    """ai-edge-quantizer's static recipe with int4 weights, calibrated on seeded uniform data."""
    from ai_edge_quantizer import qtyping, quantizer

    source_path = SOURCES / f"{source}.tflite"
    if not source_path.exists():  # a twin's float model, built here
        source_path = _float_twin_source(source, work)
    from_path = _with_signature(source_path, work)
    qt = quantizer.Quantizer(str(from_path))
    for op in ("FULLY_CONNECTED", "CONV_2D"):
        qt.add_static_config(
            regex=".*",
            operation_name=getattr(qtyping.TFLOperationName, op),
            activation_num_bits=bits,
            weight_num_bits=8 if "_w8" in name else 4,
            weight_granularity=getattr(qtyping.QuantGranularity, granularity),
        )
    for op in ("DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D", "SOFTMAX", "MEAN", "INPUT", "OUTPUT"):
        qt.add_static_config(
            regex=".*",
            operation_name=getattr(qtyping.TFLOperationName, op),
            activation_num_bits=bits,
            weight_num_bits=8,
        )
    if name.endswith("_dw4"):
        # Its policy has no int4-weight integer config for DEPTHWISE_CONV_2D (add_static_config
        # raises "... was not found in the policy"); skip_checks forces one, and LiteRT's
        # reference int8 depthwise kernel unpacks int4 filters.
        qt.update_quantization_recipe(
            regex=".*",
            operation_name=qtyping.TFLOperationName.DEPTHWISE_CONV_2D,
            op_config=qtyping.OpQuantizationConfig(
                activation_tensor_config=qtyping.TensorQuantizationConfig(num_bits=bits, symmetric=False),
                weight_tensor_config=qtyping.TensorQuantizationConfig(
                    num_bits=4, symmetric=True, granularity=getattr(qtyping.QuantGranularity, granularity)
                ),
                compute_precision=qtyping.ComputePrecision.INTEGER,
                skip_checks=True,
            ),
        )
    lo, hi = dict((q[0], q[4]) for q in _quantized())[name]
    rng = np.random.default_rng(7)
    from ai_edge_litert.interpreter import Interpreter

    float_interp = Interpreter(model_path=str(from_path))
    key, runner = next(iter(float_interp.get_signature_list().items()))
    inputs = runner["inputs"]
    details = float_interp.get_signature_runner(key).get_input_details()
    calibration = [
        {n: rng.uniform(lo, hi, size=details[n]["shape"]).astype(np.float32) for n in inputs}
        for _ in range(32)
    ]
    result = qt.calibrate({key: calibration})
    path = work / f"{name}.tflite"
    qt.quantize(result).export_model(str(path), overwrite=True)
    return path


def _single_op_models(work: Path) -> list[tuple[str, Path, tuple[float, float]]]:
    """Single-operator models with int4 constant weights, written with the project's builder."""
    from helia_aot.air import AirQuantization, AirTensorType
    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.litert.builder import LiteRTModelBuilder as ModelBuilder

    rng = np.random.default_rng(31)
    made = []

    def q(scale: float | list[float], zp: int = 0, axis: int = 0) -> AirQuantization:
        s = np.atleast_1d(np.asarray(scale, np.float32))
        return AirQuantization(s, np.zeros(s.size, np.int64) + zp, axis)

    def save(name: str, builder: Any) -> None:
        path = work / f"{name}.tflite"
        path.write_bytes(builder.to_bytes())
        made.append((name, path, (-128.0, 127.0)))

    for name, (n, h, w, c), mult, (kh, kw), stride, act_bits, per_channel in [
        ("op_dwconv_3x3_w4a8", (1, 9, 11, 6), 1, (3, 3), 1, 8, True),
        ("op_dwconv_5x3_dm2_s2_w4a8_tensorwise", (1, 12, 10, 3), 2, (5, 3), 2, 8, False),
    ]:
        oc = c * mult
        b = ModelBuilder()
        act = AirTensorType.INT8 if act_bits == 8 else AirTensorType.INT16
        zp_in, zp_out = (3, -5) if act_bits == 8 else (0, 0)
        x = b.add_tensor("input", (n, h, w, c), act, quantization=q(0.05, zp_in))
        weights = rng.integers(-8, 8, size=(1, kh, kw, oc))
        scales = rng.uniform(0.01, 0.05, size=oc).tolist() if per_channel else [0.03]
        f = b.add_tensor("filter", (1, kh, kw, oc), AirTensorType.INT4, weights, q(scales, 0, 3))
        bias_type = AirTensorType.INT32 if act_bits == 8 else AirTensorType.INT64
        bias_scales = [0.05 * s for s in (scales if per_channel else scales * oc)]
        bias = b.add_tensor("bias", (oc,), bias_type, rng.integers(-300, 300, size=oc), q(bias_scales, 0, 0))
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
        y = b.add_tensor("output", (n, oh, ow, oc), act, quantization=q(0.08, zp_out))
        opts = litert.DepthwiseConv2DOptionsT()
        opts.padding, opts.strideH, opts.strideW, opts.depthMultiplier = 1, stride, stride, mult
        opts.dilationHFactor = opts.dilationWFactor = 1
        b.add_operator("DEPTHWISE_CONV_2D", [x, f, bias], [y], opts, version=1)
        b.set_inputs([x])
        b.set_outputs([y])
        save(name, b)

    for name, (units, depth), batches, per_channel in [
        ("op_fc_odd_depth_w4a8", (10, 37), 3, True),
        ("op_fc_tensorwise_w4a8", (16, 64), 1, False),
    ]:
        b = ModelBuilder()
        x = b.add_tensor("input", (batches, depth), AirTensorType.INT8, quantization=q(0.04, -7))
        weights = rng.integers(-8, 8, size=(units, depth))
        scales = rng.uniform(0.01, 0.05, size=units).tolist() if per_channel else [0.02]
        f = b.add_tensor("weights", (units, depth), AirTensorType.INT4, weights, q(scales))
        bias_scales = [0.04 * s for s in (scales if per_channel else scales * units)]
        bias = b.add_tensor(
            "bias", (units,), AirTensorType.INT32, rng.integers(-500, 500, size=units), q(bias_scales)
        )
        y = b.add_tensor("output", (batches, units), AirTensorType.INT8, quantization=q(0.1, 4))
        opts = litert.FullyConnectedOptionsT()
        b.add_operator("FULLY_CONNECTED", [x, f, bias], [y], opts, version=1)
        b.set_inputs([x])
        b.set_outputs([y])
        save(name, b)

    b = ModelBuilder()
    x = b.add_tensor("x", (2, 24), AirTensorType.FLOAT32)
    packed = b.add_tensor("w_int4", (10, 24), AirTensorType.INT4, rng.integers(-8, 8, size=(10, 24)), q(0.03))
    w = b.add_tensor("w", (10, 24), AirTensorType.FLOAT32)
    bias = b.add_tensor("bias", (10,), AirTensorType.FLOAT32, rng.normal(0, 0.1, 10))
    y = b.add_tensor("y", (2, 10), AirTensorType.FLOAT32)
    b.add_operator("DEQUANTIZE", [packed], [w])
    b.add_operator("FULLY_CONNECTED", [x, w, bias], [y], litert.FullyConnectedOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    path = work / "op_dequantize_fc_wi4_afp32.tflite"
    path.write_bytes(b.to_bytes())
    made.append(("op_dequantize_fc_wi4_afp32", path, (-1.0, 1.0)))
    return made


def _golden(path: Path, lo: float, hi: float) -> dict[str, np.ndarray]:
    """Three samples through the reference kernels: float inputs uniform in [lo, hi], integer
    inputs over their whole range."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    interp = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    rng = np.random.default_rng(2026)
    samples: dict[str, list[np.ndarray]] = {}
    for _ in range(SAMPLES):
        for i, d in enumerate(interp.get_input_details()):
            if np.issubdtype(d["dtype"], np.integer):
                info = np.iinfo(d["dtype"])
                value = rng.integers(info.min, info.max + 1, size=d["shape"]).astype(d["dtype"])
            else:
                value = rng.uniform(lo, hi, size=d["shape"]).astype(d["dtype"])
            interp.set_tensor(d["index"], value)
            samples.setdefault(f"in_{i}", []).append(value)
        interp.invoke()
        for j, d in enumerate(interp.get_output_details()):
            samples.setdefault(f"ref_out_{j}", []).append(interp.get_tensor(d["index"]).copy())
    return {k: np.stack(v) for k, v in samples.items()}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "golden").mkdir(exist_ok=True)
    versions = {p: importlib.metadata.version(p) for p in ("ai-edge-quantizer", "ai-edge-litert", "numpy")}
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        made = [
            (name, _quantize(name, src, bits, gran, work), rng_range, src)
            for name, src, bits, gran, rng_range in _quantized()
        ]
        made += [(name, _weight_only(name, src, work), r, src) for name, src, r in WEIGHT_ONLY]
        made += [(name, p, r, None) for name, p, r in _single_op_models(work)]
        for name, path, (lo, hi), src in made:
            data = path.read_bytes()
            target = OUT / f"{name}.tflite"
            target.write_bytes(data)
            golden = _golden(target, lo, hi)
            np.savez(OUT / "golden" / f"{name}.npz", **golden)
            entries.append(
                {
                    "name": name,
                    "file": f"{name}.tflite",
                    "golden": f"golden/{name}.npz",
                    "bytes": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "source": (
                        f"tests/data/models/{src}.tflite quantized by ai-edge-quantizer"
                        if src and (SOURCES / f"{src}.tflite").exists()
                        else f"a float32 {src} (seeded random weights, _float_twin_source) quantized "
                        "by ai-edge-quantizer"
                        if src
                        else "written by scripts/make_int4_models.py with helia_aot.litert.builder"
                    ),
                    "licence": "Apache-2.0 (tools); model data made here, project licence",
                    "tools": versions,
                    "reference_op_resolver": "BUILTIN_REF",
                }
            )
            print(f"{name}: {len(data)} bytes")
    (OUT / "manifest.json").write_text(json.dumps(entries, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
