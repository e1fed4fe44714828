"""ASSIGN_VARIABLE: a resource variable re-assigned every frame carries its value to the next,
against LiteRT's reference.

The clamp model's gain starts outside the range it is clamped to, so the first ASSIGN_VARIABLE
changes it and every later frame depends on the stored value; FRAMES frames on one context must
equal one reference interpreter run on the same frames (``support/variable_models.py``).
"""

from __future__ import annotations

import numpy as np

from ops_builtin.support.variable_models import clamp_model, stream


def test_a_clamp_that_changes_the_value_keeps_the_variable(tmp_path):
    """gain starts at 1.5 and is clamped to 1.0 after the first run: the state matters, so it stays
    a variable (bias, never assigned, still folds) and every frame matches the reference."""
    initial = np.float32([[1.5, 0.25, -0.5, 0.75]])
    _, report, expected = stream(clamp_model(tmp_path / "m.tflite", initial, 0.0, 1.0), tmp_path)
    assert [v["variable"] for v in report["folded_variables"]] == ["bias"]
    assert [r["used"] for r in report["arenas"] if r["role"] == "persistent"] == [16]
