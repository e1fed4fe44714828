"""The default placement asks the application for the product's regions, by the product's names.

``tests/data/product/default_placement.json`` records, for the MLPerf models (int8 and float32)
on an Apollo510, an Apollo4 Plus and an Apollo3 Plus, the ``aot_arena_region_t`` enumerators the
product (heliaAOT 1.1.0) gives a module converted with the default configuration: constants read
in place from DTCM when they fit (``aot_arena_const_dtcm``), the ones that do not from SRAM
(``aot_arena_const_sram``), the scratch arena in what DTCM they leave and SRAM beyond. An
application names those regions (it binds each with ``memory.allocate_arenas: false``, sizes
buffers with ``<region>_size``), so ours must have the same ones, in the same order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

DATA = Path(__file__).resolve().parents[1] / "data"
PRODUCT = json.loads((DATA / "product" / "default_placement.json").read_text())
ROLE_TAG = {"scratch": "", "persistent": "persistent_", "constant": "const_"}

# Ours plans ResNet-8 float32 in 196,608 B of scratch against the product's 208,896 B: beside the
# 310,784 B of constants the product's arena no longer fits the Apollo510's DTCM and it adds an
# SRAM region; ours fits, so it has no SRAM region to bind (docs/migrating.md).
# When scratch spills, ours keeps the regions' sum at the tensors' peak and places by modeled cost
# (docs/memory.md, "Across memories"): the float32 VWW's constants read less per byte than its
# activations leave the DTCM to them, so its whole 221,184 B peak lives in DTCM, where the product
# keeps a DTCM region (36,864 B on the Apollo510, 4,608 B on the Apollo4 Plus) and an SRAM one.
SMALLER_PLAN_FITS = {
    "mlperf_ic_resnet8_float32@apollo510_evb": "aot_arena_sram",
    "mlperf_vww_mobilenetv1_025_float32@apollo510_evb": "aot_arena_sram",
    "mlperf_vww_mobilenetv1_025_float32@apollo4p_evb": "aot_arena_sram",
}


def regions(case: dict, tmp_path: Path) -> tuple[list[str], list[dict], object]:
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA / "models" / f"{case['model']}.tflite")},
            "module": {"path": str(tmp_path / "out")},
            "platform": {"name": case["platform"]},
            "dry_run": True,
        }
    )
    result = AotConverter(config).convert()
    arenas = sorted(result.arenas, key=lambda a: a["region"])
    names = [f"aot_arena_{ROLE_TAG[a['role']]}{str(a['memory']).lower()}" for a in arenas]
    return names, arenas, result.report.constant_placement


@pytest.mark.parametrize("name", sorted(PRODUCT["cases"]))
def test_the_default_regions_are_the_products(name, tmp_path):
    case = PRODUCT["cases"][name]
    ours, arenas, placement = regions(case, tmp_path)
    expected = [r for r in case["regions"] if r != SMALLER_PLAN_FITS.get(name)]
    assert ours == expected
    used = {n: a["used"] for n, a in zip(ours, arenas, strict=True)}
    if name in SMALLER_PLAN_FITS:
        product_scratch = sum(v for k, v in case["used"].items() if "const" not in k)
        assert sum(v for k, v in used.items() if "const" not in k) < product_scratch
    # Where the product spills constants to SRAM, so do ours, and its DTCM holds constants too.
    spilled = case["constant_placement"]["constant_bytes_outside_tcm"]
    assert ("aot_arena_const_sram" in used) == ("SRAM" in spilled)
    # The report's constant_placement says so as the product's does.
    assert sorted(placement.constant_bytes_outside_tcm) == sorted(spilled)
    assert placement.cold_source == case["constant_placement"]["cold_source"]
