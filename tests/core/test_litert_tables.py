"""The schema facts the loader reads models with (``schema_tables``) and the classes it builds
(``objects``) agree with schema.fbs and with the flatc bindings they stand in for.

``schema_tables.py`` is generated from schema.fbs by ``scripts/generate_litert_tables.py``; the
check here regenerates it. The bindings are generated from the same schema by flatc (checked by
test_litert_schema_generation.py), so comparing the two catches a misread of the schema grammar:
every table's fields, slots, kinds and defaults, every enum and union case.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import inspect
import pickle
from pathlib import Path

import flatbuffers
import numpy as np
import pytest
from helia_aot.converters.litert.reader import parse_model, read_model
from helia_aot.errors import PluginError
from helia_aot.litert import objects, schema_tables
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model
from helia_aot.pipeline.load import apply_model_hooks, is_model_object

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "tests" / "data" / "models"


def _generator():
    spec = importlib.util.spec_from_file_location(
        "generate_litert_tables", REPO / "scripts" / "generate_litert_tables.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tables_module_is_up_to_date_with_schema_fbs(capsys):
    assert _generator().main(["--check"]) == 0, capsys.readouterr().err
    schema = REPO / "helia_aot_core" / "src" / "helia_aot" / "litert" / "schema.fbs"
    digest = hashlib.sha256(schema.read_bytes()).hexdigest()
    assert f"# Schema sha256: {digest}" in Path(schema_tables.__file__).read_text()[:600]


def test_generator_reads_the_schema_grammar_it_meets():
    """Deprecated fields keep their slot, a union takes two, enum values count on from the last."""
    gen = _generator()
    schema = gen.parse(
        "namespace t;\n"
        "enum E : byte { A, B = 5, C }\n"
        "union U { X, Y (deprecated) }\n"
        "table X { old:int (deprecated); u:U; n_x:float = 2; e:E = C; v:[E]; s:[string]; }\n"
        "table Y { x:X; xs:[X]; }\n"
        "root_type Y;\n"
    )
    assert schema.enums["E"] == ("byte", [("A", 0), ("B", 5), ("C", 6)])
    assert schema.unions["U"] == [("X", 1), ("Y", 2)]
    layouts = gen.layouts(schema)
    assert layouts["X"] == [
        ("uType", 6, "B", 0),
        ("u", 8, "u:U", None),
        ("nX", 10, "f", 2.0),
        ("e", 12, "b", 6),
        ("v", 14, "[b", None),
        ("s", 16, "[s", None),
    ]
    assert layouts["Y"] == [("x", 4, "t:X", None), ("xs", 6, "[t:X", None)]


def _enum_values(cls: type) -> dict[str, int]:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_")}


def test_enums_and_unions_match_the_bindings():
    enums = {n: v for n, v in vars(schema_tables).items() if isinstance(v, type)}
    assert len(enums) > 10
    for name, cls in enums.items():
        assert _enum_values(cls) == _enum_values(getattr(litert, name)), name
    for name, cases in schema_tables.UNIONS.items():
        bound = _enum_values(getattr(litert, name))
        assert bound.pop("NONE") == 0
        assert cases == {value: case for case, value in bound.items()}, name


_FLAGS = {
    "?": "BoolFlags",
    "b": "Int8Flags",
    "B": "Uint8Flags",
    "h": "Int16Flags",
    "H": "Uint16Flags",
    "i": "Int32Flags",
    "I": "Uint32Flags",
    "q": "Int64Flags",
    "Q": "Uint64Flags",
    "f": "Float32Flags",
    "d": "Float64Flags",
}


def _kind_of_accessor(accessor: type, method: str) -> str:
    """The layout kind the bindings' accessor ``method`` reads (the generator's notation)."""
    source = inspect.getsource(getattr(accessor, method))
    if hasattr(accessor, method + "AsNumpy"):
        flags = inspect.getsource(getattr(accessor, method + "AsNumpy"))
        return "[" + next(code for code, name in _FLAGS.items() if f".{name}," in flags)
    if hasattr(accessor, method + "Length"):
        if "String(" in source:
            return "[s"
        return "[t:" + source.split("obj = ")[1].split("()")[0]
    if "Union(" in source:
        return "u:"
    if "Indirect(" in source:
        return "t:" + source.split("obj = ")[1].split("()")[0]
    if "String(" in source:
        return "s"
    return next(code for code, name in _FLAGS.items() if f".{name}," in source)


def test_every_table_layout_matches_the_bindings():
    """Fields, order and defaults (type included) as the bindings' ``XT()`` sets them; each slot and
    kind as the bindings' accessor reads it."""
    tables = set(schema_tables.TABLES)
    assert tables == {n[:-1] for n, v in vars(litert).items() if isinstance(v, type) and n.endswith("T")} - {
        ""
    }
    for table, rows in schema_tables.TABLES.items():
        bound = vars(getattr(litert, table + "T")())
        ours = {attr: default for attr, _, _, default in rows}
        assert list(ours) == list(bound), table
        assert [(type(v), v) for v in ours.values()] == [(type(v), v) for v in bound.values()], table
        accessor = getattr(litert, table)
        for attr, slot, kind, _ in rows:
            method = attr[:1].upper() + attr[1:]
            assert f"Offset({slot})" in inspect.getsource(getattr(accessor, method)), (table, attr)
            expected = _kind_of_accessor(accessor, method)
            assert kind == expected or (expected == "u:" and kind.startswith("u:")), (table, attr, kind)


