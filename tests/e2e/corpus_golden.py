"""The self-test settings of a corpus model, built once for tests/e2e/test_corpus.py and
bench/corpus_coverage.py so the benchmark's "matching" is the test's verdict: the reference
outputs (relabelled where the corpus recorded another interpreter), the hostile samples, the
streaming golden of a model that carries state, and the per-model float bound."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helia_aot.testing import corpus_golden_to_npz

from .corpus import (
    FLOAT_TOLERANCE,
    HOST_FLOAT_TOLERANCE,
    expected_outputs,
    golden_path,
    is_integer_model,
    model_path,
)
from .hostile_inputs import add_hostile_samples
from .relabelled_reference import reference_golden
from .stateful_reference import carries_state, streaming_golden


def golden_test_settings(entry: dict[str, Any], work: Path) -> dict[str, Any]:
    """The ``test`` configuration section for ``entry``, its golden archive written into ``work``."""
    model = model_path(entry)
    golden = corpus_golden_to_npz(golden_path(entry), work / "golden.npz", outputs=expected_outputs(entry))
    reference_golden(entry, model, golden)
    add_hostile_samples(entry, model, golden)
    if carries_state(model, entry["ops"]):
        streaming_golden(entry, model, golden)
    tolerance = 0.0 if is_integer_model(entry) else HOST_FLOAT_TOLERANCE.get(entry["name"], FLOAT_TOLERANCE)
    return {"enabled": True, "golden_data": str(golden), "tolerance": tolerance}
