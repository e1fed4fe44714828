"""The Load stage on corpus and built models, with a tiny fake registry context."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import helia_aot.pipeline.load as load_module
import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.air import AirOperator, AirTensorKind, AirTensorType, verify_model
from helia_aot.converters.litert import schema_access as sa
from helia_aot.errors import (
    InvalidConfigError,
    ModelLoadError,
    PluginError,
    UnsupportedModelError,
)
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.pipeline.load import load_model

MODELS_DIR = Path(__file__).resolve().parents[1] / "data" / "models"


def generic_parser(op_index, model, subgraph, air_model):
    """A parser that copies the operator's wiring (enough to build a valid graph)."""
    op = sa.operator_at(subgraph, op_index)
    return AirOperator(
        id=str(op_index),
        op_type=sa.op_key(model, op),
        input_ids=sa.input_ids_of(op),
        output_ids=sa.output_ids_of(op),
    )


def context(keys=(), hooks=None, parser=generic_parser):
    return SimpleNamespace(litert_model_hooks=hooks or {}, litert_parsers={key: parser for key in keys})


def all_keys(path: Path) -> list[str]:
    from helia_aot.converters.litert.reader import read_model

    model = read_model(path)
    return [sa.op_key(model, op) for op in sa.operators_of(sa.subgraph_at(model, 0))]


@pytest.mark.parametrize(
    "name",
    [
        "mlperf_kws_dscnn_int8",
        "conv2d_3x3_s2_same_int8",
        "conv2d_fp16_weights_float16w",
        "lstm_unrolled_int8",
        "squeeze_dyn_dims_int8",
        "concat_channels_2inputs_int16x8",
    ],
)
def test_corpus_models_load_into_valid_air(name):
    path = MODELS_DIR / f"{name}.tflite"
    air = load_model(path, 0, context(all_keys(path)))
    assert verify_model(air) == []
    assert air.name == name and air.description == "MLIR Converted."
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    details = {d["index"]: d for d in interpreter.get_tensor_details()}
    assert len(air.tensors) == len(details)
    assert air.inputs == [str(d["index"]) for d in interpreter.get_input_details()]
    assert air.outputs == [str(d["index"]) for d in interpreter.get_output_details()]
    assert len({t.name for t in air.tensors.values()}) == len(air.tensors)
    for tid, tensor in air.tensors.items():
        d = details[int(tid)]
        assert tensor.source_name == d["name"]
        assert tensor.name.isidentifier() and tensor.name == tensor.name.lower()
        assert tensor.shape == tuple(int(x) for x in d["shape"])
        if tensor.kind is AirTensorKind.CONSTANT:
            assert tensor.data.shape == tensor.shape
    assert [op.id for op in air.operators] == [str(i) for i in range(len(air.operators))]


