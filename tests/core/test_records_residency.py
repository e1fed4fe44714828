"""The residency report (schema_version 5): golden structure on a real model, agreement with the
module's own C tables, and what its two hashes do and do not follow.

HELIA_AOT_REGEN_EXPECTED=1 rewrites the expected file after an intended change.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.pipeline.emit import plan_hash
from helia_aot.pipeline.records import residency_record, tensor_layout_hash

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"
EXPECTED = DATA / "expected" / "mlperf_kws_dscnn_int8_residency.json"
HEX16 = re.compile(r"^[0-9a-f]{16}$")


def config(out: Path, **extra) -> ConvertArgs:
    return ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(out), "name": "kws", "prefix": "kws"},
            "platform": {"name": "apollo510_evb"},
            "memory": {"dump_residency_json": True},
            **extra,
        }
    )


@pytest.fixture(scope="module")
def module(tmp_path_factory) -> Path:
    return AotConverter(config(tmp_path_factory.mktemp("residency"))).convert().output


@pytest.fixture(scope="module")
def residency(module) -> dict:
    return json.loads((module / "kws_residency.json").read_text())


def stable(record: dict) -> dict:
    """The layout's shape and size, without what planner work legitimately moves.

    Offsets and the hashes' values change when a planner packs differently; operator-local tensors
    (ids ``op<id>_<name>``) come and go with the lowering, and so do the model's constants a
    lowering repacks into tables of its own. The model's activations, their sizes and homes, the
    schema, and every arena's byte counts (``used``, ``total_size``, the scratch lower bound
    ``peak_live``) are kept: memory growth must be noticed, so a change that makes a module need
    more (or less) RAM or flash regenerates this file and shows the new sizes in the diff.
    """
    return {
        "schema_version": record["schema_version"],
        "keys": sorted(record),
        "arenas": {
            role: [
                {k: a[k] for k in ("region_id", "memory", "alignment", "used", "total_size")}
                | {k: a[k] for k in ("peak_live",) if k in a}
                | {"keys": sorted(a)}
                for a in arenas
            ]
            for role, arenas in record["arenas"].items()
        },
        "tensors": [
            {k: t[k] for k in ("id", "name", "role", "region_id", "memory", "size")}
            for t in record["tensors"]
            if t["id"].isdigit() and t["role"] != "constant"
        ],
    }


def test_residency_matches_golden(residency):
    if os.environ.get("HELIA_AOT_REGEN_EXPECTED") == "1":
        EXPECTED.write_text(json.dumps(residency, indent=2) + "\n")
    assert stable(residency) == stable(json.loads(EXPECTED.read_text()))


def test_schema_fields(residency):
    assert residency["schema_version"] == 5
    assert HEX16.match(residency["plan_hash"]) and HEX16.match(residency["tensor_layout_hash"])
    assert list(residency["arenas"]) == ["scratch", "persistent", "constant"]
    for role, arenas in residency["arenas"].items():
        for arena in arenas:
            required = {"region_id", "memory", "used", "total_size", "alignment", "storage"}
            required |= {"reserved_size", "capacity"}
            if role == "scratch":
                required |= {"peak_live", "fragmentation", "fragmentation_ratio"}
            else:
                required |= {"kind", "source_memory", "tensor_count"}
            assert set(arena) == required  # no staged region here: no source fields
            assert arena["used"] <= arena["reserved_size"] <= arena["total_size"]
            assert arena["reserved_size"] % arena["alignment"] == 0
    scratch = residency["arenas"]["scratch"][0]
    assert scratch["fragmentation"] == scratch["used"] - scratch["peak_live"]
    assert scratch["fragmentation_ratio"] == pytest.approx(1 - scratch["peak_live"] / scratch["used"])
    for tensor in residency["tensors"]:
        assert set(tensor) == {"id", "name", "role", "region_id", "memory", "offset", "size", "source_memory"}


def test_plan_hash_is_the_modules_macro(module, residency):
    header = (module / "includes-api" / "kws_tensors.h").read_text()
    assert f'#define KWS_PLAN_HASH "{residency["plan_hash"]}"' in header


def _region_table(source: str, name: str) -> dict[str, int]:
    """``[<enum>] = <n>u`` entries of one region table of ``kws_tensors.c``, by region enumerator."""
    body = re.search(rf"{name}\[[^\]]*\] = \{{([^}}]*)\}}", source).group(1)
    return {m[1]: int(m[2]) for m in re.finditer(r"\[(\w+)\] = (\d+)u", body)}


def test_arenas_match_the_modules_tables(module, residency):
    source = (module / "src" / "kws_tensors.c").read_text()
    sizes = _region_table(source, "kws_arena_sizes")
    alignments = _region_table(source, "kws_arena_alignments")
    stem = {"scratch": "", "persistent": "persistent_", "constant": "const_"}
    arenas = [(role, a) for role, rows in residency["arenas"].items() for a in rows]
    assert len(arenas) == len(sizes) == len(alignments)
    for role, arena in arenas:
        enum = f"kws_arena_{stem[role]}{arena['memory'].lower()}"
        assert (arena["reserved_size"], arena["alignment"]) == (sizes[enum], alignments[enum])


def test_every_placed_tensor_matches_the_descriptor_table(module, residency):
    source = (module / "src" / "kws_tensors.c").read_text()
    table = {
        ident: (region, int(offset))
        for region, offset, ident in re.findall(
            r"\{kws_tensor_type_\w+, (\w+), (\d+)u, \d+u\}, /\* kws_tensor_(\w+) \*/", source
        )
    }
    listed = {t["id"]: t for t in residency["tensors"]}
    for ident, (region, offset) in table.items():
        if region == "kws_num_arena_buffers":
            assert ident not in listed  # a tensor the module never reads is not placed
        elif ident in listed:
            row = listed[ident]
            assert region.endswith("_" + row["memory"].lower()) and row["offset"] == offset
    assert {i for i in listed if i.isdigit()} <= set(table)


def test_scratch_tensors_fit_their_arena(residency):
    scratch = residency["arenas"]["scratch"][0]
    for tensor in residency["tensors"]:
        if tensor["role"] == "scratch":
            assert tensor["offset"] + tensor["size"] <= scratch["used"]


def test_hashes_are_deterministic(tmp_path, residency):
    again = AotConverter(config(tmp_path)).convert().output
    second = json.loads((again / "kws_residency.json").read_text())
    assert (second["plan_hash"], second["tensor_layout_hash"]) == (
        residency["plan_hash"],
        residency["tensor_layout_hash"],
    )


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    """The pipeline's own objects after Plan, for changing one thing at a time."""
    from helia_aot.pipeline.load import load_model
    from helia_aot.pipeline.plan import plan_memory
    from helia_aot.pipeline.resolve import resolve_operators
    from helia_aot.pipeline.transform import run_transforms
    from helia_aot.platforms import resolve_platform
    from helia_aot.registry import build_default_registry_context

    cfg = config(tmp_path_factory.mktemp("state"))
    context = build_default_registry_context()
    platform = resolve_platform(cfg.platform, context)
    model = run_transforms(load_model(MODEL, cfg.model.subgraph, context), cfg, context)
    operators = resolve_operators(model, platform, cfg, context)
    return model, operators, plan_memory(model, operators, platform, cfg, context)


def test_record_hashes_are_the_functions(state, residency):
    model, operators, plan = state
    record = residency_record(model, operators, plan)
    assert record["plan_hash"] == plan_hash(model, plan, operators) == residency["plan_hash"]
    assert record["tensor_layout_hash"] == tensor_layout_hash(model, plan) == residency["tensor_layout_hash"]


def test_moving_a_tensor_changes_both_hashes(state):
    model, operators, plan = state
    moved = copy.deepcopy(plan)
    tid = next(t for t, p in moved.placements.items() if moved.regions[p.region].role == "scratch")
    moved.placements[tid].offset += 16
    assert tensor_layout_hash(model, moved) != tensor_layout_hash(model, plan)
    assert plan_hash(model, moved, operators) != plan_hash(model, plan, operators)


def test_a_schedule_change_alone_keeps_the_tensor_layout_hash(state):
    model, operators, plan = state
    reordered = list(reversed(operators))
    assert tensor_layout_hash(model, plan) == residency_record(model, reordered, plan)["tensor_layout_hash"]
    assert plan_hash(model, plan, reordered) != plan_hash(model, plan, operators)
