"""Streaming models: state carried from one run to the next, frame by frame, against LiteRT.

A stateful model's module runs T frames through one context; the expected outputs come from one
LiteRT reference interpreter invoked T times on the same frames (its resource variables carry over
between invokes just as the module's persistent arena does). Each test also shows that state
matters: a fresh interpreter per frame gives other outputs, so a module that lost its state would
fail. The self-test compares every frame: its golden samples are the frames, run in order on one
context.

Models: the corpus accumulator (float32: VAR_HANDLE/READ/ASSIGN_VARIABLE/CALL_ONCE around an ADD)
and the microWakeWord "okay nabu" model shipped by pymicro-wakeword 2.5.0 (tests/data/streaming,
Apache-2.0): six resource variables holding the streaming convolutions' windows, an int8 input
frame [1, 3, 40] and a uint8 output. Its frames (``okay_nabu_frames.npz``) were searched for so
that the output goes from 0 to 255 over the stream; with a fresh interpreter it stays 0.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.interpreters import create_interpreter
from helia_aot.testing import CORES, build_module, cross_build_module, run_module_test_case, run_qemu

DATA = Path(__file__).resolve().parents[1] / "data"
NABU = DATA / "streaming" / "okay_nabu.tflite"
NABU_FRAMES = DATA / "streaming" / "okay_nabu_frames.npz"
ACCUMULATOR = DATA / "models" / "resource_variable_accumulator_float32.tflite"
FRAMES = 32
"""T: frames each stream runs (the issue asks for at least 20)."""

PLATFORM_OF_CORE = {"m55": "apollo510_evb", "m4": "apollo4p_evb"}


def stream_reference(model: Path, frames: list[list[np.ndarray]], *, fresh: bool = False) -> list[np.ndarray]:
    """Output 0 of each frame from one reference interpreter (``fresh``: a new one per frame)."""
    interpreter = None
    outputs = []
    for frame in frames:
        if interpreter is None or fresh:
            interpreter = create_interpreter(model)
        outputs.append(interpreter.run(frame)[0])
    return outputs


def accumulator_frames() -> list[list[np.ndarray]]:
    rng = np.random.default_rng(11)
    return [[rng.uniform(-1.0, 1.0, size=(1, 8)).astype(np.float32)] for _ in range(FRAMES)]


def nabu_frames() -> list[list[np.ndarray]]:
    with np.load(NABU_FRAMES) as data:
        return [[frame] for frame in data["input_0"]]


def write_golden(path: Path, frames: list[list[np.ndarray]], outputs: list[np.ndarray]) -> Path:
    arrays = {f"input_{i}": np.stack([f[i] for f in frames]) for i in range(len(frames[0]))}
    arrays["output_0"] = np.stack(outputs)
    np.savez(path, **arrays)
    return path


def convert(model: Path, golden: Path, out: Path, **sections):
    config: dict = {
        "result_views": True,
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
    }
    for key, value in sections.items():
        config.setdefault(key, {}).update(value)
    return AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.mark.parametrize("which", ["accumulator", "okay_nabu"])
def test_stream_matches_one_reference_interpreter_frame_by_frame(which, tmp_path):
    model, frames = (ACCUMULATOR, accumulator_frames()) if which == "accumulator" else (NABU, nabu_frames())
    assert len(frames) >= 20
    expected = stream_reference(model, frames)
    fresh = stream_reference(model, frames, fresh=True)
    # State matters: without it the outputs differ, and the expected outputs are not constant.
    assert any(not np.array_equal(a, b) for a, b in zip(expected, fresh))
    assert len({np.asarray(e).tobytes() for e in expected}) > 2
    golden = write_golden(tmp_path / "golden.npz", frames, expected)
    result = convert(model, golden, tmp_path / "out")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, run.stdout + run.stderr[-3000:]
    assert f"{FRAMES} sample(s)" in run.stdout


def test_vendored_golden_is_the_reference_stream():
    """The stored frames' outputs are what one reference interpreter gives (and they vary)."""
    frames = nabu_frames()
    with np.load(NABU_FRAMES) as data:
        stored = data["output_0"]
    expected = np.stack(stream_reference(NABU, frames))
    np.testing.assert_array_equal(stored, expected)
    assert stored.min() == 0 and stored.max() == 255
    assert not np.array_equal(expected, np.stack(stream_reference(NABU, frames, fresh=True)))


