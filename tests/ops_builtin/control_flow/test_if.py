"""IF: the branch chosen at run time from the condition, against LiteRT's reference.

The int8 model of ``support/control_flow_models.py`` takes its then branch (doubling) when the
input's maximum is positive and returns the input from its else branch otherwise; the samples
must take both. The planner's guarantees around regions are in test_control_flow.py.
"""

from __future__ import annotations

from ops_builtin.support import control_flow_models as cfm


def test_if_int8_matches_the_reference(tmp_path):
    cfm.check_against_reference("if_int8", tmp_path)


def test_if_takes_both_branches_over_the_samples(tmp_path):
    """The int8 IF's then branch doubles x, its else branch returns x: both must occur."""
    path = cfm.if_int8(tmp_path / "if.tflite")
    inputs = cfm.sample_inputs(path, seed=len("if_int8"), samples=cfm.SAMPLES)
    taken = {bool(sample.max() > 0) for sample in inputs}
    assert taken == {True, False}
