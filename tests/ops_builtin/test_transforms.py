"""The built-in graph transforms on models built here, and the transforms[] configuration rules.

Each transform is checked both ways: the operator is rewritten (or aliased, or moved) exactly when
its options say, the plan and views show the result (a rewritten operator keeps its index and shows
its new type), and the module matches the LiteRT reference interpreter with the transform on and
off. Integer outputs are bit-exact; float ones too, as every host build here is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import InvalidConfigError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case
from helia_aot.transforms import TransformPipeline

ALL_OFF = [{"name": "*", "enabled": False}]
ORDERED = [
    "DEPTHWISE_TO_CONV",
    "PRUNE_IDENTITY_OPS",
    "TRANSPOSE_REVERSE_CONV",
    "SCHEDULE_CONSTANT_DEQUANTIZE",
]


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


def _int8_weights(b, rng, name, shape, axis):
    scales = rng.uniform(0.004, 0.012, shape[axis]).astype(np.float32)
    data = rng.integers(-127, 128, shape).astype(np.int8)
    return b.add_tensor(name, shape, "int8", data=data, quantization=(scales, np.zeros(scales.size), axis))


def _bias(b, rng, n, dtype):
    if dtype == "float32":
        return b.add_tensor("bias", (n,), "float32", data=rng.standard_normal(n).astype(np.float32))
    return b.add_tensor(
        "bias",
        (n,),
        "int32",
        data=rng.integers(-2000, 2000, n),
        quantization=(np.full(n, 4e-4), np.zeros(n), 0),
    )


def depthwise_model(path: Path, dtype: str, channels: int = 4, in_channels: int = 1) -> Path:
    """x [1, 7, 6, in] -> DEPTHWISE_CONV_2D 3x3 (multiplier channels / in, ReLU) -> y."""
    rng = np.random.default_rng(11)
    b = LiteRTModelBuilder()
    q = dtype == "int8"
    x = b.add_tensor("x", (1, 7, 6, in_channels), dtype, quantization=(0.05, 3) if q else None)
    shape = (1, 3, 3, channels)
    if q:
        w = _int8_weights(b, rng, "w", shape, 3)
    else:
        w = b.add_tensor("w", shape, dtype, data=rng.standard_normal(shape).astype(np.float32))
    y = b.add_tensor("y", (1, 7, 6, channels), dtype, quantization=(0.1, -4) if q else None)
    options = _options(
        litert.DepthwiseConv2DOptionsT,
        padding=litert.Padding.SAME,
        strideH=1,
        strideW=1,
        depthMultiplier=channels // in_channels,
        dilationHFactor=1,
        dilationWFactor=1,
        fusedActivationFunction=litert.ActivationFunctionType.RELU,
    )
    b.add_operator("DEPTHWISE_CONV_2D", [x, w, _bias(b, rng, channels, dtype)], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def transpose_conv_model(
    path: Path,
    dtype: str = "int8",
    channels: int = 20,
    kernel: int = 3,
    stride: int = 1,
    padding: str = "SAME",
) -> Path:
    """An ADD before the TRANSPOSE_CONV, so the rewritten operator is not operator 0."""
    rng = np.random.default_rng(12)
    b = LiteRTModelBuilder()
    q = dtype == "int8"
    h = 5
    x = b.add_tensor("x", (1, h, h, channels), dtype, quantization=(0.05, 3) if q else None)
    a = b.add_tensor("a", (1, h, h, channels), dtype, quantization=(0.08, -1) if q else None)
    b.add_operator("ADD", [x, x], [a], _options(litert.AddOptionsT))
    oh = h * stride if padding == "SAME" else (h - 1) * stride + kernel
    shape = (6, kernel, kernel, channels)
    if q:
        w = _int8_weights(b, rng, "w", shape, 0)
    else:
        w = b.add_tensor("w", shape, dtype, data=rng.standard_normal(shape).astype(np.float32))
    out_shape = b.add_tensor("out_shape", (4,), "int32", data=np.array([1, oh, oh, 6]))
    y = b.add_tensor("y", (1, oh, oh, 6), dtype, quantization=(0.3, -2) if q else None)
    options = _options(
        litert.TransposeConvOptionsT,
        padding=getattr(litert.Padding, padding),
        strideH=stride,
        strideW=stride,
        fusedActivationFunction=litert.ActivationFunctionType.RELU6,
    )
    b.add_operator("TRANSPOSE_CONV", [out_shape, w, a, _bias(b, rng, 6, dtype)], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def reshape_model(path: Path) -> Path:
    """x -> ADD -> RESHAPE -> SOFTMAX -> y: the reshape's input and output are both scratch."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4, 6), "int8", quantization=(0.05, 3))
    a = b.add_tensor("a", (1, 4, 6), "int8", quantization=(0.1, 0))
    b.add_operator("ADD", [x, x], [a], _options(litert.AddOptionsT))
    r = b.add_tensor("r", (4, 6), "int8", quantization=(0.1, 0))
    new_shape = b.add_tensor("new_shape", (2,), "int32", data=np.array([4, 6]))
    b.add_operator("RESHAPE", [a, new_shape], [r], _options(litert.ReshapeOptionsT, newShape=[4, 6]))
    y = b.add_tensor("y", (4, 6), "int8", quantization=(1 / 256, -128))
    b.add_operator("SOFTMAX", [r], [y], _options(litert.SoftmaxOptionsT, beta=1.0))
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def dequantize_model(path: Path) -> Path:
    """Two float16 constants dequantized up front (as converters write them), read later."""
    rng = np.random.default_rng(13)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 64), "float32")
    halves, wides = [], []
    for i in range(2):
        halves.append(
            b.add_tensor(f"w{i}16", (1, 64), "float16", data=rng.standard_normal((1, 64)).astype(np.float16))
        )
        wides.append(b.add_tensor(f"w{i}", (1, 64), "float32"))
        b.add_operator("DEQUANTIZE", [halves[i]], [wides[i]])
    a = b.add_tensor("a", (1, 64), "float32")
    b.add_operator("MUL", [x, x], [a], _options(litert.MulOptionsT))
    c = b.add_tensor("c", (1, 64), "float32")
    b.add_operator("ADD", [a, wides[0]], [c], _options(litert.AddOptionsT))
    y = b.add_tensor("y", (1, 64), "float32")
    b.add_operator("MUL", [c, wides[1]], [y], _options(litert.MulOptionsT))
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def convert(model: Path, out: Path, transforms=None, **extra):
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out / "module"), "name": "module"},
        "test": {"enabled": True, "samples": 3, "tolerance": 0.0},
        "result_views": True,
        **extra,
    }
    if transforms is not None:
        config["transforms"] = transforms
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def converted_and_exact(model: Path, out: Path, transforms=None):
    """Convert, build under the sanitizers and compare with the reference; return the result."""
    result = convert(model, out, transforms)
    run = run_module_test_case(result.output, out / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    return result


def types(result) -> list[tuple[str, tuple[int, ...]]]:
    return [(op.type, op.source_indices) for op in result.operators]


# -- DEPTHWISE_TO_CONV ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_depthwise_over_one_channel_becomes_conv_and_stays_exact(dtype, tmp_path):
    model = depthwise_model(tmp_path / "dw.tflite", dtype)
    on = converted_and_exact(model, tmp_path / "on")
    off = converted_and_exact(model, tmp_path / "off", ALL_OFF)
    assert types(on) == [("CONV_2D", (0,))]
    assert types(off) == [("DEPTHWISE_CONV_2D", (0,))]
    assert on.plan.operators[0].op_type == "CONV_2D" and on.plan.operators[0].source_indices == [0]
    # The counts keep their definitions: the same weights, one MAC per weight per output pixel.
    assert (on.operators[0].macs, on.operators[0].parameters) == (
        off.operators[0].macs,
        off.operators[0].parameters,
    )


@pytest.mark.parametrize(
    "threshold, in_channels, rewritten",
    [(3, 1, True), (4, 1, False), (0, 1, True), (1, 2, False)],
    ids=["below", "equal", "zero", "two_input_channels"],
)
def test_depthwise_to_conv_follows_its_threshold(threshold, in_channels, rewritten, tmp_path):
    """More output channels than ``output_channel_threshold`` and one input channel rewrite."""
    model = depthwise_model(tmp_path / "dw.tflite", "int8", channels=4, in_channels=in_channels)
    entry = {"name": "DEPTHWISE_TO_CONV", "options": {"output_channel_threshold": threshold}}
    result = convert(model, tmp_path / "out", [entry])
    assert types(result) == [("CONV_2D" if rewritten else "DEPTHWISE_CONV_2D", (0,))]


# -- TRANSPOSE_REVERSE_CONV -------------------------------------------------------------------------


@pytest.mark.parametrize("kernel, padding", [(3, "SAME"), (2, "VALID"), (4, "SAME")])
def test_stride_one_int8_transpose_conv_becomes_conv_and_stays_exact(kernel, padding, tmp_path):
    model = transpose_conv_model(tmp_path / "t.tflite", kernel=kernel, padding=padding)
    on = converted_and_exact(model, tmp_path / "on")
    off = converted_and_exact(model, tmp_path / "off", ALL_OFF)
    assert types(on) == [("ADD", (0,)), ("CONV_2D", (1,))]
    assert types(off) == [("ADD", (0,)), ("TRANSPOSE_CONV", (1,))]
    # A CONV_2D rewritten from a TRANSPOSE_CONV counts one MAC per weight per input pixel.
    assert on.operators[1].macs == off.operators[1].macs == 6 * kernel * kernel * 20 * 25
    assert on.operators[1].parameters == off.operators[1].parameters


@pytest.mark.parametrize(
    "case, transforms, expected",
    [
        ("default_20_channels", None, "CONV_2D"),
        (
            "threshold_20",
            [{"name": "TRANSPOSE_REVERSE_CONV", "options": {"input_channel_threshold": 20}}],
            "TRANSPOSE_CONV",
        ),
        (
            "threshold_19",
            [{"name": "TRANSPOSE_REVERSE_CONV", "options": {"input_channel_threshold": 19}}],
            "CONV_2D",
        ),
        ("disabled", [{"name": "TRANSPOSE_REVERSE_CONV", "enabled": False}], "TRANSPOSE_CONV"),
    ],
)
def test_transpose_reverse_conv_follows_its_threshold(case, transforms, expected, tmp_path):
    model = transpose_conv_model(tmp_path / "t.tflite")
    assert types(convert(model, tmp_path / "out", transforms))[1] == (expected, (1,))


@pytest.mark.parametrize(
    "fields",
    [{"channels": 8}, {"stride": 2}, {"dtype": "float32"}],
    ids=["16_or_fewer_channels", "strided", "float32"],
)
def test_ineligible_transpose_conv_stays(fields, tmp_path):
    """The default threshold (16), a stride other than 1 and float activations keep TRANSPOSE_CONV."""
    model = transpose_conv_model(tmp_path / "t.tflite", **fields)
    result = converted_and_exact(model, tmp_path / "out")
    assert types(result)[1] == ("TRANSPOSE_CONV", (1,))


# -- PRUNE_IDENTITY_OPS -----------------------------------------------------------------------------


def _reshape_storage(result) -> tuple[int, int]:
    source, target = result.operators[1].input_ids[0], result.operators[1].output_ids[0]
    return result.placements[source].offset, result.placements[target].offset


def test_prune_identity_ops_is_the_one_way_a_reshape_aliases(tmp_path):
    model = reshape_model(tmp_path / "r.tflite")
    on = converted_and_exact(model, tmp_path / "on")
    off = converted_and_exact(model, tmp_path / "off", [{"name": "PRUNE_IDENTITY_OPS", "enabled": False}])
    assert types(on) == types(off) == [("ADD", (0,)), ("RESHAPE", (1,)), ("SOFTMAX", (2,))]
    same, other = _reshape_storage(on), _reshape_storage(off)
    assert same[0] == same[1], "the transform's alias shares the input's bytes"
    assert other[0] != other[1], "without the transform the reshape copies into its own buffer"


# -- SCHEDULE_CONSTANT_DEQUANTIZE -------------------------------------------------------------------


def test_constant_dequantize_runs_just_before_its_first_reader(tmp_path):
    model = dequantize_model(tmp_path / "d.tflite")
    on = converted_and_exact(model, tmp_path / "on")
    off = converted_and_exact(model, tmp_path / "off", ALL_OFF)
    assert types(off) == [
        ("DEQUANTIZE", (0,)),
        ("DEQUANTIZE", (1,)),
        ("MUL", (2,)),
        ("ADD", (3,)),
        ("MUL", (4,)),
    ]
    assert types(on) == [
        ("MUL", (2,)),
        ("DEQUANTIZE", (0,)),
        ("ADD", (3,)),
        ("DEQUANTIZE", (1,)),
        ("MUL", (4,)),
    ]
    scratch = {r.role: r for r in on.regions}["scratch"], {r.role: r for r in off.regions}["scratch"]
    assert scratch[0].size < scratch[1].size, "the float32 copies are live for less of the run"


# -- the configuration rules ------------------------------------------------------------------------


def selected(entries) -> list[str]:
    return [t.NAME for t in TransformPipeline.from_config(entries).transforms]


def test_all_transforms_run_by_default_in_the_product_order():
    assert [n for n in selected([]) if n in ORDERED] == ORDERED


def test_star_disables_all_and_a_named_entry_enables_one_again():
    assert selected(ALL_OFF) == []
    assert selected([*ALL_OFF, {"name": "PRUNE_IDENTITY_OPS", "enabled": True}]) == ["PRUNE_IDENTITY_OPS"]
    assert "TRANSPOSE_REVERSE_CONV" not in selected([{"name": "TRANSPOSE_REVERSE_CONV", "enabled": False}])


@pytest.mark.parametrize(
    "entries, message",
    [
        ([{"name": "*", "enabled": True, "options": {"output_channel_threshold": 2}}], "'*'"),
        ([{"name": "PRUNE_IDENTITY_OPS"}, {"name": "PRUNE_IDENTITY_OPS", "enabled": False}], "listed twice"),
        ([{"name": "*"}, {"name": "*", "enabled": False}], "listed twice"),
        ([{"name": "DEPTHWISE_TO_CON"}], "DEPTHWISE_TO_CONV"),
        ([{"name": "DEPTHWISE_TO_CONV", "options": {"threshold": 2}}], "output_channel_threshold"),
        ([{"name": "DEPTHWISE_TO_CONV", "options": {"output_channel_threshold": -1}}], "DEPTHWISE_TO_CONV"),
        (
            [{"name": "TRANSPOSE_REVERSE_CONV", "options": {"input_channel_threshold": "many"}}],
            "input_channel",
        ),
        ([{"name": "SCHEDULE_CONSTANT_DEQUANTIZE", "options": {"anything": 1}}], "takes no options"),
    ],
    ids=[
        "options_on_star",
        "repeated",
        "repeated_star",
        "unknown",
        "unknown_option",
        "negative",
        "bad_type",
        "no_options",
    ],
)
def test_configuration_errors_are_invalid_config(entries, message, tmp_path):
    with pytest.raises(InvalidConfigError, match=message) as raised:
        TransformPipeline.from_config(entries)
    assert raised.value.exit_code == 2
    # A conversion refuses the same entries before reading the model.
    with pytest.raises(InvalidConfigError, match=message):
        convert(tmp_path / "never_read.tflite", tmp_path, entries)


def test_the_command_line_exits_2_on_an_unknown_transform(tmp_path):
    model = reshape_model(tmp_path / "r.tflite")
    args = [
        "--model.path",
        str(model),
        "--module.path",
        str(tmp_path / "out"),
        "--transforms",
        '{"name": "NOPE"}',
    ]
    run = subprocess.run(
        [sys.executable, "-m", "helia_aot", "convert", *args], capture_output=True, text=True
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "NOPE" in run.stderr and not (tmp_path / "out").exists()


def test_the_plan_of_a_rewritten_operator_names_its_new_type(tmp_path):
    model = depthwise_model(tmp_path / "dw.tflite", "int8")
    result = convert(model, tmp_path / "out")
    plan = json.loads(next(Path(result.output).glob("*_plan.json")).read_text())
    assert [(o["op_type"], o["source_indices"]) for o in plan["operators"]] == [("CONV_2D", [0])]
