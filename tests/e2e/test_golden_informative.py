"""Every golden file the suite compares against responds to its inputs.

A golden file whose outputs are identical across its samples cannot tell a correct module from one
that skips a layer or pads wrongly: the MLPerf KWS and VWW models with untrained weights give the
same class scores for every input, and checks resting on them passed with a convolution removed.
So each golden file (the corpus's tests/data/golden/*.npz and the bundled examples/*/*.npz) must
have at least one output that differs between two of its samples. The uninformative corpus files
are exempt only by name (tests/e2e/corpus.py, UNINFORMATIVE_GOLDEN), each with the probe model that
checks its graph instead, and the helpers that build golden checks for other tests refuse them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .corpus import DATA_DIR, UNINFORMATIVE_GOLDEN, manifest, require_informative
from .linked import convert_models
from .test_cross_harness import convert_corpus_model

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = sorted([*(DATA_DIR / "golden").glob("*.npz"), *(ROOT / "examples").glob("*/*.npz")])
OUTPUT_PREFIXES = ("ref_out_", "output_")


def varying_outputs(path: Path) -> list[str]:
    """The outputs of ``path`` that differ between at least two of its samples."""
    with np.load(path) as data:
        outputs = [k for k in data.files if k.startswith(OUTPUT_PREFIXES)]
        assert outputs, f"{path.name} holds no outputs"
        assert all(data[k].shape[0] >= 2 for k in outputs), f"{path.name}: fewer than two samples"
        return [k for k in outputs if any(not np.array_equal(data[k][0], s) for s in data[k][1:])]


def test_the_golden_set_is_found():
    assert len(GOLDEN) == len(manifest()) + 1  # the corpus plus the KWS example
    assert ROOT / "examples" / "kws" / "kws_int8_probe_golden.npz" in GOLDEN


@pytest.mark.parametrize("path", GOLDEN, ids=[p.relative_to(ROOT).as_posix() for p in GOLDEN])
def test_golden_outputs_depend_on_the_inputs(path):
    varying = varying_outputs(path)
    if path.parent == DATA_DIR / "golden" and path.stem in UNINFORMATIVE_GOLDEN:
        # Listed as uninformative: it must really be so (else drop it from the list).
        assert not varying, f"{path.name} responds to its inputs; remove it from UNINFORMATIVE_GOLDEN"
        return
    assert varying, f"{path.name}: every output is the same for all samples"


@pytest.mark.parametrize("name", sorted(UNINFORMATIVE_GOLDEN))
def test_each_uninformative_model_has_a_probe_that_responds(name):
    entries = {e["name"]: e for e in manifest()}
    probe = entries[UNINFORMATIVE_GOLDEN[name]]
    assert probe["ops"] == entries[name]["ops"]
    assert varying_outputs(DATA_DIR / probe["golden"])


@pytest.mark.parametrize("name", sorted(UNINFORMATIVE_GOLDEN))
def test_golden_check_helpers_refuse_uninformative_models(name, tmp_path):
    with pytest.raises(ValueError, match="same for every input"):
        require_informative(name)
    with pytest.raises(ValueError, match=UNINFORMATIVE_GOLDEN[name]):
        convert_models([name], tmp_path, core="host")
    with pytest.raises(ValueError, match=UNINFORMATIVE_GOLDEN[name]):
        convert_corpus_model(name, tmp_path / "single", tolerance=0.0)