_RESET_MAIN = """#include <stdio.h>
#include <string.h>
#include "aot_model.h"

static const int8_t frames[{count}][{size}] = {{
{frames}
}};

int main(void)
{{
    static aot_model_context_t ctx;
    uint8_t first[{count}];
    int32_t i;
    if (aot_model_reset_state(NULL) != 13) return 10;
    if (aot_model_reset_state(&ctx) != 14) return 11;
    if (aot_model_init(&ctx) != 0) return 12;
    for (int32_t pass = 0; pass < 2; ++pass) {{
        for (i = 0; i < {count}; ++i) {{
            memcpy(ctx.inputs[0].data, frames[i], {size});
            if (aot_model_run(&ctx) != 0) return 13;
            const uint8_t out = *(const uint8_t *)ctx.outputs[0].data;
            printf("%d%c", out, i + 1 == {count} ? '\\n' : ' ');
            if (pass == 0) {{
                first[i] = out;
            }} else if (first[i] != out) {{
                return 14;
            }}
        }}
        if (aot_model_reset_state(&ctx) != 0) return 15;
    }}
    return 0;
}}
"""


def test_reset_state_restarts_the_stream_without_reinit(tmp_path):
    """After ``aot_model_reset_state`` the same frames give the same outputs again: every variable
    is back at its CALL_ONCE value. (NULL -> 13, before init -> 14.)"""
    frames = nabu_frames()
    expected = [int(np.asarray(o).reshape(-1)[0]) for o in stream_reference(NABU, frames)]
    golden = write_golden(tmp_path / "golden.npz", frames, stream_reference(NABU, frames))
    result = convert(NABU, golden, tmp_path / "out")
    rows = ",\n".join("{" + ", ".join(str(int(v)) for v in f[0].reshape(-1)) + "}" for f in frames)
    main = _RESET_MAIN.format(count=len(frames), size=frames[0][0].size, frames=rows)
    exe = build_module(result.output, tmp_path / "build", prefix=result.prefix, main_source=main)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.split("\n")
    assert [int(v) for v in lines[0].split()] == expected
    assert lines[1] == lines[0]


def test_state_lives_in_the_persistent_arena_apart_from_scratch(tmp_path):
    """Each variable is one persistent tensor in the persistent arena, which no scratch tensor
    shares; the residency report and the views list them with that arena."""
    frames = nabu_frames()
    golden = write_golden(tmp_path / "golden.npz", frames, stream_reference(NABU, frames))
    result = convert(NABU, golden, tmp_path / "out", memory={"dump_residency_json": True})
    persistent = [t for t in result.tensors if t.kind == "persistent"]
    assert len(persistent) == 6
    regions = {r.id: r for r in result.regions}
    for tensor in persistent:
        placement = result.placements[tensor.id]
        assert regions[placement.region].role == "persistent"
    # Persistent regions are their own buffers: no scratch region shares their storage.
    symbols = {r.role: set() for r in regions.values()}
    for r in regions.values():
        symbols[r.role].add(r.symbol)
    assert not symbols["persistent"] & symbols["scratch"]
    residency = json.loads(next(Path(result.output).glob("*_residency.json")).read_text())
    state_ids = {t.id for t in persistent}
    rows = [t for t in residency["tensors"] if t["id"] in state_ids]
    assert len(rows) == 6 and {t["role"] for t in rows} == {"persistent"}
    assert sum(r["used"] for r in residency["arenas"]["persistent"]) == 3408


