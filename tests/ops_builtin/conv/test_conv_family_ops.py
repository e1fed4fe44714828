"""The convolution-family operators end to end on models built here: converted, compiled under ASan/UBSan and
run against the LiteRT reference interpreter on random inputs.

The models cover what the corpus lacks: grouped CONV_2D, depth multipliers with dilation,
TRANSPOSE_CONV without bias and in int16, int16 CONV_2D / FULLY_CONNECTED whose
quantized_bias_type is INT32 (32-bit accumulators), FULLY_CONNECTED with a nonzero weight zero
point and keep_num_dims, int8 BATCH_MATMUL with adjoints and broadcasting, int16 pooling and
fused activations. Refusals must name the broken restriction.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

SAME, VALID = litert.Padding.SAME, litert.Padding.VALID
RELU, RELU6, RELU_N1_TO_1 = (
    litert.ActivationFunctionType.RELU,
    litert.ActivationFunctionType.RELU6,
    litert.ActivationFunctionType.RELU_N1_TO_1,
)


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


class _Model:
    """A LiteRTModelBuilder with helpers for quantized weights and per-channel scales."""

    def __init__(self, dtype: str, seed: int):
        self.b = LiteRTModelBuilder()
        self.dtype = dtype
        # Each model draws its weights from its own generator, so they do not depend on which
        # tests ran before it in this process (test order, xdist's distribution).
        self.rng = np.random.default_rng([seed, zlib.crc32(dtype.encode())])
        self.outputs: list[int] = []

    def act(self, name, shape, scale=None, zp=0, dtype=None):
        q = None if scale is None else (scale, zp)
        return self.b.add_tensor(name, shape, dtype or self.dtype, quantization=q)

    def weights(self, name, shape, axis=0, in_scale=None, zp=0):
        """Float weights, or int8 weights with per-channel scales on ``axis`` (and int bias)."""
        if self.dtype == "float32":
            return self.b.add_tensor(
                name, shape, "float32", data=self.rng.standard_normal(shape).astype(np.float32) * 0.5
            )
        scales = self.rng.uniform(0.004, 0.012, shape[axis]).astype(np.float32)
        data = self.rng.integers(-127, 128, shape).astype(np.int8)
        q = (scales, np.full(scales.size, zp), axis) if zp == 0 else (scales[:1], [zp], 0)
        return self.b.add_tensor(name, shape, "int8", data=data, quantization=q)

    def bias(self, name, n, in_scale=None, dtype=None):
        dtype = dtype or {"float32": "float32", "int8": "int32", "int16": "int64"}[self.dtype]
        if dtype == "float32":
            return self.b.add_tensor(name, (n,), dtype, data=self.rng.standard_normal(n).astype(np.float32))
        return self.b.add_tensor(
            name,
            (n,),
            dtype,
            data=self.rng.integers(-2000, 2000, n),
            quantization=(np.full(n, in_scale * 0.008, np.float32), np.zeros(n), 0),
        )

    def op(self, kind, inputs, output, options=None):
        self.b.add_operator(kind, inputs, [output], options)
        self.outputs.append(output)
        return output

    def save(self, path: Path, inputs: list[int]) -> Path:
        self.b.set_inputs(inputs)
        self.b.set_outputs(self.outputs)
        return self.b.save(path)


def _q(m: _Model, scale: float, zp: int = 0):
    """Activation quantization: none for float, zero point 0 for int16."""
    if m.dtype == "float32":
        return None, 0
    return scale, (zp if m.dtype == "int8" else 0)


def conv_family_model(dtype: str) -> tuple[_Model, list[int]]:
    m = _Model(dtype, seed=7)
    s = {"float32": 1.0, "int8": 1.0, "int16": 0.01}[dtype]
    qx = _q(m, 0.05 * s, 3)
    x = m.act("x", (1, 6, 7, 4), *qx)
    # grouped CONV_2D: 4 input channels, filters of 2 -> 2 groups of 3 filters
    q1 = _q(m, 0.08 * s, -5)
    c1 = m.act("c1", (1, 3, 4, 6), *q1)
    bias_type = "int32" if dtype == "int16" else None
    conv_opts = _options(
        litert.Conv2DOptionsT,
        padding=SAME,
        strideH=2,
        strideW=2,
        fusedActivationFunction=RELU,
        quantizedBiasType=litert.TensorType.INT32 if dtype == "int16" else 0,
    )
    m.op("CONV_2D", [x, m.weights("w1", (6, 3, 3, 2)), m.bias("b1", 6, qx[0], bias_type)], c1, conv_opts)
    # DEPTHWISE_CONV_2D, multiplier 2, dilation 2
    q2 = _q(m, 0.1 * s, 7)
    d1 = m.act("d1", (1, 3, 4, 12), *q2)
    m.op(
        "DEPTHWISE_CONV_2D",
        [c1, m.weights("w2", (1, 2, 3, 12), axis=3), m.bias("b2", 12, q1[0])],
        d1,
        _options(
            litert.DepthwiseConv2DOptionsT,
            padding=SAME,
            strideH=1,
            strideW=1,
            depthMultiplier=2,
            dilationHFactor=2,
            dilationWFactor=2,
            fusedActivationFunction=RELU6,
        ),
    )
    # TRANSPOSE_CONV back up to 6x7, no bias
    q3 = _q(m, 0.2 * s, -2)
    t1 = m.act("t1", (1, 6, 7, 5), *q3)
    shape = m.b.add_tensor("tshape", (4,), "int32", data=np.array([1, 6, 7, 5]))
    m.op(
        "TRANSPOSE_CONV",
        [shape, m.weights("w3", (5, 3, 3, 12)), d1, -1],
        t1,
        _options(litert.TransposeConvOptionsT, padding=SAME, strideH=2, strideW=2),
    )
    # poolings with fused activations
    p1 = m.act("p1", (1, 3, 4, 5), *q3)
    m.op(
        "AVERAGE_POOL_2D",
        [t1],
        p1,
        _options(
            litert.Pool2DOptionsT,
            padding=SAME,
            strideH=2,
            strideW=2,
            filterHeight=3,
            filterWidth=2,
            fusedActivationFunction=RELU6,
        ),
    )
    p2 = m.act("p2", (1, 5, 6, 5), *q3)
    m.op(
        "MAX_POOL_2D",
        [t1],
        p2,
        _options(
            litert.Pool2DOptionsT,
            padding=VALID,
            strideH=1,
            strideW=1,
            filterHeight=2,
            filterWidth=2,
            fusedActivationFunction=RELU_N1_TO_1,
        ),
    )
    # FULLY_CONNECTED over the pooled map, keeping dimensions: [1, 3, 4, 5] x [8, 5]
    q4 = _q(m, 0.15 * s, 4)
    f1 = m.act("f1", (1, 3, 4, 8), *q4)
    fc_bias = m.bias("b4", 8, q3[0], bias_type)
    weights = m.weights("w4", (8, 5), zp=0 if dtype != "int8" else 3)
    m.op(
        "FULLY_CONNECTED",
        [p1, weights, fc_bias],
        f1,
        _options(
            litert.FullyConnectedOptionsT,
            keepNumDims=True,
            fusedActivationFunction=RELU,
            quantizedBiasType=litert.TensorType.INT32 if dtype == "int16" else 0,
        ),
    )
    return m, [x]


def batch_matmul_model(dtype: str) -> tuple[_Model, list[int]]:
    m = _Model(dtype, seed=8)
    qa, qb, qo = _q(m, 0.05, 2), _q(m, 0.04, -3), _q(m, 0.3, 1)
    a = m.act("a", (2, 1, 4, 3), *qa)  # adj_x: rows 3, depth 4
    b = m.act("b", (3, 5, 4), *qb)  # adj_y: cols 5, depth 4; batch broadcast against (2, 1)
    y = m.act("y", (2, 3, 3, 5), *qo)
    m.op("BATCH_MATMUL", [a, b], y, _options(litert.BatchMatMulOptionsT, adjX=True, adjY=True))
    data = m.rng.integers(-100, 100, (4, 2)) if dtype == "int8" else m.rng.standard_normal((4, 2))
    k = m.b.add_tensor("k", (4, 2), dtype, data=data, quantization=qb if qb[0] else None)
    z = m.act("z", (2, 1, 3, 2), *qo)
    m.op("BATCH_MATMUL", [a, k], z, _options(litert.BatchMatMulOptionsT, adjX=True))
    return m, [a, b]


def _convert(path: Path, tmp_path: Path, tolerance: float = 0.0):
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "samples": 2, "tolerance": tolerance},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


CASES = [
    (conv_family_model, "float32"),
    (conv_family_model, "int8"),
    (conv_family_model, "int16"),
    (batch_matmul_model, "float32"),
    (batch_matmul_model, "int8"),
]


@pytest.mark.parametrize("make, dtype", CASES, ids=[f"{m.__name__}_{d}" for m, d in CASES])
def test_k1_operators_match_reference(make, dtype, tmp_path):
    model, inputs = make(dtype)
    result = _convert(
        model.save(tmp_path / "model.tflite", inputs), tmp_path, 1e-5 if dtype == "float32" else 0.0
    )
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_report_counts_macs_and_parameters(tmp_path):
    model, inputs = conv_family_model("float32")
    result = _convert(model.save(tmp_path / "model.tflite", inputs), tmp_path, 1e-5)
    report = json.loads(next(Path(result.output).glob("*_report.json")).read_text())
    counts = {op["op_type"]: (op["macs"], op["parameters"]) for op in report["operators"]}
    assert counts == {
        "CONV_2D": (6 * 3 * 3 * 2 * 3 * 4, 6 * 3 * 3 * 2 + 6),  # per weight per output pixel
        "DEPTHWISE_CONV_2D": (2 * 3 * 12 * 3 * 4, 2 * 3 * 12 + 12),
        "TRANSPOSE_CONV": (5 * 3 * 3 * 12 * 3 * 4, 5 * 3 * 3 * 12),  # per weight per input pixel
        "AVERAGE_POOL_2D": (0, 0),
        "MAX_POOL_2D": (0, 0),
        "FULLY_CONNECTED": (8 * 5 * 12, 8 * 5 + 8),  # per weight per input row
    }


def _single(tmp_path, op, inputs_spec, out_spec, options):
    """A one-operator model: inputs_spec entries are (shape, dtype, quantization, data or None)."""
    b = LiteRTModelBuilder()
    ids, live = [], []
    for i, (shape, dtype, q, data) in enumerate(inputs_spec):
        ids.append(b.add_tensor(f"t{i}", shape, dtype, data=data, quantization=q))
        if data is None:
            live.append(ids[-1])
    y = b.add_tensor("y", *out_spec[:2], quantization=out_spec[2])
    b.add_operator(op, ids, [y], options)
    b.set_inputs(live)
    b.set_outputs([y])
    return _convert(b.save(tmp_path / "model.tflite"), tmp_path)


W8 = ((4, 3, 3, 2), "int8", (np.full(4, 0.01, np.float32), np.zeros(4), 0), np.ones((4, 3, 3, 2)))


@pytest.mark.parametrize(
    "case, message",
    [
        ("int16_conv_int32_bias_without_option", "quantized_bias_type"),
        ("int16_conv_scale_past_2_14", "defined below 2\\^14"),
        ("conv_tanh", "fused activation TANH"),
        ("fc_shuffled", "shuffled"),
        ("fc_per_channel_zero_points", "zero points 0"),
        ("bmm_int16", "supported"),
    ],
)
def test_unsupported_variants_are_refused_with_a_reason(case, message, tmp_path):
    conv = _options(litert.Conv2DOptionsT, padding=SAME, strideH=1, strideW=1)
    if case == "int16_conv_int32_bias_without_option":
        spec = [
            ((1, 5, 5, 2), "int16", (0.01, 0), None),
            W8,
            ((4,), "int32", (np.full(4, 1e-4, np.float32), np.zeros(4), 0), np.ones(4)),
        ]
        args = ("CONV_2D", spec, ((1, 5, 5, 4), "int16", (0.02, 0)), conv)
    elif case == "int16_conv_scale_past_2_14":
        # 0.01 * 0.01 / 4e-9 = 25,000: the 64-bit requantization's rounding shift goes negative.
        spec = [
            ((1, 5, 5, 2), "int16", (0.01, 0), None),
            W8,
            ((4,), "int64", (np.full(4, 1e-4, np.float32), np.zeros(4), 0), np.ones(4)),
        ]
        args = ("CONV_2D", spec, ((1, 5, 5, 4), "int16", (4e-9, 0)), conv)
    elif case == "conv_tanh":
        conv.fusedActivationFunction = litert.ActivationFunctionType.TANH
        spec = [
            ((1, 5, 5, 2), "int8", (0.01, 0), None),
            W8,
            ((4,), "int32", (np.full(4, 1e-4, np.float32), np.zeros(4), 0), np.ones(4)),
        ]
        args = ("CONV_2D", spec, ((1, 5, 5, 4), "int8", (0.02, 0)), conv)
    elif case == "fc_shuffled":
        spec = [((2, 16), "float32", None, None), ((4, 16), "float32", None, np.ones((4, 16)))]
        args = (
            "FULLY_CONNECTED",
            spec,
            ((2, 4), "float32", None),
            _options(litert.FullyConnectedOptionsT, weightsFormat=1),
        )
    elif case == "fc_per_channel_zero_points":
        spec = [
            ((2, 3), "int8", (0.01, 0), None),
            ((4, 3), "int8", (np.full(4, 0.01, np.float32), np.arange(4), 0), np.ones((4, 3))),
        ]
        args = ("FULLY_CONNECTED", spec, ((2, 4), "int8", (0.02, 0)), None)
    else:
        spec = [((2, 3), "int16", (0.01, 0), None), ((3, 4), "int16", (0.01, 0), None)]
        args = ("BATCH_MATMUL", spec, ((2, 4), "int16", (0.02, 0)), None)
    with pytest.raises(UnsupportedModelError, match=message):
        _single(tmp_path, *args)
