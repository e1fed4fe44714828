"""Hypothesis-driven mutation of the real corpus models: every case converts or fails typed, quickly.

Cases are drawn by :mod:`hardening.mutator` (structural edits packed back into a file, then byte
edits) from every corpus model up to 100 kB, MLPerf int8 keyword spotting and ResNet included, and
run through a whole conversion. The default run is :data:`CASES` derandomized examples (the same
ones on every run); ``bench/fuzz_models.py --cases 20000`` is the long mode. A failure prints the
model and the mutation list, and :func:`hardening.mutation_apply.minimize` shrinks it for a regression
file under ``tests/data/regressions/``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from helia_aot.converters.litert.reader import parse_model
from helia_aot.registry import build_default_registry_context
from hypothesis import given, note, settings
from hypothesis import strategies as st

from .fuzz_target import TIME_LIMIT_S, new_workdir, run_case
from .mutation_apply import apply_mutations
from .mutator import draw_mutations

CORPUS = Path(__file__).resolve().parents[1] / "data" / "models"
CASES = 500
MAX_MODEL_BYTES = 100_000

MODELS = {
    p.name: p.read_bytes() for p in sorted(CORPUS.glob("*.tflite")) if p.stat().st_size <= MAX_MODEL_BYTES
}


@pytest.fixture
def workdir(monkeypatch):
    """A scratch folder (RAM-backed when possible) that also holds the conversions' work folders."""
    folder = new_workdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_mutated_corpus_models_convert_or_fail_typed(workdir):
    context = build_default_registry_context()
    parsed = {name: parse_model(data) for name, data in MODELS.items()}
    outcomes: Counter[str] = Counter()

    @settings(max_examples=CASES, database=None)
    @given(name=st.sampled_from(sorted(MODELS)), rng=st.randoms(use_true_random=False))
    def case(name, rng):
        mutations = draw_mutations(rng, parsed[name])
        note(f"{name}: {[m.describe() for m in mutations]}")
        outcome = run_case(apply_mutations(MODELS[name], mutations, parsed[name]), workdir, context)
        outcomes[outcome.status] += 1
        assert outcome.status != "untyped", outcome.trace
        assert outcome.seconds <= TIME_LIMIT_S, f"took {outcome.seconds:.1f} s"

    case()
    assert sum(outcomes.values()) >= CASES
    # The mutator must reach both ends: files that still convert and files that are refused.
    assert outcomes["ok"] >= CASES // 20 and outcomes["typed"] >= CASES // 2, dict(outcomes)
