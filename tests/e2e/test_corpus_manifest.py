"""The copied manifest describes the copied model files: their bytes, sha256 and operators.

Which corpus models must convert (tests/e2e/corpus.py) is decided from the manifest's operator
lists, so a manifest entry that drifted from its model (a model file replaced, an entry copied from
another version) would silently move a model in or out of the promise. Each entry is checked
against the file it names: the sha256 and size of its bytes, and the set of operators found by
parsing every subgraph of it.
"""

from __future__ import annotations

import hashlib

import pytest
from helia_aot.converters.litert.reader import read_model
from helia_aot.converters.litert.schema_access import op_key

from .corpus import DATA_DIR, golden_path, manifest, model_path

ENTRIES = manifest()


def parsed_ops(entry) -> set[str]:
    model = read_model(model_path(entry))
    return {op_key(model, op) for subgraph in model.subgraphs for op in (subgraph.operators or [])}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_entry_matches_its_model_file(entry):
    data = model_path(entry).read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    assert len(data) == entry["bytes"]
    assert parsed_ops(entry) == set(entry["ops"])
    assert golden_path(entry).is_file()


def test_every_model_and_golden_file_has_an_entry():
    """No copied file is left without an entry (it would never be tested)."""
    models = {p.relative_to(DATA_DIR).as_posix() for p in (DATA_DIR / "models").glob("*.tflite")}
    goldens = {p.relative_to(DATA_DIR).as_posix() for p in (DATA_DIR / "golden").glob("*.npz")}
    assert models == {e["file"] for e in ENTRIES}
    assert goldens == {e["golden"] for e in ENTRIES}
    assert len({e["name"] for e in ENTRIES}) == len(ENTRIES)
