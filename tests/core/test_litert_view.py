"""The checked LiteRT model view: what it holds, that it is read once, and where its modules sit."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.air import AirOperator, AirTensorType
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert import view_builder
from helia_aot.converters.litert.reader import read_model
from helia_aot.converters.litert.view import ModelView, OperatorView, SubgraphView, TensorView
from helia_aot.converters.litert.view_builder import build_view
from helia_aot.errors import ModelLoadError
from helia_aot.litert import objects
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.pipeline.load import load_model
from hypothesis import given
from hypothesis import strategies as st

MODELS_DIR = Path(__file__).resolve().parents[1] / "data" / "models"
LITERT_PACKAGE = Path(view_builder.__file__).resolve().parent


@pytest.mark.parametrize(
    "name", ["mlperf_kws_dscnn_int8", "conv2d_fp16_weights_float16w", "lstm_unrolled_int8"]
)
def test_view_of_corpus_model_matches_the_interpreter(name):
    path = MODELS_DIR / f"{name}.tflite"
    view = build_view(read_model(path), 0, path.name)
    interpreter = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    tensors = interpreter.get_tensor_details()
    assert view.name == path.name and view.subgraph_count == 1 and view.subgraph.index == 0
    assert [t.index for t in view.subgraph.tensors] == list(range(len(tensors)))
    for tensor, details in zip(view.subgraph.tensors, tensors, strict=True):
        assert tensor.name == details["name"]
        assert tensor.shape == tuple(int(d) for d in details["shape"])
        assert tensor.dtype.numpy == np.dtype(details["dtype"])
        scales = details["quantization_parameters"]["scales"]
        if scales.size:
            np.testing.assert_array_equal(tensor.quantization.scale, scales)
        else:
            assert tensor.quantization is None
    assert view.subgraph.inputs == tuple(d["index"] for d in interpreter.get_input_details())
    assert view.subgraph.outputs == tuple(d["index"] for d in interpreter.get_output_details())
    ops = interpreter._get_ops_details()
    assert [op.key for op in view.subgraph.operators] == [d["op_name"] for d in ops]
    for op, details in zip(view.subgraph.operators, ops, strict=True):
        assert op.inputs == tuple(int(i) for i in details["inputs"])
        assert op.outputs == tuple(int(i) for i in details["outputs"])


def test_view_holds_plain_values_and_cannot_be_edited():
    path = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"
    model = read_model(path)
    view = build_view(model, 0, path.name)
    assert isinstance(view, ModelView) and isinstance(view.subgraph, SubgraphView)
    assert view.node is model and view.subgraph.node is sa.subgraph_at(model, 0)
    (conv,) = view.subgraph.operators
    assert isinstance(conv, OperatorView) and conv.key == "CONV_2D"
    assert conv.inputs == (0, 2, 1) and all(type(i) is int for i in (*conv.inputs, *conv.outputs))
    assert type(conv.options) is objects.Conv2DOptionsT and conv.node is sa.operator_at(view.subgraph.node, 0)
    weights = view.subgraph.tensors[2]
    assert (
        isinstance(weights, TensorView) and weights.data is not None and weights.data.shape == weights.shape
    )
    assert all(type(d) is int for t in view.subgraph.tensors for d in t.shape)
    assert view.description == "MLIR Converted."
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.subgraph = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        conv.key = "ADD"
    with pytest.raises(dataclasses.FrozenInstanceError):
        weights.shape = (1,)


def test_every_node_is_checked_before_any_parser_runs(tmp_path):
    """A malformed later operator stops the Load stage before the parser of an earlier one runs."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (4,), "float32")
    y = b.add_tensor("y", (4,), "float32")
    z = b.add_tensor("z", (4,), "float32")
    b.add_operator("RELU", [x], [y])
    b.add_operator("RELU", [y], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    b.operators[1].inputs = [7]
    calls = []

    def recording(op_index, model, subgraph, air_model):
        calls.append(op_index)
        op = sa.operator_at(subgraph, op_index)
        return AirOperator(
            id=str(op_index), op_type="RELU", input_ids=sa.input_ids_of(op), output_ids=sa.output_ids_of(op)
        )

    context = SimpleNamespace(litert_model_hooks={}, litert_parsers={"RELU": recording})
    with pytest.raises(ModelLoadError, match=r"operator #1 \(RELU\) input 0 refers to tensor 7"):
        load_model(b.save(tmp_path / "m.tflite"), 0, context)
    assert calls == []


def test_parsers_get_the_model_and_subgraph_the_hooks_left(tmp_path):
    """The view is built after the hooks, and parsers see the same object-API nodes it was built from."""
    path = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"
    seen = []

    def replace(model):
        return read_model(path)

    def parser(op_index, model, subgraph, air_model):
        seen.append((model, subgraph))
        op = sa.operator_at(subgraph, op_index)
        return AirOperator(
            id=str(op_index),
            op_type="CONV_2D",
            input_ids=sa.input_ids_of(op),
            output_ids=sa.output_ids_of(op),
        )

    context = SimpleNamespace(litert_model_hooks={"replace": replace}, litert_parsers={"CONV_2D": parser})
    air = load_model(path, 0, context)
    ((model, subgraph),) = seen
    assert subgraph is sa.subgraph_at(model, 0)
    assert [op.op_type for op in air.operators] == ["CONV_2D"]


_DTYPES = {
    "int8": AirTensorType.INT8,
    "int16": AirTensorType.INT16,
    "int32": AirTensorType.INT32,
    "float32": AirTensorType.FLOAT32,
    "uint8": AirTensorType.UINT8,
}


@given(
    shape=st.lists(st.integers(1, 5), min_size=0, max_size=4),
    dtype=st.sampled_from(sorted(_DTYPES)),
    constant=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_view_tensor_agrees_with_what_was_written(tmp_path_factory, shape, dtype, constant, seed):
    info = np.iinfo(dtype) if dtype != "float32" else None
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape, dtype=np.int64))
    if info is None:
        values = rng.standard_normal(size).astype(np.float32)
    else:
        values = rng.integers(info.min, info.max, size=size, endpoint=True, dtype=np.int64).astype(dtype)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", shape, dtype)
    c = b.add_tensor("c", shape, dtype, data=values if constant else None)
    y = b.add_tensor("y", shape, dtype)
    b.add_operator("ADD", [x, c], [y], litert.AddOptionsT())
    b.set_inputs([x] if constant else [x, c])
    b.set_outputs([y])
    path = b.save(tmp_path_factory.mktemp("view") / "m.tflite")
    view = build_view(read_model(path), 0, path.name)
    tensor = view.subgraph.tensors[c]
    assert tensor.shape == tuple(shape) and tensor.dtype is _DTYPES[dtype] and tensor.name == "c"
    assert tensor.quantization is None and not tensor.is_variable
    if constant:
        assert tensor.data.dtype == np.dtype(dtype) and tensor.data.shape == tuple(shape)
        np.testing.assert_array_equal(tensor.data.reshape(-1), values)
    else:
        assert tensor.data is None
    (add,) = view.subgraph.operators
    assert (add.key, add.inputs, add.outputs, add.intermediates) == ("ADD", (x, c), (y,), ())


