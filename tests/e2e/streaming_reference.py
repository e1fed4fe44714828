"""Expected outputs for a stateful corpus model: one reference interpreter over all samples.

The module's self-test runs its golden samples in order on one context, so a model with state
(resource variables) sees sample k after samples 0..k-1, as a stream of frames. The corpus
recordings of such a model come from a fresh interpreter per sample, which only the first sample
can match; :func:`stream_golden` replaces the expected outputs with those of one interpreter
invoked on every sample in order (the first must equal the recording, so the substitution is
checked, not blind).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from helia_aot.interpreters import create_interpreter

STATEFUL_OPS = frozenset({"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"})


def is_stateful(entry: dict[str, Any]) -> bool:
    return bool(STATEFUL_OPS & set(entry["ops"]))


def stream_golden(entry: dict[str, Any], model: Path, golden: Path) -> Path:
    """Rewrite ``golden`` (a test.golden_data archive) in place for a stateful model; others are
    left untouched. Returns ``golden``."""
    if not is_stateful(entry):
        return golden
    with np.load(golden) as data:
        arrays = {key: data[key] for key in data.files}
    inputs = [arrays[f"input_{i}"] for i in range(len(entry["inputs"]))]
    interpreter = create_interpreter(model)
    for sample in range(inputs[0].shape[0]):
        outputs = interpreter.run([x[sample] for x in inputs])
        for j, value in enumerate(outputs):
            recorded = arrays[f"output_{j}"][sample]
            value = np.asarray(value).reshape(recorded.shape).astype(recorded.dtype)
            if sample == 0:
                np.testing.assert_array_equal(value, recorded, err_msg=f"{entry['name']} first sample")
            arrays[f"output_{j}"][sample] = value
    np.savez(golden, **arrays)
    return golden
