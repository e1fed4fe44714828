"""WHILE: loops whose trip count depends on the input, against LiteRT's reference.

The models of ``support/control_flow_models.py``: a float32 loop growing its input, an int8 loop
counting its steps from a constant-initialised counter, and two nested loops with an IF inside
the outer body; each over samples that give several trip counts. The planner's guarantees around
regions are in test_control_flow.py.
"""

from __future__ import annotations

import pytest

from ops_builtin.support import control_flow_models as cfm


@pytest.mark.parametrize("name", ["while_float32", "while_int8", "nested_while_float32"])
def test_while_matches_the_reference(name, tmp_path):
    cfm.check_against_reference(name, tmp_path)