BINDINGS = "helia_aot.litert.schema_py_generated"


def _module_imports(path: Path) -> list[tuple[str, bool]]:
    """``(imported module, at module level)`` for every import in ``path`` (``from a import b`` also
    yields ``a.b``, which may name a submodule). An ``if TYPE_CHECKING:`` block is module level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            top |= {id(child) for child in node.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, id(node) in top))
            found += [(f"{node.module}.{alias.name}", id(node) in top) for alias in node.names]
    return found


def test_litert_reading_modules_form_layers_without_function_level_imports():
    """The modules the Load stage reads a model with import each other in one direction only."""
    package = "helia_aot.converters.litert"
    modules = {f"{package}.{p.stem}": p for p in LITERT_PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert {"reader", "schema_access", "file_bytes", "validate", "view", "view_builder"} <= {
        name.rsplit(".", 1)[1] for name in modules
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imports = _module_imports(path)
        # The one exception: the reader imports the flatc bindings only to locate a malformed field.
        assert all(top_level or target.startswith(BINDINGS) for target, top_level in imports), (
            f"{name} imports inside a function"
        )
        graph[name] = {target for target, _ in imports if target in modules and target != name}
    assert f"{package}.reader" not in graph[f"{package}.schema_access"]
    order: list[str] = []
    while len(order) < len(graph):
        ready = sorted(n for n in graph if n not in order and graph[n] <= set(order))
        assert ready, f"import cycle among {sorted(set(graph) - set(order))}"
        order += ready
    assert order.index(f"{package}.view_builder") > order.index(f"{package}.validate")