def test_names_are_sanitized_and_unique(tmp_path):
    b = LiteRTModelBuilder(description="evil */ #include <x.h>\nnext")
    x = b.add_tensor('x */ #include "evil.h"', (1, 4), "float32")
    y = b.add_tensor("int", (1, 4), "float32")
    z = b.add_tensor("int", (1, 4), "float32")
    b.add_operator("RELU", [x], [y])
    b.add_operator("RELU", [y], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    path = b.save(tmp_path / "9 bad-name.tflite")
    air = load_model(path, 0, context(["RELU"]))
    names = [t.name for t in air.tensors.values()]
    assert len(set(names)) == 3 and all(n.isidentifier() for n in names)
    assert names[0].endswith("x_include_evil_h") and all("int" in n for n in names[1:])
    assert air.tensors["0"].source_name == 'x */ #include "evil.h"'
    assert air.name == "model_9_bad_name"
    assert "*/" not in air.description and "\n" not in air.description


def test_dynamic_batch_becomes_one_and_other_unknown_dims_are_rejected(tmp_path):
    def build(shape):
        b = LiteRTModelBuilder()
        x = b.add_tensor("x", shape, "float32")
        y = b.add_tensor("y", shape, "float32")
        b.add_operator("RELU", [x], [y])
        b.set_inputs([x])
        b.set_outputs([y])
        return b.save(tmp_path / "m.tflite")

    air = load_model(build((-1, 4)), 0, context(["RELU"]))
    assert air.tensors["0"].shape == (1, 4)
    with pytest.raises(UnsupportedModelError, match="unknown dimension"):
        load_model(build((1, -1)), 0, context(["RELU"]))
    with pytest.raises(UnsupportedModelError, match="too many"):
        load_model(build((1 << 20, 1 << 12)), 0, context(["RELU"]))


def test_constant_and_variable_kinds(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2,), "int8", quantization=([0.5], [1]))
    w = b.add_tensor("w", (2,), "int8", data=np.int8([3, -4]), quantization=([0.25], [0]))
    state = b.add_tensor("state", (2,), "int8", variable=True)
    y = b.add_tensor("y", (2,), "int8", quantization=([0.5], [1]))
    b.add_operator("ADD", [x, w], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    air = load_model(b.save(tmp_path / "k.tflite"), 0, context(["ADD"]))
    assert air.tensors[str(w)].kind is AirTensorKind.CONSTANT
    assert air.tensors[str(w)].data.tolist() == [3, -4]
    assert air.tensors[str(w)].dtype is AirTensorType.INT8
    assert air.tensors[str(state)].kind is AirTensorKind.PERSISTENT
    assert air.tensors[str(x)].kind is AirTensorKind.SCRATCH
    assert air.tensors[str(x)].zero_point() == 1 and air.tensors[str(w)].scale() == 0.25


def test_unsupported_operators_are_reported_together(monkeypatch):
    path = MODELS_DIR / "mlperf_kws_dscnn_int8.tflite"

    def refusing(op_index, model, subgraph, air_model):
        raise UnsupportedModelError("stride 7 is not supported")

    def bad_value(op_index, model, subgraph, air_model):
        raise ValueError("weights must be constant")

    ctx = context(["CONV_2D"])
    ctx.litert_parsers["AVERAGE_POOL_2D"] = refusing
    ctx.litert_parsers["FULLY_CONNECTED"] = bad_value
    monkeypatch.setattr(load_module, "distribution_installed", lambda name: False)
    with pytest.raises(UnsupportedModelError) as info:
        load_model(path, 0, ctx)
    message = info.value.message
    assert message.startswith("7 operators cannot be converted:")
    assert "#1 DEPTHWISE_CONV_2D: no parser registered; install helia-aot-ops-builtin" in message
    assert "#9 AVERAGE_POOL_2D: stride 7 is not supported" in message
    assert "#10 FULLY_CONNECTED: weights must be constant" in message
    assert "#11 SOFTMAX: no parser registered" in message
    assert "CONV_2D:" not in message.replace("DEPTHWISE_CONV_2D:", "")
    assert info.value.hint == "install helia-aot-ops-builtin"
    assert [d["index"] for d in info.value.details] == [1, 3, 5, 7, 9, 10, 11]

    monkeypatch.setattr(load_module, "distribution_installed", lambda name: True)
    with pytest.raises(
        UnsupportedModelError, match="#1 DEPTHWISE_CONV_2D: not supported by any installed operator pack"
    ):
        load_model(path, 0, ctx)


def test_custom_operator_hint(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (4,), "float32")
    y = b.add_tensor("y", (4,), "float32")
    z = b.add_tensor("z", (4,), "float32")
    b.add_custom_operator("Acme-Filter", [x], [y], b"\x00")
    b.add_operator("RELU", [y], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    path = b.save(tmp_path / "custom.tflite")
    with pytest.raises(UnsupportedModelError) as info:
        load_model(path, 0, context(["RELU"]))
    assert info.value.message == (
        "1 operator cannot be converted:\n  #0 ACME_FILTER: no parser registered; install an "
        "operator pack that registers the key ACME_FILTER"
    )
    assert info.value.hint == "install an operator pack that registers the key ACME_FILTER"
    air = load_model(path, 0, context(["RELU", "ACME_FILTER"]))
    assert [op.op_type for op in air.operators] == ["ACME_FILTER", "RELU"]


def test_hooks_run_in_order_and_may_replace_the_model(tmp_path):
    path = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"
    seen = []

    def rename(model):
        seen.append("rename")
        sa.tensor_at(sa.subgraph_at(model, 0), 0).name = b"renamed input"

    def replace(model):
        seen.append("replace")
        model.description = b"replaced"
        return model

    air = load_model(path, 0, context(["CONV_2D"], hooks={"a": rename, "b": replace}))
    assert seen == ["rename", "replace"]
    assert air.tensors["0"].name.endswith("renamed_input") and air.description == "replaced"

    with pytest.raises(PluginError, match="'bad' returned str"):
        load_model(path, 0, context(["CONV_2D"], hooks={"bad": lambda model: "nope"}))
    with pytest.raises(PluginError, match="'boom' failed: ZeroDivisionError"):
        load_model(path, 0, context(["CONV_2D"], hooks={"boom": lambda model: 1 / 0}))


def _chain_model(path: Path) -> Path:
    """x -> RELU -> TANH -> LOGISTIC -> RELU6 -> y: four operators, indices 0..3 in the file."""
    b = LiteRTModelBuilder()
    t = [b.add_tensor(f"t{i}", (1, 4), "float32") for i in range(5)]
    for i, key in enumerate(["RELU", "TANH", "LOGISTIC", "RELU6"]):
        b.add_operator(key, [t[i]], [t[i + 1]])
    b.set_inputs([t[0]])
    b.set_outputs([t[4]])
    path.write_bytes(b.to_bytes())
    return path


def test_source_indices_are_the_file_indices_whatever_the_hooks_do(tmp_path):
    """The seeds' rule: an operator keeps its index in the file the user gave. A hook removing
    operators (as the resource-variable hook removes VAR_HANDLE), reordering them or returning a
    deep copy does not shift an index; an operator a hook creates has none, and errors name the
    file index too."""
    import copy

    path = _chain_model(tmp_path / "chain.tflite")
    keys = ["RELU", "TANH", "LOGISTIC", "RELU6", "ABS"]

    def drop_first(model):  # RELU goes; TANH reads the input instead
        sub = sa.subgraph_at(model, 0)
        sub.operators[1].inputs = sub.operators[0].inputs
        sub.operators = sub.operators[1:]

    def deep_copy(model):
        return copy.deepcopy(model)

    def relu6_as_abs(model):  # a hook-made operator standing in for RELU6
        sub = sa.subgraph_at(model, 0)
        old = sub.operators[-1]
        code = litert.OperatorCodeT()
        code.builtinCode = code.deprecatedBuiltinCode = litert.BuiltinOperator.ABS
        model.operatorCodes.append(code)
        new = litert.OperatorT()
        new.opcodeIndex, new.inputs, new.outputs = len(model.operatorCodes) - 1, old.inputs, old.outputs
        sub.operators[-1] = new

    air = load_model(path, 0, context(keys, hooks={"a": drop_first, "b": deep_copy}))
    assert [(op.op_type, op.source_indices) for op in air.operators] == [
        ("TANH", (1,)),
        ("LOGISTIC", (2,)),
        ("RELU6", (3,)),
    ]
    assert [op.id for op in air.operators] == ["0", "1", "2"]  # AIR ids stay execution positions
    air = load_model(path, 0, context(keys, hooks={"a": drop_first, "c": relu6_as_abs}))
    assert [(op.op_type, op.source_indices) for op in air.operators] == [
        ("TANH", (1,)),
        ("LOGISTIC", (2,)),
        ("ABS", ()),
    ]
    with pytest.raises(UnsupportedModelError, match=r"#2 LOGISTIC"):
        load_model(path, 0, context(["TANH", "RELU6"], hooks={"a": drop_first}))


def test_subgraph_index_is_checked():
    path = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"
    for index in (1, -1):
        with pytest.raises(InvalidConfigError, match="out of range"):
            load_model(path, index, context(["CONV_2D"]))


def test_empty_subgraph_is_unsupported(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (4,), "float32")
    b.set_inputs([x])
    b.set_outputs([x])
    with pytest.raises(UnsupportedModelError, match="no operators"):
        load_model(b.save(tmp_path / "empty.tflite"), 0, context())


def test_graph_problems_become_model_load_errors(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (4,), "float32")
    y = b.add_tensor("y", (4,), "float32")
    z = b.add_tensor("z", (4,), "float32")
    b.add_operator("RELU", [z], [y])  # reads z, written only by the next operator
    b.add_operator("RELU", [x], [z])
    b.set_inputs([x])
    b.set_outputs([y])
    with pytest.raises(ModelLoadError, match="reads tensor '2' before it is written"):
        load_model(b.save(tmp_path / "cycle.tflite"), 0, context(["RELU"]))

    b.operators[0].inputs = [9]
    with pytest.raises(ModelLoadError, match=r"operator #0 \(RELU\) input 0 refers to tensor 9"):
        load_model(b.save(tmp_path / "missing.tflite"), 0, context(["RELU"]))
    b.set_outputs([12])
    with pytest.raises(ModelLoadError, match="SubGraph.tensors index 12"):
        load_model(b.save(tmp_path / "output.tflite"), 0, context(["RELU"]))


def test_unsupported_tensor_type_names_the_tensor(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("text", (1,), litert.TensorType.STRING)
    y = b.add_tensor("y", (1,), "float32")
    b.add_custom_operator("PARSE", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    with pytest.raises(UnsupportedModelError, match=r"tensor 0 \('text'\): tensor type STRING"):
        load_model(b.save(tmp_path / "s.tflite"), 0, context(["PARSE"]))


def test_parser_returning_the_wrong_type_is_a_plugin_error():
    path = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"
    with pytest.raises(PluginError, match="returned dict"):
        load_model(path, 0, context(["CONV_2D"], parser=lambda *args: {}))


class _EveryKey(dict):
    """A parser registry that claims every key (to reach the parser stage on damaged files)."""

    def __contains__(self, key):
        return True

    def get(self, key, default=None):
        return generic_parser


def test_damaged_files_fail_only_with_typed_errors(tmp_path):
    from helia_aot.errors import HeliaAotError

    data = (MODELS_DIR / "mlperf_kws_dscnn_int8.tflite").read_bytes()
    rng = np.random.default_rng(11)
    ctx = SimpleNamespace(litert_model_hooks={}, litert_parsers=_EveryKey())
    path = tmp_path / "damaged.tflite"
    outcomes = {"loaded": 0, "rejected": 0}
    for _ in range(150):
        damaged = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            position = int(rng.integers(8, len(damaged)))
            damaged[position] = int(rng.integers(0, 256))
        path.write_bytes(bytes(damaged))
        try:
            load_model(path, 0, ctx)
            outcomes["loaded"] += 1
        except HeliaAotError:
            outcomes["rejected"] += 1
    assert outcomes["loaded"] and outcomes["rejected"]


def test_variable_with_buffer_data_is_state_starting_from_that_data(tmp_path):
    """A variable's buffer is its initial value (what the resource-variable hook writes for a
    CALL_ONCE-initialised variable): it loads as persistent state, not as a constant."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2,), "float32")
    state = b.add_tensor("state", (2,), "float32", data=np.float32([1, 2]), variable=True)
    y = b.add_tensor("y", (2,), "float32")
    b.add_operator("ADD", [x, state], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    air = load_model(b.save(tmp_path / "v.tflite"), 0, context(["ADD"]))
    tensor = air.tensors[str(state)]
    assert tensor.kind is AirTensorKind.PERSISTENT
    np.testing.assert_array_equal(tensor.data, np.float32([1, 2]))
