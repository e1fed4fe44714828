"""Every promised corpus model converts, builds warning-free under ASan/UBSan, and matches LiteRT.

One test id per model. Integer outputs must match the reference exactly; float outputs within
``FLOAT_TOLERANCE`` relative (absolute below 1). Besides the recorded samples, each module's self
test runs four extreme samples (all minimum, all maximum, alternating, random; see
hostile_inputs.py) in the same build, under the same sanitizers.
"""

from __future__ import annotations

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError, UnsupportedModelError
from helia_aot.testing import corpus_golden_to_npz, run_module_test_case

from .corpus import (
    FLOAT_TOLERANCE,
    expected_outputs,
    golden_path,
    is_integer_model,
    manifest,
    model_path,
    promised,
)
from .hostile_inputs import add_hostile_samples

ENTRIES = manifest()
PROMISED = [e for e in ENTRIES if promised(e)]
OTHERS = [e for e in ENTRIES if not promised(e)]


def convert(entry, tmp_path, **overrides):
    golden = corpus_golden_to_npz(
        golden_path(entry), tmp_path / "golden.npz", outputs=expected_outputs(entry)
    )
    add_hostile_samples(entry, model_path(entry), golden)
    config = {
        "model": {"path": str(model_path(entry))},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {
            "enabled": True,
            "golden_data": str(golden),
            "tolerance": 0.0 if is_integer_model(entry) else FLOAT_TOLERANCE,
        },
    }
    for key, value in overrides.items():
        config.setdefault(key, {}).update(value)
    return AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.mark.parametrize("entry", PROMISED, ids=[e["name"] for e in PROMISED])
def test_promised_model_matches_reference(entry, tmp_path):
    result = convert(entry, tmp_path)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{entry['name']}:\n{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.parametrize("entry", OTHERS, ids=[e["name"] for e in OTHERS])
def test_other_model_fails_with_typed_error_or_matches(entry, tmp_path):
    """Models beyond the promise either convert correctly or fail with a typed error naming why."""
    try:
        result = convert(entry, tmp_path)
    except UnsupportedModelError as error:
        assert error.exit_code == 1
        # It names the operator it cannot lower, or the tensor type no operator could read.
        message = str(error)
        assert any(op in message for op in entry["ops"]) or "is not supported" in message, message
        return
    except HeliaAotError as error:  # pragma: no cover - reported with its message
        pytest.fail(f"unexpected {type(error).__name__}: {error}")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{entry['name']}:\n{run.stdout}\n{run.stderr[-4000:]}"
