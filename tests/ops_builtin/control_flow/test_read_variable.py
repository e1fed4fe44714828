"""READ_VARIABLE: a resource variable's value read every frame, against LiteRT's reference.

With FOLD_INVARIANT_VARIABLES off every READ_VARIABLE (and the ASSIGN_VARIABLE of the clamp
model) stays in the module, and FRAMES frames on one context must equal one reference interpreter
run on the same frames (``support/variable_models.py``). Folding itself is in
test_resource_variables.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ops_builtin.support.variable_models import clamp_model, stream


def test_folding_can_be_disabled(tmp_path):
    """Without folding every READ/ASSIGN_VARIABLE stays; each operator is named by its index in
    the file (CALL_ONCE is #0, the two VAR_HANDLEs #1 and #2, all removed at Load)."""
    initial = np.float32([[0.5, 0.25, 1.0, 0.75]])
    result, report, _ = stream(
        clamp_model(tmp_path / "m.tflite", initial, 0.0, 1.0),
        tmp_path,
        transforms=[{"name": "FOLD_INVARIANT_VARIABLES", "enabled": False}],
    )
    assert report["folded_variables"] == []
    assert [r for r in report["arenas"] if r["role"] == "persistent"]
    plan = json.loads(next(Path(result.output).glob("*_plan.json")).read_text())
    assert [(op["op_type"], op["source_indices"]) for op in plan["operators"]] == [
        ("READ_VARIABLE", [3]),
        ("READ_VARIABLE", [4]),
        ("MAXIMUM", [5]),
        ("MINIMUM", [6]),
        ("ASSIGN_VARIABLE", [7]),
        ("MUL", [8]),
        ("ADD", [9]),
    ]
