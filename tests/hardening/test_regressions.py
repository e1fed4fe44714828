"""Every file the fuzzer ever crashed the compiler with now ends in the typed error recorded for it.

``tests/data/regressions/index.json`` lists each minimized file: the corpus model and mutations it
came from, the raw exception it used to raise, and the typed error and message it raises now.
``bench/fuzz_models.py`` writes new finds (file plus the same record) to its crash folder; move
them here and add the record to the index.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helia_aot.registry import build_default_registry_context

from .fuzz_target import TIME_LIMIT_S, new_workdir, run_case

REGRESSIONS = Path(__file__).resolve().parents[1] / "data" / "regressions"
INDEX = json.loads((REGRESSIONS / "index.json").read_text())


@pytest.fixture(scope="module")
def context():
    return build_default_registry_context()


@pytest.fixture
def workdir():
    folder = new_workdir()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_every_regression_file_is_indexed():
    assert sorted(p.name for p in REGRESSIONS.glob("*.tflite")) == sorted(e["file"] for e in INDEX)


@pytest.mark.parametrize("entry", INDEX, ids=[e["file"] for e in INDEX])
def test_regression_file_ends_in_its_typed_error(entry, context, workdir):
    outcome = run_case((REGRESSIONS / entry["file"]).read_bytes(), workdir, context)
    assert outcome.status == "typed" and outcome.error == entry["error"], outcome.trace or outcome.message
    assert outcome.message.startswith(entry["message"][:60]), outcome.message
    assert outcome.seconds < TIME_LIMIT_S
