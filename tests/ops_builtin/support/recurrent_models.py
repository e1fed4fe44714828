"""Builder-made SVDF, UNIDIRECTIONAL_SEQUENCE_RNN and GRU models, and their streamed goldens.

A recurrent model keeps state between runs, so a golden is one reference interpreter invoked once
per sample in order (the module's self test runs its samples in order on one context, from
``<prefix>_model_init``), and every test also checks that the state matters: a fresh interpreter
per sample gives different outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

ACTIVATIONS = {
    name: code
    for name, code in vars(litert.ActivationFunctionType).items()
    if not name.startswith("_") and isinstance(code, int)
}


def svdf_model(
    path: Path,
    *,
    batch: int,
    inputs: int,
    units: int,
    rank: int,
    memory: int,
    dtype: str,
    state_dtype: str = "int16",
    activation: str = "NONE",
    bias: bool = True,
    seed: int = 0,
    scales: tuple[float, float, float, float, float] = (0.03, 0.02, 0.004, 0.0005, 0.02),
    input_zp: int = 5,
    output_zp: int = -7,
) -> Path:
    """One SVDF node: input [batch, inputs] -> output [batch, units], state [batch, memory*filters].

    Quantized models use ``scales`` = (input, weights_feature, state, weights_time, output) with
    symmetric weights and state, as LiteRT's integer SVDF assumes.
    """
    rng = np.random.default_rng(seed)
    filters = units * rank
    b = LiteRTModelBuilder()
    options = litert.SVDFOptionsT()
    options.rank = rank
    options.fusedActivationFunction = ACTIVATIONS[activation]
    if dtype == "float32":
        x = b.add_tensor("input", (batch, inputs), "float32")
        wf = b.add_tensor(
            "weights_feature", (filters, inputs), "float32", data=rng.uniform(-1, 1, (filters, inputs))
        )
        wt = b.add_tensor(
            "weights_time", (filters, memory), "float32", data=rng.uniform(-1, 1, (filters, memory))
        )
        bi = b.add_tensor("bias", (units,), "float32", data=rng.uniform(-1, 1, units)) if bias else -1
        state = b.add_tensor("state", (batch, memory * filters), "float32", variable=True)
        y = b.add_tensor("output", (batch, units), "float32")
    else:
        s_in, s_wf, s_state, s_wt, s_out = scales
        tinfo = np.iinfo(np.dtype(state_dtype))
        x = b.add_tensor("input", (batch, inputs), "int8", quantization=(s_in, input_zp))
        wf = b.add_tensor(
            "weights_feature",
            (filters, inputs),
            "int8",
            data=rng.integers(-127, 128, (filters, inputs)),
            quantization=(s_wf, 0),
        )
        wt = b.add_tensor(
            "weights_time",
            (filters, memory),
            state_dtype,
            data=rng.integers(tinfo.min // 2, tinfo.max // 2, (filters, memory)),
            quantization=(s_wt, 0),
        )
        bi = (
            b.add_tensor(
                "bias",
                (units,),
                "int32",
                data=rng.integers(-3000, 3000, units),
                quantization=(s_state * s_wt, 0),
            )
            if bias
            else -1
        )
        state = b.add_tensor(
            "state", (batch, memory * filters), state_dtype, quantization=(s_state, 0), variable=True
        )
        y = b.add_tensor("output", (batch, units), "int8", quantization=(s_out, output_zp))
    b.add_operator("SVDF", [x, wf, wt, bi, state], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def rnn_model(
    path: Path,
    *,
    batch: int,
    steps: int,
    inputs: int,
    units: int,
    time_major: bool,
    activation: str = "TANH",
    seed: int = 0,
) -> Path:
    """One float32 UNIDIRECTIONAL_SEQUENCE_RNN node with a variable hidden state [batch, units]."""
    rng = np.random.default_rng(seed)
    b = LiteRTModelBuilder()
    seq_in = (steps, batch, inputs) if time_major else (batch, steps, inputs)
    seq_out = (steps, batch, units) if time_major else (batch, steps, units)
    x = b.add_tensor("input", seq_in, "float32")
    w = b.add_tensor(
        "input_weights", (units, inputs), "float32", data=rng.uniform(-0.8, 0.8, (units, inputs))
    )
    r = b.add_tensor(
        "recurrent_weights", (units, units), "float32", data=rng.uniform(-0.6, 0.6, (units, units))
    )
    bias = b.add_tensor("bias", (units,), "float32", data=rng.uniform(-0.5, 0.5, units))
    h = b.add_tensor("hidden_state", (batch, units), "float32", variable=True)
    y = b.add_tensor("output", seq_out, "float32")
    options = litert.SequenceRNNOptionsT()
    options.timeMajor = time_major
    options.fusedActivationFunction = ACTIVATIONS[activation]
    b.add_operator("UNIDIRECTIONAL_SEQUENCE_RNN", [x, w, r, bias, h], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def random_inputs(model: Path, count: int, seed: int) -> list[list[np.ndarray]]:
    """``count`` samples covering each input's whole range (int8) or [-2, 2) (float32)."""
    rng = np.random.default_rng(seed)
    interpreter = Interpreter(model_path=str(model))
    samples = []
    for _ in range(count):
        sample = []
        for detail in interpreter.get_input_details():
            shape, dtype = tuple(detail["shape"]), detail["dtype"]
            if np.issubdtype(dtype, np.integer):
                info = np.iinfo(dtype)
                sample.append(rng.integers(info.min, int(info.max) + 1, shape).astype(dtype))
            else:
                sample.append(rng.uniform(-2, 2, shape).astype(dtype))
        samples.append(sample)
    return samples


