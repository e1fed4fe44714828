"""WHERE: the coordinates of the true elements of its condition, which must be a constant.

A constant condition's WHERE is checked against the reference on its own (a model without
run-time inputs) and inside the index model of test_index_ops.py; a condition computed at run
time is refused.
"""

from __future__ import annotations

import pytest
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import convert_model

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const


def test_where_of_a_computed_condition_is_refused(tmp_path):
    b = LiteRTModelBuilder()
    c = b.add_tensor("c", (2, 3), "bool")
    w = b.add_tensor("w", (6, 2), "int64")
    b.add_operator("WHERE", [c], [w])
    b.set_inputs([c])
    b.set_outputs([w])
    with pytest.raises(UnsupportedModelError, match="computed at run time") as info:
        convert_model(b.save(tmp_path / "model.tflite"), tmp_path / "out")
    assert "The condition must be a constant" in str(info.value)


def test_where_of_a_constant_condition_matches_the_reference(tmp_path):
    """A model without run-time inputs: its self test compares the outputs of one run."""
    condition = const((2, 3), "bool", [[True, False, True], [False, False, True]])
    case = SingleOp("WHERE", [condition], [T((3, 2), "int64")])
    check_against_reference({"where_const": case}, tmp_path)