@pytest.mark.cross
@pytest.mark.parametrize("core", sorted(CORES))
def test_wake_word_stream_bit_exact_under_qemu(core, tmp_path):
    """The wake-word module, cross-built for the core, runs the frames one per run on one context
    under QEMU and matches the reference stream bit for bit."""
    frames = nabu_frames()
    golden = write_golden(tmp_path / "golden.npz", frames, stream_reference(NABU, frames))
    result = convert(NABU, golden, tmp_path / "out", platform={"name": PLATFORM_OF_CORE[core]})
    elf = cross_build_module(result.output, tmp_path / "build", core, prefix=result.prefix)
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS" in run.stdout and f"{FRAMES} sample(s)" in run.stdout


def _nabu_stream_golden(path: Path, *, spoil: int | None = None) -> Path:
    """okay_nabu's stored frames and reference outputs, output frame ``spoil`` made wrong."""
    frames = nabu_frames()
    outputs = np.stack(stream_reference(NABU, frames))
    if spoil is not None:
        outputs[spoil] = 255 - outputs[spoil]
    np.savez(path, input_0=np.stack([f[0] for f in frames]), output_0=outputs)
    return path


def test_num_iterations_runs_one_stream_compared_frame_by_frame(tmp_path):
    """test.num_iterations = T with T frames stored: the self-test runs T consecutive runs on one
    context, frame k into run k, and compares the output after every run (host gcc, ASan/UBSan).
    A golden stream wrong in one middle frame only fails at that run, so the comparison is frame
    by frame rather than of the last run."""
    golden = _nabu_stream_golden(tmp_path / "golden.npz")
    result = convert(NABU, golden, tmp_path / "out", test={"num_iterations": FRAMES})
    source = (Path(result.output) / "src" / f"{result.prefix}_test_case.c").read_text()
    assert f"[{result.prefix.upper()}_TEST_SAMPLES][{FRAMES}][120]" in source  # one input frame per run
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, run.stdout + run.stderr[-3000:]
    assert f"PASS (1 sample(s), {FRAMES} run(s) each, 1 output(s))" in run.stdout

    spoiled = _nabu_stream_golden(tmp_path / "spoiled.npz", spoil=10)
    result = convert(NABU, spoiled, tmp_path / "out2", test={"num_iterations": FRAMES})
    run = run_module_test_case(result.output, tmp_path / "build2", prefix=result.prefix)
    assert not run.passed
    mismatches = [line for line in run.stdout.splitlines() if "mismatched" in line]
    assert len(mismatches) == 1 and mismatches[0].startswith("sample 0 run 10 output 0: 1 of 1 mismatched")


def test_reference_golden_streams_fresh_frames_each_run(tmp_path):
    """Without golden data the reference writes the golden stream itself: a fresh input frame per
    run and every run's output, from one interpreter carrying the accumulator's state, so the
    self-test checks all 24 runs of the stream (host gcc, ASan/UBSan)."""
    from helia_aot.golden import reference_golden
    from helia_aot.pipeline.load import load_model
    from helia_aot.registry import build_default_registry_context

    config: dict = {
        "model": {"path": str(ACCUMULATOR)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "num_iterations": 24, "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, run.stdout + run.stderr[-3000:]
    assert "PASS (1 sample(s), 24 run(s) each, 1 output(s))" in run.stdout

    air = load_model(ACCUMULATOR, 0, build_default_registry_context())
    golden = reference_golden(ACCUMULATOR, air, iterations=24)
    (inputs,), (outputs,) = golden.inputs, golden.outputs
    assert inputs.shape == (1, 24, 1, 8) and outputs.shape == (1, 24, 1, 8)
    assert len({frame.tobytes() for frame in inputs[0]}) == 24  # a fresh frame per run
    # Each run's output is the stream's, state included: a fresh interpreter per frame differs.
    frames = [[frame] for frame in inputs[0]]
    np.testing.assert_array_equal(outputs[0], np.stack(stream_reference(ACCUMULATOR, frames)))
    assert not np.array_equal(outputs[0], np.stack(stream_reference(ACCUMULATOR, frames, fresh=True)))
