"""Schema accessors on real corpus models: correct reads, and ModelLoadError for bad indices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import parse_model, read_model
from helia_aot.errors import ModelLoadError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

MODELS_DIR = Path(__file__).resolve().parents[1] / "data" / "models"

CONV_INT8 = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"
LSTM_INT8 = MODELS_DIR / "lstm_fused_seq_tf_keras_int8.tflite"


@pytest.fixture(scope="module")
def conv():
    model = read_model(CONV_INT8)
    return model, sa.subgraph_at(model, 0)


def test_conv_model_reads_match_the_interpreter(conv):
    model, subgraph = conv
    interpreter = Interpreter(
        model_path=str(CONV_INT8), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
    )
    details = interpreter.get_tensor_details()
    assert len(sa.tensors_of(subgraph)) == len(details)
    for d in details:
        tensor = sa.tensor_at(subgraph, d["index"])
        assert sa.name_of(tensor) == d["name"]
        assert sa.shape_of(tensor) == tuple(int(x) for x in d["shape"])
        assert all(isinstance(x, int) for x in sa.shape_of(tensor))
    assert sa.subgraph_inputs(subgraph) == [d["index"] for d in interpreter.get_input_details()]
    assert sa.subgraph_outputs(subgraph) == [d["index"] for d in interpreter.get_output_details()]


def test_operator_reads(conv):
    model, subgraph = conv
    (op,) = sa.operators_of(subgraph)
    assert sa.operator_at(subgraph, 0) is op
    assert sa.op_key(model, op) == "CONV_2D"
    assert sa.builtin_code_of(sa.opcode_of(model, op)) == litert.BuiltinOperator.CONV_2D
    assert sa.inputs_of(op) == [0, 2, 1] and sa.outputs_of(op) == [3]
    assert all(type(i) is int for i in sa.inputs_of(op))
    assert sa.input_ids_of(op) == ["0", "2", "1"] and sa.output_ids_of(op) == ["3"]
    assert sa.intermediates_of(op) == []
    assert sa.custom_options_of(op) == b""
    options = sa.builtin_options_of(op, litert.Conv2DOptionsT)
    assert (options.strideH, options.strideW) == (2, 2)
    with pytest.raises(ModelLoadError, match="Conv2DOptionsT"):
        sa.builtin_options_of(op, litert.AddOptionsT)
    assert sa.input_tensor(subgraph, op, 1) is sa.tensor_at(subgraph, 2)
    assert sa.input_tensor(subgraph, op, 7) is None
    assert sa.output_tensor(subgraph, op, 0) is sa.tensor_at(subgraph, 3)
    assert sa.buffer_at(model, sa.tensor_at(subgraph, 2).buffer).data is not None
    assert sa.description_of(model) == "MLIR Converted."


def test_lstm_intermediates_are_listed():
    model = read_model(LSTM_INT8)
    subgraph = sa.subgraph_at(model, 0)
    lstm = [op for op in sa.operators_of(subgraph) if sa.op_key(model, op) == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    assert lstm
    for op in lstm:
        intermediates = sa.intermediates_of(op)
        assert intermediates and all(0 <= i < len(sa.tensors_of(subgraph)) for i in intermediates)
        # Optional LSTM inputs are -1 and stay in place as "".
        assert -1 in sa.inputs_of(op) and "" in sa.input_ids_of(op)
        assert sa.input_ids_of(op).index("") == sa.inputs_of(op).index(-1)


@pytest.mark.parametrize("index", [-1, 4, 10**9])
def test_out_of_range_indices_name_the_table(conv, index):
    model, subgraph = conv
    with pytest.raises(ModelLoadError, match=rf"SubGraph.tensors index {index} is out of range"):
        sa.tensor_at(subgraph, index)
    with pytest.raises(ModelLoadError, match="SubGraph.operators"):
        sa.operator_at(subgraph, index)
    with pytest.raises(ModelLoadError, match="Model.buffers"):
        sa.buffer_at(model, index + 10**6 if index >= 0 else index)
    with pytest.raises(ModelLoadError, match="Model.subgraphs"):
        sa.subgraph_at(model, index)


def test_absent_vectors_read_as_empty():
    subgraph = litert.SubGraphT()
    op = litert.OperatorT()
    assert sa.tensors_of(subgraph) == [] and sa.operators_of(subgraph) == []
    assert sa.inputs_of(op) == [] and sa.outputs_of(op) == [] and sa.intermediates_of(op) == []
    assert sa.subgraph_inputs(subgraph) == [] and sa.shape_of(litert.TensorT()) == ()
    assert sa.shape_signature_of(litert.TensorT()) is None
    with pytest.raises(ModelLoadError, match="has 0 entries"):
        sa.tensor_at(subgraph, 0)
    with pytest.raises(ModelLoadError, match="Model.operatorCodes"):
        sa.opcode_of(litert.ModelT(), op)


def test_builtin_code_takes_the_larger_field():
    opcode = litert.OperatorCodeT()
    opcode.deprecatedBuiltinCode = 127  # PLACEHOLDER_FOR_GREATER_OP_CODES
    opcode.builtinCode = litert.BuiltinOperator.BROADCAST_TO
    assert sa.builtin_code_of(opcode) == litert.BuiltinOperator.BROADCAST_TO
    old = litert.OperatorCodeT()
    old.deprecatedBuiltinCode = litert.BuiltinOperator.SOFTMAX  # old files: only the byte field
    assert sa.builtin_name(sa.builtin_code_of(old)) == "SOFTMAX"
    assert sa.builtin_name(10_000) == "BUILTIN_10000"
    assert sa.is_known_builtin("CONV_2D") and not sa.is_known_builtin("CUSTOM")
    assert not sa.is_known_builtin("MY_OP")


def test_custom_operator_key_and_options():
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (4,), "float32")
    y = b.add_tensor("y", (4,), "float32")
    b.add_custom_operator("my-fancy op", [x], [y], b"\x01\x02\xff")
    b.set_inputs([x])
    b.set_outputs([y])
    model = parse_model(b.to_bytes())
    subgraph = sa.subgraph_at(model, 0)
    op = sa.operator_at(subgraph, 0)
    assert sa.op_key(model, op) == "MY_FANCY_OP"
    assert sa.custom_code_of(sa.opcode_of(model, op)) == "my-fancy op"
    assert sa.custom_options_of(op) == b"\x01\x02\xff"
    assert sa.builtin_options_of(op) is None

    # Models over 2 GB keep custom options after the flatbuffer, addressed by offset and size.
    file_bytes = model._helia_aot_file_bytes
    op.customOptions = None
    op.largeCustomOptionsOffset = file_bytes.index(b"\x01\x02\xff")
    op.largeCustomOptionsSize = 3
    assert sa.custom_options_of(op, model) == b"\x01\x02\xff"
    with pytest.raises(ModelLoadError, match="need the model"):
        sa.custom_options_of(op)
    op.largeCustomOptionsSize = len(file_bytes)
    with pytest.raises(ModelLoadError, match="lies at bytes"):
        sa.custom_options_of(op, model)


def test_custom_operator_without_code_is_malformed():
    model = litert.ModelT()
    opcode = litert.OperatorCodeT()
    opcode.builtinCode = opcode.deprecatedBuiltinCode = litert.BuiltinOperator.CUSTOM
    model.operatorCodes = [opcode]
    with pytest.raises(ModelLoadError, match="no custom code"):
        sa.op_key(model, litert.OperatorT())


def test_negative_tensor_ids_other_than_absent_are_rejected():
    assert sa.tensor_id(-1) == "" and sa.tensor_id(np.int32(5)) == "5"
    with pytest.raises(ModelLoadError, match="negative"):
        sa.tensor_id(-2)
