"""``memory.constraints[].arena_alignment`` is applied: the arenas of that memory, their base and
every slot in them, are aligned to it, and the residency file and the C tables say so."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"
FLOOR = {"mram": 256, "dtcm": 128}  # MRAM listed first: the constants fill it first


def convert(out: Path, constraints: list[dict]) -> tuple[Path, dict]:
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(out), "name": "kws", "prefix": "kws"},
            "platform": {"name": "apollo510_evb"},
            "memory": {"dump_residency_json": True, "constraints": constraints},
        }
    )
    module = AotConverter(config).convert().output
    return module, json.loads((module / "kws_residency.json").read_text())


@pytest.fixture(scope="module")
def aligned(tmp_path_factory):
    return convert(
        tmp_path_factory.mktemp("aligned"),
        [{"name": memory, "arena_alignment": floor} for memory, floor in FLOOR.items()],
    )


def test_arenas_and_slots_take_the_memory_floor(aligned):
    _, residency = aligned
    arenas = {a["region_id"]: a for rows in residency["arenas"].values() for a in rows}
    assert {a["memory"] for a in arenas.values()} == set(FLOOR)
    for arena in arenas.values():
        assert arena["alignment"] == FLOOR[arena["memory"]]
        assert arena["reserved_size"] % arena["alignment"] == 0
    for tensor in residency["tensors"]:
        assert tensor["offset"] % FLOOR[tensor["memory"]] == 0, tensor


def test_the_c_tables_and_storage_carry_the_alignment(aligned):
    module, residency = aligned
    header = (module / "includes-api" / "kws_tensors.h").read_text()
    tables = (module / "src" / "kws_tensors.c").read_text()
    constants = "".join(p.read_text() for p in (module / "src").glob("kws_constants_*.c"))
    for rows in residency["arenas"].values():
        for arena in rows:
            name, alignment = arena["storage"]["enum_name"], arena["alignment"]
            assert re.search(rf"#define {name}_alignment {alignment}\b", header)
            assert f"[{name}] = {alignment}u" in tables
            symbol = arena["storage"]["runtime"]["symbol"]
            assert re.search(rf"\b{symbol}\[\d+\] KWS_ALIGNED\({alignment}\)", tables + constants)


def test_without_it_the_platform_floor_holds(tmp_path):
    _, residency = convert(tmp_path, [{"name": "mram"}, {"name": "dtcm"}])
    assert {a["alignment"] for rows in residency["arenas"].values() for a in rows} == {16}


def test_a_floor_on_one_memory_leaves_the_others(tmp_path):
    _, residency = convert(tmp_path, [{"name": "mram"}, {"name": "dtcm", "arena_alignment": 64}])
    by_memory = {a["memory"]: a["alignment"] for rows in residency["arenas"].values() for a in rows}
    assert by_memory == {"dtcm": 64, "mram": 16}
