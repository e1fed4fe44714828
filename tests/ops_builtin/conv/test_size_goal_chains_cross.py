"""Goal ``size`` on both cores under QEMU: random chains in place and out of place.

Why: at ``size`` the int8 convolutions run without folded constants or fast-path buffers
(hk_conv_s8_unfolded: Helium's four-filter loop on the M55, the general loop on the M4; the
depthwise loops from the model's bias) and write their outputs over their inputs row by row; at
``balanced`` the same chains run the folded fast paths out of place. Each drawn example puts
three random int8 chains (convolution, depthwise, pooling and elementwise layers with strides,
dilations and paddings) side by side in one model, so one module per goal is converted and
built once per core for all three: the golden test must pass bit for bit.
"""

from __future__ import annotations

from unittest import mock

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import cross_build_module, run_qemu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_family_ops import _Model
from ops_builtin.conv.test_memory_size_goal import _report, add_chain, layer_chains

pytestmark = pytest.mark.cross

INT8_CHAINS = st.lists(layer_chains().map(lambda spec: {**spec, "dtype": "int8"}), min_size=3, max_size=3)


def _convert(specs: list[dict], tmp, goal: str):
    m = _Model("int8", seed=specs[0]["seed"])
    ends = [add_chain(m, spec, *spec["input"], tag=f"c{i}_") for i, spec in enumerate(specs)]
    m.b.set_inputs([x for x, _ in ends])
    m.b.set_outputs([y for _, y in ends])
    model = m.b.save(tmp / "model.tflite")
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp / goal), "name": "module", "prefix": "m"},
        "test": {"enabled": True, "samples": 2, "tolerance": 0.0},
        "optimization": {"goal": goal},
    }
    # Every qualifying layer streams its rows (not only those above the bound), so each chain's
    # row loops run.
    with mock.patch("helia_aot.pipeline.plan_choices.INPLACE_ONLY_ABOVE_BOUND", False):
        return AotConverter(ConvertArgs.model_validate(config)).convert()


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=INT8_CHAINS)
def test_random_chains_match_the_reference_on_both_cores_in_place_and_out_of_place(specs, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chains")
    for goal in ("size", "balanced"):
        result = _convert(specs, tmp, goal)
        techniques = [op["memory_technique"] for op in _report(result)["operators"]]
        # Balanced writes nothing in place; size streams at least one layer of the three chains.
        assert any(techniques) == (goal == "size"), techniques
        for core in ("m55", "m4"):
            elf = cross_build_module(result.output, tmp / f"{goal}_{core}", core, prefix="m")
            run = run_qemu(elf, core, timeout=300, count=False)
            assert run.returncode == 0 and "PASS" in run.stdout, f"{goal} {core} {specs}\n{run.stdout}"
