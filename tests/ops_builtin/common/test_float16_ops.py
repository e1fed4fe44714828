"""Float16 operators end to end, checked against the float32 reference of the same graph.

LiteRT's reference interpreter has no float16 kernels, so every model here is built twice with
the builder: once with float16 tensors and weights (what the module runs) and once in float32
(what the reference runs). The weights, bias and inputs are drawn as float16 values, so both
graphs hold exactly the same numbers and the only difference is the arithmetic. The cases and
their builders are in ``support/float16_cases.py``; each single-operator case runs on the host in
its operator's own file (tests/ops_builtin/<family>/test_<operator>.py), the multi-operator
movers and the Cortex-M55 runs of all of them here, with the refusals, the accumulation modes and
the recurrent layers.

The tolerance (docs/float16.md, "Accuracy"), per output element y with reference value r:

    |y - r| <= (n + 2) * u * M + u * |r|,        u = 2^-11 (float16 unit roundoff)

where n is the longest chain of float16 roundings one accumulated term goes through, and
M = |bias| + sum |w * x| the magnitude of the accumulated terms (for MEAN and average pooling,
their mean). The kernels' paths give n:

- portable C (the host, any core without MVE-F) accumulates in float: n = 0 (its float error,
  K * 2^-24 * M for K terms, is far below u * M);
- Helium CONV_2D and FULLY_CONNECTED keep eight float16 partial sums per dot product (vfmaq_f16)
  and add the lanes in float: n = ceil(K / 8) fused multiply-adds per lane (per filter tap for
  CONV_2D, whose taps add in float);
- Helium DEPTHWISE_CONV_2D accumulates the bias and each tap in float16 lanes: n = taps + 1;
- Helium AVERAGE_POOL_2D sums the window in float16 lanes: n = taps;
- MEAN and SUM accumulate in float on every path: n = 0.

A float16 chain of n roundings errs by at most n * u * M (each rounding is relative to a partial
sum no larger than M), the final rounding to float16 adds u * |r|, and 2 * u * M covers the
average's reciprocal and product and the float32 reference's own rounding. M is computed by the
magnitude twin: the float32 graph on |w|, |bias|, |x| without activation, whose outputs are
exactly those sums. Activations, softmax and elementwise operators round once from a float
evaluation (error < 2^-20 relative before rounding), so their bound is 2u |r| (2^-10). Byte
movers are exact.

The module's self-test compares every element with one bound, tol * max|r| (the largest expected
magnitude of the output, over its samples); each test passes the smallest tol whose bound holds
every element's bound above, and asserts it stays small (the test is not vacuous). Models run
on the host (gcc _Float16, ASan/UBSan) and cross-built for the Cortex-M55 under QEMU (Helium
float16). An M4 platform refuses them, naming FP16 platforms.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.litert.float32_twin import float32_twin
from helia_aot.testing import CORES, cross_build_module, run_module_test_case, run_qemu

from ops_builtin.support.float16_cases import (
    ELEMENTWISE_TOL,
    FAMILIES,
    FAST,
    M55_FAMILIES,
    MAX_TOL,
    SAME,
    U16,
    Case,
    Twin,
    build_twin,
    check_on_host,
    convert,
    named,
    options_of,
    prepare,
    run_twin,
    twin_inputs,
)
from ops_builtin.support.lstm_models import LstmSpec, lstm_model

MULTI_OPERATOR = named("movers", "more_movers", "generators")
"""The cases that chain several byte movers in one model; each single-operator case runs in its
operator's own file (tests/ops_builtin/<family>/test_<operator>.py)."""


@pytest.mark.parametrize("case", MULTI_OPERATOR, ids=[c.name for c in MULTI_OPERATOR])
def test_float16_family_matches_float32_reference_on_host(case, tmp_path):
    check_on_host(case, tmp_path)


