"""Expected outputs of a stateful corpus model: one interpreter invoked once per sample, in order.

A model with state (resource variables, or LiteRT ``is_variable`` tensors such as an LSTM's output
and cell state) answers each run from what the runs before it left behind, and the module's self
test runs its samples one after another on one context, keeping that state as the LiteRT interpreter
keeps it across ``invoke`` calls. The corpus recordings (and the hostile samples) each come from a
fresh interpreter, so for these models the expected outputs are recomputed by one interpreter fed
the same inputs in the same order. The first sample starts from the initial state, so it must still
equal the recording: that anchors the recomputation to the trusted file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert.interpreter import Interpreter
from helia_aot.litert import schema_py_generated as litert

from .hostile_inputs import reference_kernels

RESOURCE_VARIABLE_OPS = frozenset({"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"})


def carries_state(model: Path, ops: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether the model keeps state between runs: resource variables among its ``ops`` (the
    manifest's operator list), or a variable tensor in its main subgraph."""
    if RESOURCE_VARIABLE_OPS & set(ops):
        return True
    buffer = model.read_bytes()
    parsed = litert.Model.GetRootAs(buffer, 0)
    subgraph = parsed.Subgraphs(0)
    return any(subgraph.Tensors(i).IsVariable() for i in range(subgraph.TensorsLength()))


def streaming_golden(entry: dict[str, Any], model: Path, golden: Path, *, atol: float = 0.0) -> Path:
    """Rewrite ``golden``'s outputs as one interpreter's over all its samples, in sample order.

    ``golden`` is a test.golden_data archive (``input_i`` / ``output_j``); it is rewritten in
    place and returned. ``atol`` bounds the first sample's difference from the recording (0 for
    integer models).
    """
    with np.load(golden) as data:
        arrays = {key: data[key] for key in data.files}
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=reference_kernels(entry))
    interpreter.allocate_tensors()
    inputs = interpreter.get_input_details()
    outputs = interpreter.get_output_details()
    samples = arrays["input_0"].shape[0]
    for sample in range(samples):
        for i, detail in enumerate(inputs):
            interpreter.set_tensor(detail["index"], arrays[f"input_{i}"][sample].reshape(detail["shape"]))
        interpreter.invoke()
        for j, detail in enumerate(outputs):
            value = np.array(interpreter.get_tensor(detail["index"])).reshape(arrays[f"output_{j}"].shape[1:])
            if sample == 0:
                np.testing.assert_allclose(
                    value.astype(np.float64),
                    arrays[f"output_{j}"][0].astype(np.float64),
                    rtol=0,
                    atol=atol,
                    err_msg=f"{entry['name']}: the first run no longer matches the recording",
                )
            arrays[f"output_{j}"][sample] = value
    np.savez(golden, **arrays)
    return golden
