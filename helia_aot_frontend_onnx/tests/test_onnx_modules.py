"""ONNX models converted, built with gcc and run against onnxruntime's outputs: a conv net, an
MLP with the elementwise operators, and the spatial data movers, every operator the front end
reads at least once. Golden data is in the file's NCHW layout; the module is NHWC, and the self
test transposes (the plan records the layouts); without a golden file the expected outputs come
from onnxruntime through the reader. One host build per model."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import run_module_test_case

from .onnx_graphs import Graph, golden, save

TOLERANCE = 1e-5
"""Relative to each output's largest magnitude: float32 kernels against onnxruntime's."""


def conv_net() -> tuple[Graph, dict, list[str]]:
    g = Graph(seed=3)
    c = g.node("Conv", ["x", g.weights((8, 3, 3, 3)), g.weights((8,))], pads=[1, 1, 1, 1])
    c = g.node(
        "BatchNormalization", [c, g.positive((8,)), g.weights((8,)), g.weights((8,)), g.positive((8,))]
    )
    c = g.node("Relu", [c])
    d = g.node("Conv", [c, g.weights((8, 1, 3, 3))], pads=[1, 1, 1, 1], strides=[2, 2], group=8)
    d = g.node("Clip", [d, g.const(np.float32(0.0)), g.const(np.float32(6.0))])
    e = g.node("Conv", [d, g.weights((8, 8, 1, 1)), g.weights((8,))])
    e = g.node("Relu", [g.node("Add", [e, d])])
    m = g.node("MaxPool", [e], kernel_shape=[2, 2], strides=[2, 2])
    a = g.node("AveragePool", [m], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    cat = g.node("Concat", [m, a], axis=1)
    cat = g.node("Sub", [g.node("Mul", [cat, g.positive((16, 1, 1))]), g.weights((16, 1, 1))])
    flat = g.node("Flatten", [g.node("GlobalAveragePool", [cat])])
    y = g.node("Softmax", [g.node("Gemm", [flat, g.weights((6, 16)), g.weights((6,))], transB=1)])
    return g, {"x": [1, 3, 12, 12]}, [y]


def mlp() -> tuple[Graph, dict, list[str]]:
    g = Graph(seed=4)
    h = g.node("Add", [g.node("MatMul", ["x", g.weights((20, 16))]), g.weights((16,))])
    h = g.node("LeakyRelu", [h], alpha=0.1)
    m = g.node("Mul", [g.node("Sigmoid", [h]), g.node("Tanh", [h])])
    d = g.node("Div", [m, g.positive((16,))])
    hs = g.node("HardSwish", [g.node("Sub", [d, h])])
    gm = g.node("Gemm", [hs, g.weights((8, 16)), g.weights((8,))], transB=1, alpha=0.5, beta=2.0)
    clipped = g.node("Clip", [gm, g.const(np.float32(-0.5)), g.const(np.float32(0.5))])
    r = g.node("Reshape", [gm, g.const(np.array([1, 2, 4], dtype=np.int64))])
    r = g.node("Transpose", [r], perm=[0, 2, 1])
    r = g.node("ReduceMean", [r], axes=[2], keepdims=0)
    r = g.node(
        "Squeeze", [g.node("Unsqueeze", [r, g.const(np.array([1], dtype=np.int64))]), g.const(np.array([1]))]
    )
    y = g.node("Softmax", [g.node("Add", [r, g.weights((4,))])])
    return g, {"x": [1, 20]}, [y, clipped]


def spatial() -> tuple[Graph, dict, list[str]]:
    g = Graph(seed=5)
    p = g.node("Pad", ["x", g.const(np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64))])
    s = g.node(
        "Slice",
        [
            p,
            g.const(np.array([0, 1, 1], dtype=np.int64)),
            g.const(np.array([3, 7, 7], dtype=np.int64)),
            g.const(np.array([1, 2, 3], dtype=np.int64)),
        ],
    )
    up = g.node(
        "Resize",
        [s, "", g.const(np.array([1, 1, 2, 2], dtype=np.float32))],
        mode="nearest",
        coordinate_transformation_mode="asymmetric",
        nearest_mode="floor",
    )
    ct = g.node("ConvTranspose", [s, g.weights((3, 5, 2, 2)), g.weights((5,))], strides=[2, 2])
    down = g.node(
        "Resize",
        [ct, "", "", g.const(np.array([1, 5, 6, 6], dtype=np.int64))],
        mode="linear",
        coordinate_transformation_mode="half_pixel",
    )
    cat = g.node("Concat", [down, s], axis=1)
    bn = g.node(
        "BatchNormalization", [cat, g.positive((8,)), g.weights((8,)), g.weights((8,)), g.positive((8,))]
    )
    y = g.node("Conv", [bn, g.weights((4, 8, 3, 3))], pads=[0, 0, 1, 1])
    pooled = g.node("ReduceMean", [up], axes=[2, 3], keepdims=1)
    # A feature map flattened into a dense layer: the weights' columns follow NHWC, no TRANSPOSE.
    dense = g.node("Gemm", [g.node("Flatten", [y]), g.weights((3, 100), scale=0.1)], transB=1)
    return g, {"x": [1, 4, 6, 6]}, [y, pooled, dense]


NHWC = [0, 2, 3, 1]
MODELS = {
    # name: (model, the plan's record of the inputs' and outputs' layouts)
    "conv_net": (conv_net, {"inputs": [NHWC], "outputs": [None]}),
    "mlp": (mlp, None),
    "spatial": (spatial, {"inputs": [NHWC], "outputs": [NHWC, NHWC, None]}),
}


GOLDEN_FILES = {"conv_net", "mlp"}
"""Models checked against a golden file written from onnxruntime in NCHW; the spatial one is
checked with no file, so ``helia-aot test``'s reference (onnxruntime, via the reader) makes it."""


@pytest.mark.parametrize("name", sorted(MODELS))
def test_onnx_model_matches_onnxruntime(name, tmp_path):
    make, layouts = MODELS[name]
    graph, inputs, outputs = make()
    model = save(graph.model(inputs, outputs), tmp_path / f"{name}.onnx")
    test = {"enabled": True, "tolerance": TOLERANCE}
    if name in GOLDEN_FILES:  # the others take onnxruntime's outputs through the reader's reference
        test["golden_data"] = str(golden(model, tmp_path / "golden.npz")[0])
    else:
        test["samples"] = 2
    config = ConvertArgs.model_validate(
        {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out"), "name": name}, "test": test}
    )
    result = AotConverter(config).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{name}:\n{run.stdout}\n{run.stderr[-3000:]}"
    plan = json.loads(next(result.output.rglob("*_plan.json")).read_text())
    op_types = [op["op_type"] for op in plan["operators"]]
    assert "TRANSPOSE" not in op_types, op_types  # the layout change cost no operator
    assert plan.get("source", {}).get("layouts") == layouts
