"""Resource-variable models built with the core's builder, streamed against the LiteRT reference.

Each model has a main subgraph (VAR_HANDLE, READ/ASSIGN_VARIABLE, CALL_ONCE) and an init subgraph
assigning the variables (constants, or arithmetic on constants). :func:`stream` runs FRAMES frames
through the module on one context and each frame must equal one reference interpreter invoked on
the same frames in order.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model
from helia_aot.testing import run_module_test_case

FRAMES = 20
"""Frames each streamed model runs, one after another on one context."""


def var_handle(b: LiteRTModelBuilder, name: str) -> int:
    handle = b.add_tensor(f"{name}_handle", (), "int32")
    options = litert.VarHandleOptionsT()
    options.container, options.sharedName = b"", name.encode()
    b.add_operator("VAR_HANDLE", [], [handle], options)
    return handle


def with_init(main: LiteRTModelBuilder, init: LiteRTModelBuilder, path: Path) -> Path:
    """``main`` with ``init`` as subgraph 1 (which main's CALL_ONCE names); handle tensors
    (named ``*_handle``) become RESOURCE tensors as a converter writes them."""
    model, extra = main.build(), init.build()
    offset = len(model.buffers) - 1
    model.buffers.extend(extra.buffers[1:])
    codes = {}
    for i, code in enumerate(extra.operatorCodes):
        model.operatorCodes.append(code)
        codes[i] = len(model.operatorCodes) - 1
    sub = extra.subgraphs[0]
    sub.name = "init"
    for tensor in sub.tensors:
        if tensor.buffer:
            tensor.buffer += offset
    for op in sub.operators:
        op.opcodeIndex = codes[op.opcodeIndex]
    model.subgraphs.append(sub)
    for subgraph in model.subgraphs:
        for tensor in subgraph.tensors:
            name = tensor.name.decode() if isinstance(tensor.name, bytes) else tensor.name
            if name.endswith("_handle"):
                tensor.type = litert.TensorType.RESOURCE
    path.write_bytes(pack_model(model))
    return path


def call_once(b: LiteRTModelBuilder) -> None:
    options = litert.CallOnceOptionsT()
    options.initSubgraphIndex = 1
    b.add_operator("CALL_ONCE", [], [], options)


def init_subgraph(values: dict[str, np.ndarray], *, via_add: bool = False) -> LiteRTModelBuilder:
    init = LiteRTModelBuilder()
    for name, value in values.items():
        handle = var_handle(init, name)
        if via_add:  # value = (value - 1) + 1, computed at conversion time
            a = init.add_tensor(f"{name}_a", value.shape, "float32", data=value - 1.0)
            one = init.add_tensor(f"{name}_one", value.shape, "float32", data=np.ones_like(value))
            total = init.add_tensor(f"{name}_sum", value.shape, "float32")
            init.add_operator("ADD", [a, one], [total], litert.AddOptionsT())
        else:
            total = init.add_tensor(f"{name}_init", value.shape, "float32", data=value)
        init.add_operator("ASSIGN_VARIABLE", [handle, total], [])
    return init


def clamp_model(path: Path, initial: np.ndarray, low: float, high: float, *, via_add: bool = False) -> Path:
    """y = x * gain + bias; gain is re-clamped to [low, high] every run, bias is never assigned."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    call_once(b)
    gain_h, bias_h = var_handle(b, "gain"), var_handle(b, "bias")
    gain = b.add_tensor("gain_value", (1, 4), "float32")
    bias = b.add_tensor("bias_value", (1, 4), "float32")
    b.add_operator("READ_VARIABLE", [gain_h], [gain])
    b.add_operator("READ_VARIABLE", [bias_h], [bias])
    lo = b.add_tensor("low", (1,), "float32", data=np.float32([low]))
    hi = b.add_tensor("high", (1,), "float32", data=np.float32([high]))
    raised = b.add_tensor("raised", (1, 4), "float32")
    clamped = b.add_tensor("clamped", (1, 4), "float32")
    b.add_operator("MAXIMUM", [gain, lo], [raised])
    b.add_operator("MINIMUM", [raised, hi], [clamped])
    b.add_operator("ASSIGN_VARIABLE", [gain_h, clamped], [])
    scaled = b.add_tensor("scaled", (1, 4), "float32")
    y = b.add_tensor("y", (1, 4), "float32")
    b.add_operator("MUL", [x, gain], [scaled], litert.MulOptionsT())
    b.add_operator("ADD", [scaled, bias], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    init = init_subgraph({"gain": initial, "bias": np.float32([[0.5, -1.0, 2.0, 0.0]])}, via_add=via_add)
    return with_init(b, init, path)


def stream(path: Path, tmp_path: Path, **sections):
    """Convert ``path`` (ConvertArgs ``sections`` added), run FRAMES frames on one context against
    the reference; returns the conversion result, its report and the expected outputs."""
    rng = np.random.default_rng(5)
    frames = [rng.uniform(-1, 1, size=(1, 4)).astype(np.float32) for _ in range(FRAMES)]
    interpreter = create_interpreter(path)
    expected = [interpreter.run([f])[0] for f in frames]
    np.savez(tmp_path / "golden.npz", input_0=np.stack(frames), output_0=np.stack(expected))
    config: dict = {
        "model": {"path": str(path)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(tmp_path / "golden.npz"), "tolerance": 0.0},
    }
    config.update(sections)
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, run.stdout + run.stderr[-3000:]
    report = json.loads(next(Path(result.output).glob("*_report.json")).read_text())
    return result, report, expected