def test_object_classes_behave_like_the_bindings_constructors():
    tensor = objects.TensorT()
    assert objects.object_class("Tensor") is objects.TensorT is type(tensor)
    assert vars(tensor) == vars(litert.TensorT())
    conv = objects.Conv2DOptionsT(0, 2, strideH=3)
    assert (conv.padding, conv.strideW, conv.strideH, conv.dilationWFactor) == (0, 2, 3, 1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'stride'"):
        objects.Conv2DOptionsT(stride=2)
    with pytest.raises(TypeError):
        objects.SoftmaxOptionsT(1.0, 2.0)
    with pytest.raises(AttributeError):
        objects.NotATableT  # noqa: B018
    model = read_model(MODELS / "conv2d_3x3_s2_same_int8.tflite")
    for clone in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        op = clone.subgraphs[0].operators[0]
        assert type(op.builtinOptions) is objects.Conv2DOptionsT
        assert vars(op.builtinOptions) == vars(model.subgraphs[0].operators[0].builtinOptions)


@pytest.mark.parametrize(
    "name",
    ["mlperf_kws_dscnn_int8", "if_cond_float32", "lstm_fused_seq_tf_keras_int8", "gru_unrolled_float32"],
)
def test_a_read_model_packs_as_the_bindings_pack_it(name):
    """``pack_model`` (and ``Pack``) of a read model write the bytes the bindings' tree writes."""
    data = (MODELS / f"{name}.tflite").read_bytes()
    ours = parse_model(data)
    assert type(ours) is objects.ModelT
    assert pack_model(ours) == pack_model(litert.ModelT.InitFromPackedBuf(data, 0))
    builder = flatbuffers.Builder(0)
    builder.Finish(ours.subgraphs[0].Pack(builder))
    assert type(objects.to_generated(ours.subgraphs[0])) is litert.SubGraphT
    assert len(builder.Output()) > 0


def test_rare_tables_read_from_their_layouts():
    """Sparsity, quantization details, the second options union and signatures: tables the fast
    paths hand to the layout reader unpack as the bindings unpack them."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), np.int8, quantization=(0.5, 0))
    y = b.add_tensor("y", (1, 4), np.int8, quantization=(0.5, 0))
    b.add_operator("ADD", [x, x], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.build()
    tensor = model.subgraphs[0].tensors[0]
    tensor.sparsity = litert.SparsityParametersT()
    tensor.sparsity.traversalOrder = np.array([0, 1], np.int32)
    dim = litert.DimensionMetadataT()
    dim.format, dim.denseSize = 1, 4
    dim.arraySegmentsType = litert.SparseIndexVector.Int32Vector
    dim.arraySegments = litert.Int32VectorT()
    dim.arraySegments.values = [0, 2]
    tensor.sparsity.dimMetadata = [dim]
    tensor.quantization.detailsType = litert.QuantizationDetails.BlockwiseQuantization
    tensor.quantization.details = litert.BlockwiseQuantizationT()
    tensor.quantization.details.blockSize = 32
    op = model.subgraphs[0].operators[0]
    op.builtinOptions2Type = litert.BuiltinOptions2.StablehloIotaOptions
    op.builtinOptions2 = litert.StablehloIotaOptionsT()
    op.builtinOptions2.iotaDimension = 3
    signature = litert.SignatureDefT()
    signature.signatureKey = "serving_default"
    signature.inputs = [litert.TensorMapT()]
    signature.inputs[0].name, signature.inputs[0].tensorIndex = "x", 0
    model.signatureDefs = [signature]
    data = pack_model(model)
    ours = parse_model(data)
    bound = litert.ModelT.InitFromPackedBuf(data, 0)
    assert pack_model(ours) == pack_model(bound)
    read = ours.subgraphs[0].tensors[0]
    assert type(read.sparsity.dimMetadata[0].arraySegments) is objects.Int32VectorT
    assert list(read.sparsity.dimMetadata[0].arraySegments.values) == [0, 2]
    assert read.quantization.details.blockSize == 32
    assert ours.subgraphs[0].operators[0].builtinOptions2.iotaDimension == 3
    assert ours.signatureDefs[0].inputs[0].name == b"x"


def test_hooks_may_return_either_model_class():
    model = read_model(MODELS / "relu_int8.tflite")
    bound = litert.ModelT.InitFromPackedBuf(pack_model(model), 0)
    assert is_model_object(model) and is_model_object(bound)
    assert not is_model_object(objects.SubGraphT()) and not is_model_object(object())
    assert apply_model_hooks(model, {"swap": lambda m: bound}) is bound
    assert apply_model_hooks(bound, {"back": lambda m: model}) is model
    with pytest.raises(PluginError, match="returned SubGraphT, not a ModelT or None"):
        apply_model_hooks(model, {"bad": lambda m: objects.SubGraphT()})
