"""The ONNX reader without building anything: the format recognised from the bytes, the layout
change free for conv nets, every unsupported node named in one error and judged by
``helia-aot check``, opset and dynamic-shape rules, the plugin importing no onnx."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import onnx
import pytest
from helia_aot import ConvertArgs
from helia_aot.cli import app
from helia_aot.converters.loaders import HEAD_BYTES, loader_for
from helia_aot.errors import DynamicShapeError, ModelLoadError, UnsupportedModelError
from helia_aot.registry import build_default_registry_context
from helia_aot_frontend_onnx.plugin import is_onnx
from typer.testing import CliRunner

from .onnx_graphs import Graph, save

runner = CliRunner()


@pytest.fixture(scope="module")
def context():
    return build_default_registry_context()


def _load(path, context, **model_fields):
    config = ConvertArgs.model_validate({"model": {"path": str(path), **model_fields}})
    return loader_for(path, config, context).open().load(path, config, context)


def _conv_chain(tmp_path, batch="1"):
    g = Graph(seed=7)
    c = g.node("Relu", [g.node("Conv", ["x", g.weights((4, 2, 3, 3))], pads=[1, 1, 1, 1])])
    c = g.node(
        "Conv",
        [
            g.node("Transpose", [g.node("Transpose", [c], perm=[0, 2, 3, 1])], perm=[0, 3, 1, 2]),
            g.weights((4, 1, 3, 3)),
        ],
        group=4,
    )
    y = g.node("Flatten", [g.node("GlobalAveragePool", [c])])
    return save(g.model({"x": [batch, 2, 8, 8]}, [y]), tmp_path / "chain.onnx")


def test_the_format_is_recognised_from_the_bytes(tmp_path, context):
    path = _conv_chain(tmp_path)
    head = path.read_bytes()[:HEAD_BYTES]
    assert is_onnx(head) and not is_onnx(b"\x1c\x00\x00\x00TFL3" + bytes(8)) and not is_onnx(b"")
    renamed = path.rename(tmp_path / "model.bin")  # the name does not decide
    config = ConvertArgs.model_validate({"model": {"path": str(renamed)}})
    assert loader_for(renamed, config, context).format == "onnx"
    model = _load(renamed, context, format="onnx")
    assert model.metadata["source_format"] == "onnx"


def test_a_conv_net_keeps_no_transpose_and_records_its_input_layout(tmp_path, context):
    model = _load(_conv_chain(tmp_path), context)
    # Conv with its Relu fused, the two Transposes cancelled, depthwise conv, mean, reshape.
    assert [op.op_type for op in model.operators] == ["CONV_2D", "DEPTHWISE_CONV_2D", "MEAN", "RESHAPE"]
    assert model.operators[0].options.activation == "RELU"
    assert model.tensors[model.inputs[0]].shape == (1, 8, 8, 2)  # NHWC
    assert model.metadata["source_layouts"] == {"inputs": [[0, 2, 3, 1]], "outputs": [None]}


def test_every_unsupported_node_is_named_in_one_error_and_judged_by_check(tmp_path, context):
    g = Graph(seed=8)
    a = g.node("Erf", ["x"])
    b = g.node("Relu", [a])
    c = g.node("Einsum", [b, b], equation="ij,ij->ij")
    y = g.node("Pad", [c, g.const(np.array([0, 1, 0, 1], dtype=np.int64))], mode="reflect")
    path = save(g.model({"x": [2, 3]}, [y]), tmp_path / "bad.onnx")
    with pytest.raises(UnsupportedModelError) as error:
        _load(path, context)
    message = error.value.message
    assert "3 ONNX nodes of bad.onnx cannot be converted" in message
    for line in (
        "#0 Erf: operator not supported",
        "#2 Einsum: operator not supported",
        "#3 Pad: Pad mode 'reflect'",
    ):
        assert line in message
    assert "#1 Relu" not in message  # judged on its own, after the Erf it reads failed
    result = runner.invoke(app, ["check", str(path), "--json"])
    assert result.exit_code == 1, result.output
    rows = json.loads(result.stdout)["operators"]
    assert [(r["index"], r["key"], r["supported"]) for r in rows] == [
        (0, "Erf", False),
        (1, "Relu", True),
        (2, "Einsum", False),
        (3, "Pad", False),
    ]


def test_a_good_model_checks_clean(tmp_path):
    result = runner.invoke(app, ["check", str(_conv_chain(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["operators"]
    assert [r["key"] for r in rows] == [
        "Conv",
        "Relu",
        "Transpose",
        "Transpose",
        "Conv",
        "GlobalAveragePool",
        "Flatten",
    ]
    assert all(r["supported"] for r in rows)


def test_an_old_opset_and_an_unknown_size_are_typed_errors(tmp_path, context):
    g = Graph()
    old = save(g.model({"x": [1, 4]}, [g.node("Relu", ["x"])], opset=12), tmp_path / "old.onnx")
    with pytest.raises(UnsupportedModelError, match="opset 12") as error:
        _load(old, context)
    assert "opset_version=13" in (error.value.hint or "")
    g = Graph()
    dynamic = save(g.model({"x": [1, "T"]}, [g.node("Relu", ["x"])]), tmp_path / "dyn.onnx")
    with pytest.raises(DynamicShapeError, match="'x' has an unknown size in dimension 1") as shape_error:
        _load(dynamic, context)
    assert "--model.input-shapes x=" in (shape_error.value.hint or "")
    assert _load(dynamic, context, input_shapes={"x": [1, 6]}).tensors
    # A symbolic batch is 1; a truncated file is a ModelLoadError.
    assert (
        _load(_conv_chain(tmp_path, batch="N"), context)
        .tensors[_load(_conv_chain(tmp_path, "N"), context).inputs[0]]
        .shape[0]
        == 1
    )
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(_conv_chain(tmp_path).read_bytes()[:40])
    with pytest.raises(ModelLoadError, match="not a readable ONNX model"):
        _load(broken, context)


def test_the_plugin_registers_without_importing_onnx():
    script = (
        "import sys\n"
        "from helia_aot.registry import build_default_registry_context\n"
        "context = build_default_registry_context()\n"
        "assert 'onnx' in context.model_loaders, context.model_loaders.keys()\n"
        "heavy = ('onnx.', 'helia_aot_frontend_onnx.r')\n"
        "print(sorted(m for m in sys.modules if m == 'onnx' or m.startswith(heavy)))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
    assert onnx.__version__  # the test venv has it; the plugin merely did not import it


def test_the_reference_runs_onnxruntime_in_the_module_layout(tmp_path, context):
    import onnxruntime as ort

    path = _conv_chain(tmp_path)
    model = _load(path, context)
    config = ConvertArgs.model_validate({"model": {"path": str(path)}})
    reader = loader_for(path, config, context).open()
    sample = np.random.default_rng(3).uniform(-1, 1, (1, 8, 8, 2)).astype(np.float32)  # NHWC
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": np.transpose(sample, (0, 3, 1, 2))})
    for optimized in (False, True):
        reference = reader.reference(path, model, optimized=optimized)
        (got,) = reference.run([sample])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert reference.operator_names()[:2] == ["Conv", "Relu"]
        assert reference.output_producers() == ["Flatten"]


def test_a_qdq_pair_becomes_quantize_and_dequantize(tmp_path, context):
    g = Graph()
    scale, zero = g.const(np.float32(0.05)), g.const(np.int8(3))
    y = g.node("DequantizeLinear", [g.node("QuantizeLinear", ["x", scale, zero]), scale, zero])
    air = _load(save(g.model({"x": [1, 8]}, [y]), tmp_path / "qdq.onnx"), context)
    assert [op.op_type for op in air.operators] == ["QUANTIZE", "DEQUANTIZE"]
    assert air.metadata["requantization"] == "onnx"
    quantized = air.tensors[air.operators[0].output_ids[0]]
    assert quantized.zero_point(0) == 3 and quantized.scale(0) == pytest.approx(0.05)


def test_uint8_qdq_is_refused_naming_the_fix(tmp_path, context):
    g = Graph()
    scale, zero = g.const(np.float32(0.05)), g.const(np.uint8(128))
    y = g.node("DequantizeLinear", [g.node("QuantizeLinear", ["x", scale, zero]), scale, zero])
    with pytest.raises(UnsupportedModelError) as error:
        _load(save(g.model({"x": [1, 8]}, [y]), tmp_path / "qdq.onnx"), context)
    assert "QuantType.QInt8" in error.value.message


def test_validate_reads_a_dataset_in_the_file_layout(tmp_path, context):
    from helia_aot.golden import from_source_layout
    from helia_aot.validation.inputs import InputSpec
    from helia_aot.validation.run import _file_spec, _front_end

    path = _conv_chain(tmp_path)
    config = ConvertArgs.model_validate({"model": {"path": str(path)}})
    front = _front_end(config, path)
    assert front is not None
    model = front[1]
    spec = InputSpec(index=0, name="x", shape=(1, 8, 8, 2), dtype=np.dtype(np.float32))
    assert _file_spec(spec, model).shape == (1, 2, 8, 8)  # what the user's NCHW dataset holds
    nchw = np.arange(2 * 2 * 8 * 8, dtype=np.float32).reshape(2, 1, 2, 8, 8)  # two samples
    nhwc = from_source_layout(nchw, model, "input", 0)
    assert nhwc.shape == (2, 1, 8, 8, 2) and nhwc[1, 0, 3, 5, 1] == nchw[1, 0, 1, 3, 5]


def _padded(tmp_path, reader: str, amounts: list[int], conv: dict):
    """x -> Pad(amounts) -> ``reader`` (a Conv with ``conv`` attributes, or a MaxPool)."""
    g = Graph(seed=9)
    padded = g.node("Pad", ["x", g.const(np.array(amounts, dtype=np.int64))])
    if reader == "MaxPool":
        y = g.node("MaxPool", [padded], kernel_shape=[2, 2], strides=[2, 2])
    else:
        groups = int(conv.get("group", 1))
        y = g.node("Conv", [padded, g.weights((4, 4 // groups, 3, 3))], **conv)
    return save(g.model({"x": [1, 4, 7, 7]}, [y]), tmp_path / "padded.onnx")


@pytest.mark.parametrize(
    ("reader", "pads", "conv", "folded"),
    [
        # a convolution takes any pads: Pad's plus its own, explicit
        ("Conv", [0, 0, 1, 0, 0, 0, 2, 1], {"strides": [2, 2], "pads": [0, 1, 0, 0]}, (1, 2, 1, 1)),
        # a float depthwise one only SAME (LiteRT's split) or VALID
        ("Conv", [0, 0, 1, 1, 0, 0, 1, 1], {"group": 4}, "SAME"),
        ("Conv", [0, 0, 2, 2, 0, 0, 0, 0], {"group": 4}, None),
        ("MaxPool", [0, 0, 1, 1, 0, 0, 1, 1], {}, None),  # max pads with the lowest value: never
        ("Conv", [0, 1, 1, 1, 0, 1, 1, 1], {}, None),  # the channels padded too
    ],
)
def test_a_zero_pad_folds_into_the_convolution_that_reads_it(tmp_path, context, reader, pads, conv, folded):
    model = _load(_padded(tmp_path, reader, pads, conv), context)
    op_types = [op.op_type for op in model.operators]
    if folded is None:
        assert op_types[0] == "PAD", op_types
        return
    assert "PAD" not in op_types, op_types
    options = model.operators[0].options
    assert model.operators[0].input_ids[0] == model.inputs[0]
    if folded == "SAME":
        assert (options.padding, options.explicit_padding) == ("SAME", None)
    else:
        assert options.explicit_padding == folded
