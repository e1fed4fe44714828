"""Trained models as people ship them convert and match LiteRT's reference kernels.

The models (tests/data/shipped, made by its make_shipped_models.py) are .tflite files copied
unchanged out of packages on the index, and ai-edge-quantizer's int8, int16x8, int4 and hybrid
variants of one of them; the manifest records each file's package, version, licence and sha256.
Their golden data are smooth random pictures in the range the package feeds (RGB in [-1, 1]) run
through the reference kernels, so the detector scores differ from sample to sample. Integer models
must match bit for bit; float ones (float16 weights widened, sparse weights densified, hybrid
int8 weights) within FLOAT_ULP units in the last place, value by value.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import corpus_golden_to_npz, run_module_test_case

DATA = Path(__file__).resolve().parents[1] / "data" / "shipped"
ENTRIES = json.loads((DATA / "manifest.json").read_text())

FLOAT_ULP = 0
"""Float outputs on the host: the bound in ULP (0 while every float model here matches exactly)."""

MISMATCH_LINE = re.compile(r"^sample (\d+) run \d+ output \d+: (\d+) of \d+ mismatched", re.MULTILINE)


def _is_float(entry: dict) -> bool:
    with np.load(DATA / entry["golden"]) as golden:
        return any(golden[k].dtype == np.float32 for k in golden.files if k.startswith("ref_out"))


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_manifest_records_each_file(entry):
    """Source, licence and hash are recorded and the hash is the committed file's."""
    raw = (DATA / entry["file"]).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == entry["sha256"]
    assert len(raw) == entry["bytes"]
    assert entry["source"].startswith("PyPI ") and entry["licence"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_golden_outputs_differ_across_samples(entry):
    with np.load(DATA / entry["golden"]) as golden:
        for key in (k for k in golden.files if k.startswith("ref_out")):
            assert any(not np.array_equal(golden[key][0], s) for s in golden[key][1:]), key


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_shipped_model_matches_reference_on_the_host(entry, tmp_path):
    golden = corpus_golden_to_npz(DATA / entry["golden"], tmp_path / "golden.npz", outputs="ref_out")
    ulp = FLOAT_ULP if _is_float(entry) else None
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(DATA / entry["file"])},
            "module": {"path": str(tmp_path / "out"), "name": "module"},
            "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0, "tolerance_ulp": ulp},
        }
    )
    result = AotConverter(config).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    report = f"{entry['name']}:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}"
    wrong = {int(sample) for sample, count in MISMATCH_LINE.findall(run.stdout) if int(count) > 0}
    assert run.passed and not wrong, report
