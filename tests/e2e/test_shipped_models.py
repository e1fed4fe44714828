"""Trained models as people ship them convert and match LiteRT's reference kernels.

The models (tests/data/shipped, made by scripts/make_shipped_models.py) are .tflite files copied
unchanged out of packages on the index (three MediaPipe families: the BlazeFace face detector, the
holistic hand re-crop regressor, the face-mesh landmark model), and ai-edge-quantizer's int8,
int16x8, int4 and hybrid variants of each; the manifest records each file's package, version,
licence and sha256 (a shipped file over the 1 MiB tracked-file limit only its hash). Their golden
data are smooth random pictures in the range MediaPipe feeds each model run through the reference
kernels, so the outputs differ from sample to sample. Integer models must match bit for bit; float
ones (float16 weights widened, sparse weights densified, hybrid int8 weights) within FLOAT_ULP
units in the last place, value by value. Each model is its own host build, its generated sources
one translation unit: the kernel objects of one prefix are shared between builds (the suite's
object cache), which costs less than linking the models into one program, where each needs a
prefix and so kernels of its own.
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
RECORDS = json.loads((DATA / "manifest.json").read_text())
ENTRIES = [e for e in RECORDS if e["file"]]
"""The committed models (a shipped file over the size limit, or a variant a recipe refused, has none)."""

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


def test_manifest_says_why_a_model_is_not_committed():
    """A record without a file says why: too big to track (its hash kept) or refused by a recipe."""
    for record in (r for r in RECORDS if not r["file"]):
        assert record["source"].startswith("PyPI ") and record["licence"], record["name"]
        if "not_kept" in record:
            assert record["bytes"] > 1 << 20 and len(record["sha256"]) == 64, record["name"]
        else:
            assert record["refused"], record["name"]


def test_each_family_has_every_variant():
    """Every shipped model that was quantized has its int8, int16x8, int4 and hybrid variants
    (committed, or recorded as refused)."""
    names = {r["name"] for r in RECORDS}
    sources = {r["made_by"].split(" quantized by")[0] for r in RECORDS if " quantized by" in r["made_by"]}
    assert len(sources) >= 3, sources
    for source in sources:
        assert {f"{source}_{v}" for v in ("w8a8", "w8a16", "w4a8", "hybrid")} <= names, source


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
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix, one_unit=True)
    report = f"{entry['name']}:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}"
    wrong = {int(sample) for sample, count in MISMATCH_LINE.findall(run.stdout) if int(count) > 0}
    assert run.passed and not wrong, report
