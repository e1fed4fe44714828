"""Result views: checked against the generated module's own tables and the residency report,
defined as the documentation defines them, surviving transforms, and behaving as values."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import AirModel, AirOperator, AirTensor, AirTensorKind, AirTensorType
from helia_aot.converters.litert.reader import parse_model
from helia_aot.optimization.figures import operator_macs, operator_parameters
from helia_aot.platforms import MemoryType
from helia_aot.registry import build_default_registry_context
from helia_aot.views import (
    FrozenMapping,
    OperatorView,
    PlacementView,
    QuantizationView,
    RegionView,
    TensorView,
)

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"


def convert(out: Path, registry_context=None, **extra):
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(out), "name": "kws", "prefix": "kws"},
            "platform": {"name": "apollo510_evb"},
            "memory": {"dump_residency_json": True},
            "result_views": True,
            **extra,
        }
    )
    return AotConverter(config, registry_context=registry_context).convert()


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return convert(tmp_path_factory.mktemp("views"))


@pytest.fixture(scope="module")
def residency(result) -> dict:
    return json.loads((result.output / "kws_residency.json").read_text())


def test_views_are_absent_unless_asked(tmp_path):
    plain = AotConverter(
        ConvertArgs.model_validate(
            {"model": {"path": str(MODEL)}, "module": {"path": str(tmp_path), "name": "kws"}}
        )
    ).convert()
    assert (plain.operators, plain.tensors, plain.regions, plain.placements) == (None, None, None, None)


def test_field_names_are_the_documented_ones():
    names = {
        cls: [f.name for f in dataclasses.fields(cls)]
        for cls in (OperatorView, TensorView, RegionView, PlacementView)
    }
    assert names[OperatorView] == [
        "layer_index",
        "symbol",
        "type",
        "source_indices",
        "input_ids",
        "output_ids",
        "local_tensor_ids",
        "kernel_calls",
        "macs",
        "parameters",
    ]
    assert names[TensorView] == [
        "id",
        "name",
        "shape",
        "dtype",
        "ctype",
        "quantization",
        "kind",
        "input_index",
        "output_index",
        "nbytes",
    ]
    assert names[RegionView] == [
        "id",
        "memory",
        "source_memory",
        "role",
        "offset",
        "size",
        "alignment",
        "symbol",
        "source_symbol",
        "source_offset",
        "sidecar_file",
    ]
    assert names[PlacementView] == ["region", "offset", "size", "source_memory", "staged"]


def test_tensors_follow_the_modules_enumeration(result):
    header = (result.output / "includes-api" / "kws_tensors.h").read_text()
    # The module's own enumerators (equal to the C API's kws_tensor_<id> ones) in view order.
    enumeration = re.findall(r"^\s+kws_(t\d+_\w+) = (\d+),$", header, re.MULTILINE)
    assert [(t.name, str(i)) for i, t in enumerate(result.tensors)] == enumeration
    assert f"kws_num_tensors = {len(result.tensors)}" in header


def test_tensor_kinds_and_io_positions(result):
    by_kind = {}
    for t in result.tensors:
        by_kind.setdefault(t.kind, []).append(t)
    assert [t.input_index for t in by_kind["input"]] == [0]
    assert [t.output_index for t in by_kind["output"]] == [0]
    assert by_kind["input"][0].shape == (1, 49, 10, 1) and by_kind["input"][0].ctype == "int8_t"
    assert set(by_kind) == {"input", "output", "constant", "scratch"}
    header = (result.output / "includes-api" / "kws_tensors.h").read_text()
    assert f"#define kws_input_0_nbytes ({by_kind['input'][0].nbytes})" in header
    assert f"#define kws_output_0_nbytes ({by_kind['output'][0].nbytes})" in header


def test_quantization_views(result):
    weights = next(t for t in result.tensors if t.shape == (64, 10, 4, 1))
    q = weights.quantization
    assert isinstance(q, QuantizationView) and len(q.scale) == 64 and q.zero_point == (0,) * 64
    assert q.axis == 0
    assert all(
        t.quantization is None
        for t in result.tensors
        if t.dtype == "int32"
        and t.kind == "constant"
        and t.name.endswith(("output_multiplier", "output_shift"))
    )


def test_sizes_and_placements_are_the_residency_reports(result, residency):
    listed = {t["id"]: t for t in residency["tensors"]}
    for tensor in result.tensors:
        placement = result.placements.get(tensor.id)
        if tensor.id not in listed:
            assert placement is None and tensor.nbytes == 0
            continue
        row = listed[tensor.id]
        assert (placement.region, placement.offset, placement.size) == (
            row["region_id"],
            row["offset"],
            row["size"],
        )
        assert tensor.nbytes == row["size"] and placement.staged is False
        assert placement.source_memory is result.regions[placement.region].memory
    assert list(result.placements) == [t["id"] for t in residency["tensors"]]


def test_regions_match_the_residency_report_and_the_module(result, residency):
    arenas = {a["region_id"]: (role, a) for role, rows in residency["arenas"].items() for a in rows}
    assert [r.id for r in result.regions] == list(range(len(arenas)))
    sources = "".join(p.read_text() for p in (result.output / "src").glob("*.c"))
    for region in result.regions:
        role, arena = arenas[region.id]
        assert (region.role, region.memory, region.size, region.alignment) == (
            role,
            MemoryType(arena["memory"]),  # a MemoryType, whichever case the report writes
            arena["reserved_size"],
            arena["alignment"],
        )
        assert isinstance(region.memory, MemoryType) and region.source_memory is region.memory
        assert region.offset == 0 and region.source_offset == 0 and region.sidecar_file is None
        assert re.search(rf"\b{region.symbol}\[", sources), region.symbol


def test_staged_constants_and_application_owned_arenas(tmp_path):
    staged = convert(
        tmp_path,
        memory={
            "dump_residency_json": True,
            "allocate_arenas": False,
            "tensors": [
                {"type": "constant", "attributes": {"memory": "MRAM", "constant_destination_memory": "SRAM"}}
            ],
        },
    )
    # The MRAM region holding the staged bytes is no region of the C API: the application binds
    # the same two regions as with the product's module, scratch then the staged constants.
    assert not [r for r in staged.regions if r.role == "constant" and r.source_memory is r.memory]
    (scratch, copy_) = staged.regions
    assert (scratch.id, copy_.id, scratch.role) == (0, 1, "scratch")
    # The application binds every region; the module keeps no C object for any of them.
    assert scratch.symbol is None and copy_.symbol is None and scratch.sidecar_file is None
    assert (copy_.role, copy_.memory, copy_.source_memory) == ("constant", MemoryType.SRAM, MemoryType.MRAM)
    # The staged bytes are their own C array, copied into the bound SRAM region by
    # kws_hydrate_constants, and a sidecar file the application may place itself.
    assert (copy_.source_symbol, copy_.source_offset) == ("kws_arena_const_sram__source", 0)
    assert copy_.source_symbol in (staged.output / "src" / "kws_constants_mram.c").read_text()
    assert copy_.sidecar_file == "kws_arena_const_sram__source.bin"
    constants = [t for t in staged.tensors if t.kind == "constant" and t.id in staged.placements]
    assert constants and all(
        staged.placements[t.id].staged
        and staged.placements[t.id].region == copy_.id
        and staged.placements[t.id].source_memory is MemoryType.MRAM
        for t in constants
    )
    residency = json.loads((staged.output / "kws_residency.json").read_text())
    (row,) = residency["arenas"]["constant"]
    assert (row["region_id"], row["kind"], row["source_memory"]) == (copy_.id, "staged", "mram")
    assert row["storage"]["source"]["symbol"] == copy_.source_symbol
    assert row["storage"]["sidecar"]["filename"] == copy_.sidecar_file
    assert (staged.output / copy_.sidecar_file).stat().st_size == row["storage"]["sidecar"]["size_bytes"]


def test_operators_match_the_plan_and_the_module(result):
    sources = "".join(p.read_text() for p in (result.output / "src").glob("*.c"))
    assert [op.layer_index for op in result.operators] == list(range(len(result.plan.operators)))
    planned_and_reported = zip(result.plan.operators, result.report.operators, strict=True)
    for view, (planned, reported) in zip(result.operators, planned_and_reported, strict=True):
        assert view.type == planned.op_type and list(view.source_indices) == planned.source_indices
        # The report writes 0 MACs where the count is undefined (the heliaAOT 1.1 shape).
        assert (view.macs or 0, view.parameters) == (reported.macs, reported.parameters)
        # The product's roles: when the call runs; the report keys the same entries by kernel family.
        assert dict(view.kernel_calls) == {"run": next(iter(reported.kernel_calls.values()))}
        assert view.symbol == f"kws_{view.type.lower()}_{view.layer_index}"  # the product's symbol
        assert re.search(rf"int32_t {view.symbol}_run\(", sources), view.symbol
        run = (result.output / "src" / f"{view.symbol}.c").read_text().split(f"{view.symbol}_run(", 1)[1]
        assert view.kernel_calls["run"] + "(" in run, view  # called from the run function
    ids = {t.id for t in result.tensors}
    kinds = {t.id: t.kind for t in result.tensors}
    for view in result.operators:
        assert set(view.input_ids) | set(view.output_ids) | set(view.local_tensor_ids) <= ids
        # Each id once, none both an input and the operator's own (the product's rule).
        assert len(set(view.local_tensor_ids)) == len(view.local_tensor_ids)
        assert not set(view.local_tensor_ids) & (set(view.input_ids) | set(view.output_ids))
    # The product lists only the activations as a convolution's inputs: its weights and bias are
    # its own, and the FULLY_CONNECTED's absent bias is no tensor it reads.
    for view in result.operators[:9]:
        assert [kinds[t] for t in view.input_ids] in (["input"], ["scratch"]), view
        assert "constant" in {kinds[t] for t in view.local_tensor_ids}
    fc = result.operators[10]
    assert fc.type == "FULLY_CONNECTED" and [kinds[t] for t in fc.input_ids] == ["scratch"]


def test_macs_and_parameters_follow_the_definitions(result):
    # The weights and bias as the model file holds them (the views list what lowering made of them).
    graph = parse_model(MODEL.read_bytes()).subgraphs[0]
    tensors = {t.id: t for t in result.tensors}
    for op in result.operators:
        if op.type in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            (source,) = op.source_indices
            operands = [int(i) for i in graph.operators[source].inputs]
            weights = graph.tensors[operands[1]]
            output = tensors[op.output_ids[0]]
            rows = int(np.prod(output.shape[:-1]))
            assert op.macs == int(np.prod(weights.shape)) * rows
            bias = graph.tensors[operands[2]] if len(operands) > 2 and operands[2] >= 0 else None
            assert op.parameters == int(np.prod(weights.shape)) + (int(np.prod(bias.shape)) if bias else 0)
        elif op.type == "AVERAGE_POOL_2D":
            assert (op.macs, op.parameters) == (0, 0)
        else:
            assert op.type == "SOFTMAX" and (op.macs, op.parameters) == (None, None)


def test_views_are_values(result):
    for views in (result.operators, result.tensors, result.regions, result.placements):
        assert pickle.loads(pickle.dumps(views)) == views
        assert copy.copy(views) == views and copy.deepcopy(views) == views
        assert hash(pickle.loads(pickle.dumps(views))) == hash(views)
    op = result.operators[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        op.macs = 1
    with pytest.raises(TypeError):
        op.kernel_calls["x"] = "y"
    assert len({*result.tensors, *result.tensors}) == len(result.tensors)
    assert result.operators[10].kernel_calls == {"run": "hk_fully_connected_s8"}


def test_frozen_mapping_behaves_as_a_mapping():
    m = FrozenMapping([("b", 1), ("a", 2)])
    assert list(m) == ["b", "a"] and m["a"] == 2 and len(m) == 2 and m == {"a": 2, "b": 1}
    assert hash(m) == hash(FrozenMapping({"a": 2, "b": 1}))
    with pytest.raises(AttributeError):
        m._index = {}
    with pytest.raises(KeyError):
        m["c"]


# -- source_indices through transforms -------------------------------------------------------------


class _Rewrite:
    """Rewrites the pool (new id, same source), inserts a created RESHAPE after it, drops SOFTMAX."""

    NAME = "TEST_REWRITE"
    OPTIONS = None
    ENABLED_BY_DEFAULT = True

    def apply(self, model: AirModel, context) -> AirModel:
        pool = next(op for op in model.operators if op.op_type == "AVERAGE_POOL_2D")
        pool.id = "pool"
        source = model.tensors[pool.output_ids[0]]
        flat = model.add_tensor(
            AirTensor(
                id="flat",
                name=model.unique_tensor_name("flat"),
                shape=(1, 64),
                dtype=source.dtype,
                quantization=source.quantization,
            )
        )
        fc = next(op for op in model.operators if op.op_type == "FULLY_CONNECTED")
        fc.input_ids[0] = flat.id
        model.operators.insert(
            model.operators.index(fc),
            AirOperator(id="created", op_type="RESHAPE", input_ids=[source.id], output_ids=[flat.id]),
        )
        softmax = model.operators.pop()
        model.outputs = [softmax.input_ids[0]]
        del model.tensors[softmax.output_ids[0]]
        return model


def test_source_indices_survive_transforms(tmp_path):
    def customize(context):
        context.transforms.register(_Rewrite.NAME, _Rewrite)

    rewritten = convert(tmp_path, registry_context=build_default_registry_context(customizers=[customize]))
    indices = [op.source_indices for op in rewritten.operators]
    assert indices == [(i,) for i in range(10)] + [(), (10,)]
    assert [op.type for op in rewritten.operators][9:] == ["AVERAGE_POOL_2D", "RESHAPE", "FULLY_CONNECTED"]
    assert all(11 not in op.source_indices for op in rewritten.operators)
    assert [op.source_indices for op in rewritten.plan.operators] == [list(i) for i in indices]


# -- the count definitions on a hand-made graph ----------------------------------------------------


def _tensor(tid, shape, kind=AirTensorKind.SCRATCH, dtype=AirTensorType.FLOAT32):
    data = np.zeros(shape, dtype=dtype.numpy) if kind is AirTensorKind.CONSTANT else None
    return AirTensor(id=tid, name=f"t_{tid}", shape=shape, dtype=dtype, kind=kind, data=data)


def _graph():
    model = AirModel(inputs=["x"], outputs=["y"])
    constant = AirTensorKind.CONSTANT
    for t in (
        _tensor("x", (1, 8, 8, 3)),
        _tensor("w16", (4, 3, 3, 3), constant, AirTensorType.FLOAT16),
        _tensor("w", (4, 3, 3, 3)),
        _tensor("b", (4,), constant),
        _tensor("y", (1, 8, 8, 4)),
        _tensor("s", (1, 8, 8, 4)),
    ):
        model.add_tensor(t)
    model.operators = [
        AirOperator("0", "DEQUANTIZE", ["w16"], ["w"]),
        AirOperator("1", "CONV_2D", ["x", "w", "b"], ["s"]),
        AirOperator("2", "SOFTMAX", ["s"], ["y"]),
        AirOperator("3", "VENDOR_GAIN", ["s"], ["y"]),
    ]
    return model


def _wrap(model, op, macs=123, parameters=7):
    return SimpleNamespace(op=op, model=model, macs=lambda: macs, parameters=lambda: parameters)


def test_a_dequantized_constant_weight_counts_as_that_constant():
    model = _graph()
    conv = _wrap(model, model.operators[1])
    assert operator_parameters(conv) == 4 * 3 * 3 * 3 + 4
    assert operator_macs(conv) == 123  # the lowering's count for a defined type


def test_builtin_types_without_a_definition_have_no_counts_and_custom_ones_their_own():
    model = _graph()
    softmax = _wrap(model, model.operators[2], macs=0, parameters=0)
    assert (operator_macs(softmax), operator_parameters(softmax)) == (None, None)
    custom = _wrap(model, model.operators[3])
    assert (operator_macs(custom), operator_parameters(custom)) == (123, 7)
    silent = _wrap(model, model.operators[3], macs=None, parameters=None)
    assert (operator_macs(silent), operator_parameters(silent)) == (None, None)
