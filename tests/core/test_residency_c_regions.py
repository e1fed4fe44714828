"""The residency file and the result's views number arenas as the module's C API does.

An application binds regions by their ``<prefix>_arena_region_t`` value; a loader reading
``<prefix>_residency.json`` must find the same numbers there. The cases below are the ones where
the plan's own region list and the C enumeration differ: external arenas with staged constants
(the MRAM region holding only staging sources is no C region) and external cold constants.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"
STAGED = {"type": "constant", "attributes": {"memory": "MRAM", "constant_destination_memory": "SRAM"}}


def convert(out: Path, *, allocate: bool, tensors: list[dict]):
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(out), "name": "kws", "prefix": "kws"},
            "platform": {"name": "apollo510_evb"},
            "memory": {"dump_residency_json": True, "allocate_arenas": allocate, "tensors": tensors},
            "result_views": True,
        }
    )
    return AotConverter(config).convert()


def region_enum(header: str) -> dict[str, int]:
    """``<p>_arena_region_t`` enumerators and their values (explicit or counted on)."""
    body = re.search(r"typedef enum \{([^}]*)\} kws_arena_region_t;", header).group(1)
    values: dict[str, int] = {}
    following = 0
    for m in re.finditer(r"(\w+)(?:\s*=\s*(\d+))?", re.sub(r"/\*.*?\*/", "", body, flags=re.S)):
        following = int(m[2]) if m[2] is not None else following
        values[m[1]] = following
        following += 1
    return values


def region_table(source: str, name: str) -> dict[str, int]:
    body = re.search(rf"{name}\[[^\]]*\] = \{{([^}}]*)\}}", source).group(1)
    return {m[1]: int(m[2]) for m in re.finditer(r"\[(\w+)\] = (\d+)u", body)}


CASES = {
    "external_staged": dict(allocate=False, tensors=[STAGED]),
    "external_cold": dict(allocate=False, tensors=[]),
    "internal_staged": dict(allocate=True, tensors=[STAGED]),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def converted(request, tmp_path_factory):
    result = convert(tmp_path_factory.mktemp(request.param), **CASES[request.param])
    residency = json.loads((result.output / "kws_residency.json").read_text())
    return request.param, result, residency


def test_every_region_id_is_the_c_enumerator_value(converted):
    _, result, residency = converted
    enum = region_enum((result.output / "includes-api" / "kws_tensors.h").read_text())
    count = enum.pop("kws_num_arena_buffers")
    arenas = [a for rows in residency["arenas"].values() for a in rows]
    # Every C region is one arena of the file and every arena one C region, under the same number.
    assert {a["storage"]["enum_name"]: a["region_id"] for a in arenas} == enum
    assert len(arenas) == count == len(result.regions)
    assert sorted(a["region_id"] for a in arenas) == list(range(count))
    # The views carry the same numbers, and the C size/alignment tables agree with both.
    source = (result.output / "src" / "kws_tensors.c").read_text()
    sizes, alignments = region_table(source, "kws_arena_sizes"), region_table(source, "kws_arena_alignments")
    by_id = {a["region_id"]: a for a in arenas}
    for view in result.regions:
        arena = by_id[view.id]
        name = arena["storage"]["enum_name"]
        assert (view.role, view.memory.lower(), view.alignment) == (
            next(role for role, rows in residency["arenas"].items() if arena in rows),
            arena["memory"],
            arena["alignment"],
        )
        assert alignments[name] == arena["alignment"] and sizes[name] == arena["reserved_size"]


def test_tensor_region_ids_are_c_regions_and_the_views(converted):
    _, result, residency = converted
    by_id = {a["region_id"]: a for rows in residency["arenas"].values() for a in rows}
    for tensor in residency["tensors"]:
        arena = by_id[tensor["region_id"]]
        assert (tensor["memory"], tensor["source_memory"]) == (
            arena["memory"],
            arena.get("source_memory", arena["memory"]),
        )
        assert result.placements[tensor["id"]].region == tensor["region_id"]
        assert tensor["offset"] + tensor["size"] <= arena["reserved_size"]


def test_the_hashes_are_the_modules(converted):
    _, result, residency = converted
    header = (result.output / "includes-api" / "kws_tensors.h").read_text()
    assert f'#define KWS_PLAN_HASH "{residency["plan_hash"]}"' in header
    assert re.fullmatch(r"[0-9a-f]{16}", residency["tensor_layout_hash"])


def test_storage_names_what_the_application_binds(converted):
    case, result, residency = converted
    (constant,) = residency["arenas"]["constant"]
    storage = constant["storage"]
    if case == "external_cold":
        assert constant["kind"] == "cold" and storage["source"] is None
        assert storage["runtime"] == {
            "data_offset_bytes": 0,
            "memory": constant["memory"],
            "owner": "application",
            "size_bytes": constant["used"],
            "symbol": None,
        }
        assert storage["sidecar"] == {
            "filename": f"kws_arena_const_{constant['memory']}__blob.bin",
            "size_bytes": constant["used"],
        }
        assert (result.output / storage["sidecar"]["filename"]).stat().st_size == constant["total_size"]
        return
    assert (constant["kind"], constant["memory"], constant["source_memory"]) == ("staged", "sram", "mram")
    assert storage["source"] == {
        "data_offset_bytes": 0,
        "memory": "mram",
        "owner": "generated",
        "size_bytes": constant["used"],
        "symbol": "kws_arena_const_sram__source",
    }
    constants = (result.output / "src" / "kws_constants_mram.c").read_text()
    assert re.search(r"\bkws_arena_const_sram__source\[", constants)
    if case == "internal_staged":
        assert storage["runtime"]["symbol"] == "kws_arena_const_sram_buffer" and storage["sidecar"] is None
    else:
        assert storage["runtime"]["owner"] == "application" and storage["runtime"]["symbol"] is None
        assert storage["sidecar"]["filename"] == "kws_arena_const_sram__source.bin"
        assert (result.output / "kws_arena_const_sram__source.bin").stat().st_size == constant["used"]