def reference_outputs(
    model: Path, samples: list[list[np.ndarray]], *, fresh: bool = False
) -> list[list[np.ndarray]]:
    """The reference interpreter's outputs per sample: one interpreter invoked in order (state
    carried), or with ``fresh`` a new interpreter per sample (state from zero every time)."""

    def make() -> Interpreter:
        interpreter = Interpreter(
            model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
        )
        interpreter.allocate_tensors()
        return interpreter

    interpreter = make()
    results = []
    for sample in samples:
        if fresh:
            interpreter = make()
        for detail, value in zip(interpreter.get_input_details(), sample):
            interpreter.set_tensor(detail["index"], value)
        interpreter.invoke()
        results.append([interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()])
    return results


def streamed_golden(model: Path, samples: list[list[np.ndarray]], target: Path) -> Path:
    """The golden npz of ``samples`` run in order through one reference interpreter."""
    outputs = reference_outputs(model, samples)
    arrays = {f"input_{i}": np.stack([s[i] for s in samples]) for i in range(len(samples[0]))}
    arrays.update({f"output_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
    np.savez(target, **arrays)
    return target


def state_matters(model: Path, samples: list[list[np.ndarray]]) -> bool:
    """Whether carried state changes some output (so a streamed golden really tests the state)."""
    carried, fresh = reference_outputs(model, samples), reference_outputs(model, samples, fresh=True)
    return any(not np.array_equal(a, b) for ca, fa in zip(carried, fresh) for a, b in zip(ca, fa))


def gru_weights(inputs: int, units: int, seed: int) -> dict[str, np.ndarray]:
    """Random GRU weights in the custom operator's layout (gate rows: update, reset, candidate)."""
    rng = np.random.default_rng(seed)
    return {
        "kernel": rng.uniform(-0.7, 0.7, (3 * units, inputs)).astype(np.float32),
        "recurrent": rng.uniform(-0.7, 0.7, (3 * units, units)).astype(np.float32),
        "input_bias": rng.uniform(-0.3, 0.3, 3 * units).astype(np.float32),
        "recurrent_bias": rng.uniform(-0.3, 0.3, 3 * units).astype(np.float32),
    }


def gru_custom_model(
    path: Path,
    *,
    steps: int,
    inputs: int,
    units: int,
    weights: dict[str, np.ndarray],
    state: str,
    sequence: bool,
) -> Path:
    """One ``GRU`` custom node; ``state`` is "variable" (carried), "constant" (zeros) or "none"."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("input", (1, steps, inputs), "float32")
    k = b.add_tensor("kernel", (3 * units, inputs), "float32", data=weights["kernel"])
    r = b.add_tensor("recurrent_kernel", (3 * units, units), "float32", data=weights["recurrent"])
    bi = b.add_tensor("input_bias", (3 * units,), "float32", data=weights["input_bias"])
    br = b.add_tensor("recurrent_bias", (3 * units,), "float32", data=weights["recurrent_bias"])
    ins = [x, k, r, bi, br]
    if state == "variable":
        ins.append(b.add_tensor("state", (1, units), "float32", variable=True))
    elif state == "constant":
        ins.append(b.add_tensor("initial_state", (1, units), "float32", data=np.zeros(units)))
    y = b.add_tensor("output", (1, steps, units) if sequence else (1, units), "float32")
    b.add_custom_operator("GRU", ins, [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def gru_unrolled_model(
    path: Path, *, steps: int, inputs: int, units: int, weights: dict[str, np.ndarray]
) -> Path:
    """The same GRU from zero state as LiteRT builtin operators, one cell per step, output
    [1, steps, units]: what the reference interpreter runs for the custom operator's golden."""
    b = LiteRTModelBuilder()
    f32 = "float32"
    x = b.add_tensor("input", (1, steps, inputs), f32)
    flat = b.add_tensor("flat", (steps, inputs), f32)
    b.add_operator("RESHAPE", [x, b.add_tensor("s0", (2,), "int32", data=[steps, inputs])], [flat])
    rows = [b.add_tensor(f"x{t}", (1, inputs), f32) for t in range(steps)]
    split = litert.SplitOptionsT()
    split.numSplits = steps
    b.add_operator("SPLIT", [b.add_tensor("axis0", (), "int32", data=[0]), flat], rows, split)
    k = b.add_tensor("kernel", (3 * units, inputs), f32, data=weights["kernel"])
    r = b.add_tensor("recurrent", (3 * units, units), f32, data=weights["recurrent"])
    bi = b.add_tensor("input_bias", (3 * units,), f32, data=weights["input_bias"])
    br = b.add_tensor("recurrent_bias", (3 * units,), f32, data=weights["recurrent_bias"])
    one = b.add_tensor("one", (), f32, data=[1.0])
    axis1 = b.add_tensor("axis1", (), "int32", data=[1])
    h = b.add_tensor("h0", (1, units), f32, data=np.zeros(units))
    split3 = litert.SplitOptionsT()
    split3.numSplits = 3
    states = []

    def new(name: str, shape=(1, units)) -> int:
        return b.add_tensor(f"{name}{len(b.tensors)}", shape, f32)

    def op(name: str, ins: list[int], options: Any = None) -> int:
        out = new(name.lower())
        b.add_operator(name, ins, [out], options)
        return out

    for t in range(steps):
        gx, gh = new("gx", (1, 3 * units)), new("gh", (1, 3 * units))
        b.add_operator("FULLY_CONNECTED", [rows[t], k, bi], [gx], litert.FullyConnectedOptionsT())
        b.add_operator("FULLY_CONNECTED", [h, r, br], [gh], litert.FullyConnectedOptionsT())
        xs, hs = [new("xs") for _ in range(3)], [new("hs") for _ in range(3)]
        b.add_operator("SPLIT", [axis1, gx], xs, split3)
        b.add_operator("SPLIT", [axis1, gh], hs, split3)
        z = op("LOGISTIC", [op("ADD", [xs[0], hs[0]], litert.AddOptionsT())])
        rg = op("LOGISTIC", [op("ADD", [xs[1], hs[1]], litert.AddOptionsT())])
        n = op(
            "TANH", [op("ADD", [xs[2], op("MUL", [rg, hs[2]], litert.MulOptionsT())], litert.AddOptionsT())]
        )
        keep = op("MUL", [z, h], litert.MulOptionsT())
        blend = op("MUL", [op("SUB", [one, z], litert.SubOptionsT()), n], litert.MulOptionsT())
        h = op("ADD", [keep, blend], litert.AddOptionsT())
        states.append(h)
    stacked = new("stacked", (steps, units))
    concat = litert.ConcatenationOptionsT()
    concat.axis = 0
    b.add_operator("CONCATENATION", states, [stacked], concat)
    y = b.add_tensor("output", (1, steps, units), f32)
    b.add_operator("RESHAPE", [stacked, b.add_tensor("s1", (3,), "int32", data=[1, steps, units])], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


RUNS = 6
"""Consecutive runs of a streamed model: each starts from the state the earlier ones left."""


def convert_and_run(model: Path, golden: Path, tmp_path: Path, tolerance: float = 0.0) -> None:
    """Convert ``model`` with ``golden`` as its self test, build it under ASan/UBSan and run it."""
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": tolerance},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def check_streamed(model: Path, tmp_path: Path, tolerance: float = 0.0, runs: int = RUNS) -> None:
    """``runs`` random samples through one reference interpreter (the state must change some
    output) as the golden of :func:`convert_and_run`."""
    samples = random_inputs(model, runs, seed=11)
    assert state_matters(model, samples), "the state should change some output"
    convert_and_run(model, streamed_golden(model, samples, tmp_path / "golden.npz"), tmp_path, tolerance)
