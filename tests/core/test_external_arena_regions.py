"""With ``memory.allocate_arenas: false`` the application binds the regions the product asks it to.

``tests/data/product/external_arena_regions.json`` records, for the KWS model on the Apollo510 and
each constant placement, what the product (heliaAOT 1.1.0) asks of the application: every
``aot_arena_region_t`` enumerator, scratch and constant alike, must be bound before
``aot_model_init``; a cold constant region takes the bytes of its ``__blob.bin`` sidecar (they are
not in the image); a staged region is a writable buffer that ``aot_model_init`` fills from the
``__source`` array, which stays in the image. Ours must ask for the same regions, by the same
names, with the same sidecars, and its README's region table must say so. Sizes are ours (smaller
plans are allowed). By default both read the constants in place from DTCM (``aot_arena_const_dtcm``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

DATA = Path(__file__).resolve().parents[1] / "data"
PRODUCT = json.loads((DATA / "product" / "external_arena_regions.json").read_text())
CASES = PRODUCT["configurations"]


def convert(out: Path, tensors: list[dict]) -> Path:
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA / "models" / f"{PRODUCT['model']}.tflite")},
            "module": {"path": str(out), "name": "kws", **PRODUCT["module"]},
            "platform": {"name": PRODUCT["platform"]},
            "memory": {"allocate_arenas": False, "tensors": tensors},
        }
    )
    return AotConverter(config).convert().output


def regions(module: Path) -> list[str]:
    """The ``aot_arena_region_t`` enumerators, in order (``aot_num_arena_buffers`` is the count)."""
    header = (module / "includes-api" / "aot_tensors.h").read_text()
    return re.findall(r"^\s*(aot_arena_\w+) = \d+,", header, re.MULTILINE)


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    name = request.param
    return name, CASES[name], convert(tmp_path_factory.mktemp(name), CASES[name]["memory_tensors"])


def test_the_application_binds_the_products_regions(case):
    name, product, module = case
    ours = regions(module)
    sidecars = sorted(p.name for p in module.glob("*.bin"))
    assert ours == product["regions"]
    assert sidecars == product["sidecars"]
    sources = "".join(p.read_text() for p in (module / "src").glob("*.c"))
    # Cold constant bytes are the sidecar's, not the image's; a staged region's source stays in it.
    assert not re.search(r"__blob\[\d+\][^;]*=", sources)
    in_image = sorted(set(re.findall(r"(aot_arena_const_\w+__source)\[\d+\][^;]*=", sources)))
    assert in_image == product["sources_in_image"]
    # Each region's scratch size is within the product's (a plan may only get smaller).
    sizes = (module / "includes-api" / "aot_tensors.h").read_text()
    assert (
        int(re.search(r"#define aot_arena_dtcm_size\s+(\d+)", sizes)[1]) <= product["sizes"]["aot_arena_dtcm"]
    )


def test_the_readme_region_table_says_what_the_application_binds(case):
    _, _, module = case
    readme = (module / "README.md").read_text()
    rows = {
        m[1]: m[2] for m in re.finditer(r"^\| `(aot_arena_\w+)` \|.*\| ([^|]+) \|$", readme, re.MULTILINE)
    }
    assert sorted(rows) == sorted(regions(module))
    for region, buffer in rows.items():
        assert buffer.startswith("bound by the application"), (region, buffer)
        sidecar = module / f"{region}__blob.bin"
        if sidecar.exists():
            assert f"`{sidecar.name}`" in buffer
