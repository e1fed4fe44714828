"""The golden self test's float checks: exact by default, or a bound in units in the last place.

``test.tolerance: 0.0`` must reject a float output one ULP away from the expected value (the host
build matches the reference bit for bit, so anything else is a defect), and ``test.tolerance_ulp``
must accept exactly the outputs within that many float32 steps of the expected value, above and
below it and whatever its magnitude. Each case nudges recorded outputs of a float model by a known
number of ULPs and runs the module's own test on the host.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import corpus_golden_to_npz, run_module_test_case

from .corpus import golden_path, manifest, model_path

ENTRY = next(e for e in manifest() if e["name"] == "add_same_shape_float32")


def nudged(value: np.float32, steps: int) -> np.float32:
    """``value`` moved ``steps`` float32 values up (positive) or down (negative)."""
    towards = np.float32(np.inf if steps > 0 else -np.inf)
    for _ in range(abs(steps)):
        value = np.nextafter(value, towards, dtype=np.float32)
    return value


def run(tmp_path: Path, steps: dict[int, int], test: dict) -> bool:
    """Golden outputs with element ``i`` of sample 1 moved ``steps[i]`` ULPs; whether the test passes."""
    golden = corpus_golden_to_npz(golden_path(ENTRY), tmp_path / "exact.npz")
    with np.load(golden) as data:
        arrays = {k: data[k].copy() for k in data.files}
    flat = arrays["output_0"][1].reshape(-1)
    for index, count in steps.items():
        flat[index] = nudged(flat[index], count)
    arrays["output_0"][1] = flat.reshape(arrays["output_0"][1].shape)
    np.savez(tmp_path / "nudged.npz", **arrays)
    config = {
        "model": {"path": str(model_path(ENTRY))},
        "module": {"path": str(tmp_path / "out"), "name": "m", "prefix": "m"},
        "test": {"enabled": True, "golden_data": str(tmp_path / "nudged.npz"), **test},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    return run_module_test_case(result.output, tmp_path / "build", prefix="m", sanitize=False).passed


# Elements 0 and 2 of sample 1 are negative (about -1.3 and -0.84), element 3 positive (0.91).
@pytest.mark.parametrize(
    ("steps", "test", "passes"),
    [
        ({}, {"tolerance": 0.0}, True),
        ({3: 1}, {"tolerance": 0.0}, False),
        ({0: -1}, {"tolerance": 0.0}, False),
        ({3: 2, 0: -2, 2: 1}, {"tolerance_ulp": 2}, True),
        ({3: 3}, {"tolerance_ulp": 2}, False),
        ({0: -3}, {"tolerance_ulp": 2}, False),
        ({2: 1}, {"tolerance_ulp": 0}, False),
    ],
    ids=["exact", "one-up-exact", "one-down-exact", "within-2", "three-up", "three-down", "one-at-0"],
)
def test_float_bounds(tmp_path, steps, test, passes):
    assert run(tmp_path, steps, test) is passes
