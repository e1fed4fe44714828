"""Resource variables built with the core's builder, streamed against the LiteRT reference.

Each model has a main subgraph (VAR_HANDLE, READ/ASSIGN_VARIABLE, CALL_ONCE) and an init subgraph
assigning the variables (constants, or arithmetic on constants). The module runs FRAMES frames on
one context and each frame must equal one reference interpreter invoked on the same frames in
order. FOLD_INVARIANT_VARIABLES folds the variables that never change (never assigned, or only
re-clamped into the range their initial value already lies in) and lists them in the report.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

from ops_builtin.support.variable_models import call_once, clamp_model, stream, var_handle, with_init


@pytest.mark.parametrize("via_add", [False, True])
def test_invariant_variables_fold_into_constants(via_add, tmp_path):
    initial = np.float32([[0.5, 0.25, 1.0, 0.75]])
    result, report, _ = stream(
        clamp_model(tmp_path / "m.tflite", initial, 0.0, 1.0, via_add=via_add), tmp_path
    )
    folded = {v["variable"]: v for v in report["folded_variables"]}
    assert folded["bias"]["assignment"] == "none"
    assert folded["gain"]["assignment"] == "clip"
    assert (folded["gain"]["reads"], folded["gain"]["assigns"]) == (1, 1)
    assert folded["gain"]["nbytes"] == 16
    plan = json.loads(next(Path(result.output).glob("*_plan.json")).read_text())
    # Named by their indices in the file (CALL_ONCE #0 and the VAR_HANDLEs #1, #2 are gone).
    assert [(op["op_type"], op["source_indices"]) for op in plan["operators"]] == [("MUL", [8]), ("ADD", [9])]
    assert not [r for r in report["arenas"] if r["role"] == "persistent"]


def test_an_init_subgraph_beyond_constant_arithmetic_is_refused(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    call_once(b)
    h = var_handle(b, "v")
    v = b.add_tensor("v_value", (1, 4), "float32")
    y = b.add_tensor("y", (1, 4), "float32")
    b.add_operator("READ_VARIABLE", [h], [v])
    b.add_operator("ADD", [x, v], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    init = LiteRTModelBuilder()
    ih = var_handle(init, "v")
    c = init.add_tensor("c", (1, 4), "float32", data=np.ones((1, 4), np.float32))
    t = init.add_tensor("t", (1, 4), "float32")
    init.add_operator("TANH", [c], [t])
    init.add_operator("ASSIGN_VARIABLE", [ih, t], [])
    path = with_init(b, init, tmp_path / "m.tflite")
    config = {"model": {"path": str(path)}, "module": {"path": str(tmp_path / "out")}}
    with pytest.raises(UnsupportedModelError, match="TANH is not evaluated at conversion time"):
        AotConverter(ConvertArgs.model_validate(config)).convert()