@pytest.mark.cross
@pytest.mark.parametrize("case", M55_FAMILIES, ids=[c.name for c in M55_FAMILIES])
def test_float16_family_matches_float32_reference_on_m55(case, tmp_path):
    model, golden, tol = prepare(case, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out", optimization=FAST if case.fast else None)
    elf = cross_build_module(result.output, tmp_path / "build", "m55", prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS (2 sample(s)" in run.stdout


def test_helium_f16_kernels_are_compiled_for_the_m55(tmp_path):
    """The M55 build takes the Helium float16 paths (MVE-F), not the portable loops."""
    case = next(c for c in FAMILIES if c.name == "conv_3x3_same")
    model, golden, tol = prepare(case, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out")
    kernels = Path(result.output) / "src" / "kernels"
    assert sorted(p.name for p in kernels.iterdir()) == [
        f"{result.prefix}_hk_{n}"
        for n in ("common.h", "conv_f16.c", "conv_f16.h", "f16.h", "f16_dot.h", "isa.h")
    ]
    dot = (kernels / f"{result.prefix}_hk_f16_dot.h").read_text()
    assert "vfmaq_f16" in dot and "HK_HAVE_MVE_F16" in dot.replace(result.prefix.upper() + "_", "")


@pytest.mark.parametrize("platform", ["apollo4p_evb", "apollo3_evb"])
def test_float16_operators_are_refused_on_a_platform_without_fp16(platform, tmp_path):
    case = FAMILIES[0]
    model, _ = build_twin(case, "float16", tmp_path / "model.tflite")
    with pytest.raises(UnsupportedModelError) as info:
        convert(model, None, 0.0, tmp_path / "out", platform=platform)
    message = str(info.value)
    assert "#0 CONV_2D" in message and "is float16, which needs an FP16-capable platform" in message
    assert f"{platform} (cortex-m4) has no FP16" in message
    assert "apollo510_evb" in message  # a platform that has FP16, from the registry


def test_float16_weights_with_dequantize_still_convert_on_a_platform_without_fp16(tmp_path):
    """Constant float16 weights widened by DEQUANTIZE need no FP16: the M4 converts them."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 8), "float32")
    half = (np.random.default_rng(5).standard_normal((4, 8)) * 0.3).astype(np.float16)
    wq = b.add_tensor("wq", (4, 8), "float16", data=half)
    w = b.add_tensor("w", (4, 8), "float32")
    b.add_operator("DEQUANTIZE", [wq], [w])
    y = b.add_tensor("y", (1, 4), "float32")
    b.add_operator("FULLY_CONNECTED", [x, w], [y], options_of(litert.FullyConnectedOptionsT))
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(tmp_path / "model.tflite")
    result = convert(model, None, 1e-5, tmp_path / "out", platform="apollo4p_evb")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_default_golden_of_a_float16_model_is_its_float32_twin(tmp_path):
    """Without test.golden_data, the self-test's golden comes from the float32 twin (the
    reference has no float16 kernels), with float16 inputs and float32 expected outputs."""
    case = next(c for c in FAMILIES if c.name == "add_broadcast")
    model, _ = build_twin(case, "float16", tmp_path / "model.tflite")
    twin = tmp_path / "twin.tflite"
    twin.write_bytes(float32_twin(model.read_bytes()))
    details = create_interpreter(twin)._interpreter.get_input_details()
    assert [d["dtype"] for d in details] == [np.float32, np.float32]
    result = convert(model, None, ELEMENTWISE_TOL, tmp_path / "out")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_quantize_float32_to_float16_and_back(tmp_path):
    """QUANTIZE float32 -> float16 rounds to nearest; DEQUANTIZE float16 -> float32 is exact, so
    the round trip is within u |x| of the input (the twin runs both as identities)."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (3, 7), "float32")
    h = b.add_tensor("h", (3, 7), "float16")
    y = b.add_tensor("y", (3, 7), "float32")
    b.add_operator("QUANTIZE", [x], [h])
    b.add_operator("DEQUANTIZE", [h], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(tmp_path / "model.tflite")
    result = convert(model, None, U16, tmp_path / "out")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


HOSTILE = [
    "conv_3x3_same",
    "depthwise_3x3_m1",
    "fully_connected_2x40",
    "avg_pool_3x3_s2",
    "max_pool_2x2",
    "mul_relu6",
    "add_broadcast",
    "logistic",
    "tanh",
    "hard_swish",
    "softmax",
    "mean_hw",
    "sum_c",
    "div_relu",
    "arg_max",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_float16_modules_run_clean_on_hostile_inputs(name, tmp_path):
    """Every float16 bit pattern class an application can write (the largest finite values of
    both signs, alternating, infinities, NaN, subnormals) runs without a sanitizer report or a
    kernel failure. Nothing is compared: float16 overflow to infinity and NaN propagation are
    the IEEE results, which the float32 twin does not share."""
    case = next(c for c in FAMILIES if c.name == name)
    model, _ = build_twin(case, "float16", tmp_path / "model.tflite")
    f32, _ = build_twin(case, "float32", tmp_path / "model_f32.tflite")
    shapes = [tuple(d["shape"]) for d in create_interpreter(f32)._interpreter.get_input_details()]
    patterns = [65504.0, -65504.0, np.inf, -np.inf, np.nan, 2.0**-24]

    def sample(shape, value, alternate):
        flat = np.full(int(np.prod(shape)), value, np.float16)
        if alternate:
            flat[1::2] = -flat[1::2]
        return flat.reshape(shape)

    samples = [(v, alt) for v in patterns for alt in (False, True)]
    arrays = {f"input_{i}": np.stack([sample(s, v, a) for v, a in samples]) for i, s in enumerate(shapes)}
    outputs = run_twin(f32, [np.zeros((1, *s), np.float16) for s in shapes])
    arrays |= {
        f"output_{j}": np.zeros((len(samples), *y.shape[1:]), np.float32 if y.dtype.kind == "f" else y.dtype)
        for j, y in enumerate(outputs)
    }
    golden = tmp_path / "hostile.npz"
    np.savez(golden, **arrays)
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "skip_verification": True},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.returncode == 0 and "runtime error" not in run.stderr, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert f"PASS ({len(samples)} sample(s), 0 output(s))" in run.stdout


def _accumulation(result) -> dict[str, tuple[str, bool]]:
    """Per operator type: the plan's resolved ``accumulation`` value and whether it is approximate."""
    return {
        op.op_type: (op.knobs["accumulation"].value, op.knobs["accumulation"].approximate)
        for op in result.plan.operators
        if "accumulation" in op.knobs
    }


def _fast_fields(result) -> list[str]:
    """The ``fast_accumulation`` initializers of the generated operator code, in file order."""
    sources = sorted((Path(result.output) / "src").glob("*.c"))
    return [
        line.strip() for p in sources for line in p.read_text().splitlines() if ".fast_accumulation" in line
    ]


def three_layers(t: Twin) -> None:
    """CONV_2D -> DEPTHWISE_CONV_2D -> FULLY_CONNECTED, the three operators the knob reaches."""
    x = t.act("x", (1, 4, 4, 3), model_input=True)
    c = t.op(
        "CONV_2D",
        [x, t.const("cw", (4, 3, 3, 3)), t.const("cb", (4,))],
        t.act("c", (1, 4, 4, 4)),
        options_of(
            litert.Conv2DOptionsT, padding=SAME, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1
        ),
    )
    d = t.op(
        "DEPTHWISE_CONV_2D",
        [c, t.const("dw", (1, 3, 3, 4)), t.const("db", (4,))],
        t.act("d", (1, 4, 4, 4)),
        options_of(
            litert.DepthwiseConv2DOptionsT,
            padding=SAME,
            strideH=1,
            strideW=1,
            depthMultiplier=1,
            dilationHFactor=1,
            dilationWFactor=1,
        ),
    )
    r = t.op(
        "RESHAPE",
        [d, t.b.add_tensor("s", (2,), "int32", data=np.asarray([1, 64], np.int32))],
        t.act("r", (1, 64)),
    )
    f = t.op("FULLY_CONNECTED", [r, t.const("fw", (5, 64), 0.1), t.const("fb", (5,))], t.act("y", (1, 5)))
    t.outputs.append(f)


ACCUMULATING = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"}


def test_the_plan_records_the_accumulation_the_float16_kernels_run(tmp_path):
    """``precise`` (the default) and ``fast`` reach the kernels' params, and the plan says which:
    the knob record and the generated ``fast_accumulation`` field agree for every operator."""
    model, _ = build_twin(Case("three", three_layers), "float16", tmp_path / "model.tflite")
    default = convert(model, None, MAX_TOL, tmp_path / "default")
    assert _accumulation(default) == {t: ("precise", False) for t in ACCUMULATING}
    assert _fast_fields(default) == [".fast_accumulation = false,"] * 3
    fast = convert(model, None, MAX_TOL, tmp_path / "fast", optimization=FAST)
    assert _accumulation(fast) == {t: ("fast", True) for t in ACCUMULATING}
    assert _fast_fields(fast) == [".fast_accumulation = true,"] * 3
    # One operator by type: only the depthwise convolution accumulates in float16 lanes.
    rules = [{"type": "DEPTHWISE_CONV_2D", "optimization": {"accumulation": "fast"}}]
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "one"), "name": "module"},
        "optimization": {"allow_approximate": True},
        "operators": rules,
    }
    one = AotConverter(ConvertArgs.model_validate(config)).convert()
    assert _accumulation(one) == {
        "CONV_2D": ("precise", False),
        "DEPTHWISE_CONV_2D": ("fast", True),
        "FULLY_CONNECTED": ("precise", False),
    }
    assert _fast_fields(one).count(".fast_accumulation = true,") == 1


def test_fast_accumulation_without_allow_approximate_stays_precise_with_a_hint(tmp_path):
    model, _ = build_twin(Case("three", three_layers), "float16", tmp_path / "model.tflite")
    result = convert(model, None, MAX_TOL, tmp_path / "out", optimization={"accumulation": "fast"})
    assert _accumulation(result) == {t: ("precise", False) for t in ACCUMULATING}
    assert _fast_fields(result) == [".fast_accumulation = false,"] * 3
    hinted = {
        op.op_type for op in result.report.operators for h in op.hints if str(h.kind) == "knob_not_honoured"
    }
    assert hinted == ACCUMULATING


def gru_f16_model(
    path: Path, steps: int, inputs: int, units: int, weights, state: str, sequence: bool
) -> Path:
    """One float16 ``GRU`` custom node (the layout of recurrent_models.gru_custom_model)."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("input", (1, steps, inputs), "float16")
    names = ("kernel", "recurrent", "input_bias", "recurrent_bias")
    ins = [x] + [
        b.add_tensor(n, weights[n].shape, "float16", data=weights[n].astype(np.float16)) for n in names
    ]
    if state == "variable":
        ins.append(b.add_tensor("state", (1, units), "float16", variable=True))
    y = b.add_tensor("output", (1, steps, units) if sequence else (1, units), "float16")
    b.add_custom_operator("GRU", ins, [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def gru_case(tmp_path: Path, sequence: bool, state: str) -> tuple[Path, Path, float]:
    """The float16 GRU, its golden from the float32 unrolled reference (the same float16-valued
    weights and inputs), and the tolerance: the kernel evaluates the cell in float and keeps h in
    float inside a run, so an output differs from the reference by its one rounding to float16
    plus float noise (ELEMENTWISE_TOL, h is in (-1, 1)). A variable state is rounded to float16
    at the end of each run, and the next run's cell carries that error on (z * h keeps it, the
    candidate's tanh and the recurrent kernel scale it by at most sum|R| * 1/4 + 1 per step): the
    tolerance grows by one rounding per earlier run, times 4 for that gain."""
    from ops_builtin.support.recurrent_models import gru_unrolled_model, gru_weights, reference_outputs

    steps, inputs, units, runs = 3, 4, 5, 3
    weights = {
        k: v.astype(np.float16).astype(np.float32) for k, v in gru_weights(inputs, units, seed=7).items()
    }
    model = gru_f16_model(tmp_path / "gru_f16.tflite", steps, inputs, units, weights, state, sequence)
    total = steps * runs if state == "variable" else steps
    unrolled = gru_unrolled_model(
        tmp_path / "unrolled.tflite", steps=total, inputs=inputs, units=units, weights=weights
    )
    rng = np.random.default_rng(11)
    whole = rng.uniform(-2, 2, (1, total, inputs)).astype(np.float16)
    (expected,) = reference_outputs(unrolled, [[whole.astype(np.float32)]])[0]
    frames = np.split(whole, total // steps, axis=1)
    outputs = np.split(expected, total // steps, axis=1)
    if not sequence:
        outputs = [o[:, -1] for o in outputs]
    golden = tmp_path / "golden.npz"
    np.savez(golden, input_0=np.stack(frames), output_0=np.stack(outputs).astype(np.float32))
    tol = ELEMENTWISE_TOL * (1 + 4 * (len(frames) - 1))
    return model, golden, tol


@pytest.mark.parametrize(("sequence", "state"), [(True, "none"), (False, "none"), (True, "variable")])
def test_float16_gru_matches_the_float32_unrolled_reference_on_host(tmp_path, sequence, state):
    model, golden, tol = gru_case(tmp_path, sequence, state)
    result = convert(model, golden, tol, tmp_path / "out")
    assert [op.kernel.entry for op in result.plan.operators] == ["hk_gru_f16"]
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.cross
def test_float16_gru_matches_the_float32_unrolled_reference_on_m55(tmp_path):
    model, golden, tol = gru_case(tmp_path, True, "variable")
    result = convert(model, golden, tol, tmp_path / "out")
    elf = cross_build_module(result.output, tmp_path / "build", "m55", prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0 and "PASS (3 sample(s)" in run.stdout, run.stdout


LSTM_F16 = [
    LstmSpec(dtype="float16", batch=2, time=4, n_input=5, n_cell=6),
    LstmSpec(
        dtype="float16", batch=1, time=3, n_input=4, n_cell=5, cifg=True, time_major=True, cell_clip=1.5
    ),
]


def lstm_case(spec: LstmSpec, work: Path) -> tuple[Path, Path, float]:
    """The float16 LSTM, its golden from the float32 twin (two runs through one interpreter, so the
    carried states matter) and the tolerance. The kernel evaluates the cell in float and keeps h
    and c in float inside a run: an output differs from the reference by its one rounding (u |r|)
    plus float noise; the states are rounded to float16 between runs, and the second run's cell
    carries those roundings on. h is in (-1, 1) and the weights are scaled by 0.9 / sqrt(fan-in),
    so a state error passes through each step with a gain below 2: tol = 2u (one rounding) + 8u
    (the carried roundings of h and c, over the second run's steps)."""
    work.mkdir(parents=True, exist_ok=True)
    f16 = lstm_model(spec, work / "lstm_f16.tflite")
    twin = work / "lstm_f32.tflite"
    twin.write_bytes(float32_twin(f16.read_bytes()))
    inputs = twin_inputs(twin, seed=zlib.crc32(spec.label.encode()))
    reference = run_twin(twin, inputs)
    golden = work / "golden.npz"
    np.savez(golden, input_0=inputs[0], output_0=reference[0].astype(np.float32))
    return f16, golden, 10 * U16


@pytest.mark.parametrize("spec", LSTM_F16, ids=[s.label for s in LSTM_F16])
def test_float16_lstm_matches_the_float32_twin_on_host(spec, tmp_path):
    model, golden, tol = lstm_case(spec, tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out")
    assert [op.kernel.entry for op in result.plan.operators] == ["hk_lstm_f16"]
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.cross
def test_float16_lstm_matches_the_float32_twin_on_m55(tmp_path):
    model, golden, tol = lstm_case(LSTM_F16[0], tmp_path / "w")
    result = convert(model, golden, tol, tmp_path / "out")
    elf = cross_build_module(result.output, tmp_path / "build", "m55", prefix=result.prefix)
    run = run_qemu(elf, CORES["m55"], timeout=300, count=False)
    assert run.returncode == 0 and "PASS (2 sample(s)" in run.stdout, run.stdout


def test_float16_lstm_refuses_what_the_keras_subset_lacks(tmp_path):
    model = lstm_model(LstmSpec(dtype="float16", peephole=True, n_output=4), tmp_path / "m.tflite")
    with pytest.raises(UnsupportedModelError) as info:
        convert(model, None, MAX_TOL, tmp_path / "out")
    message = str(info.value)
    assert "a float16 LSTM has no peephole weights" in message
    assert "a float16 LSTM has no projection" in message
