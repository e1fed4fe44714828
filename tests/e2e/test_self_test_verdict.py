"""The self-test says how exact its PASS was: per output, values compared, how many differ, the
largest difference and one of three verdicts (bit-exact, within tolerance with its bound, mismatch).

Small corpus models with their LiteRT reference golden data, converted and run on the host (each a
second or two). One expected value is moved by a known amount, so each verdict is reached on a
real module: a quantized int8 output one step off is within ``test.tolerance: 1`` and a mismatch at
0; a bool or an index output one off is a mismatch at any tolerance; a float output is judged
against ``tolerance x max|expected|`` (or ``test.tolerance_ulp``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import corpus_golden_to_npz, parse_self_test, run_module_test_case
from helia_aot.testing.verdict import BIT_EXACT, MISMATCH, WITHIN_TOLERANCE

from .corpus import DATA_DIR


def golden(tmp_path: Path, name: str, output: int = 0, change=None) -> Path:
    """The model's reference golden data as test.golden_data, with ``change(expected)`` applied to
    sample 1 of ``output`` (returns the altered array)."""
    path = corpus_golden_to_npz(DATA_DIR / "golden" / f"{name}.npz", tmp_path / "golden.npz")
    if change is not None:
        with np.load(path) as data:
            arrays = {key: data[key].copy() for key in data.files}
        arrays[f"output_{output}"][1] = change(arrays[f"output_{output}"][1])
        np.savez(path, **arrays)
    return path


def self_test(tmp_path: Path, name: str, golden_data: Path, **test):
    config = {
        "model": {"path": str(DATA_DIR / "models" / f"{name}.tflite")},
        "module": {"path": str(tmp_path / "out"), "name": "m", "prefix": "m"},
        "test": {"enabled": True, "golden_data": str(golden_data), **test},
        "verbose": 0,
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix="m", sanitize=False)
    return run, parse_self_test(run.stdout)


def one_step_up(expected: np.ndarray) -> np.ndarray:
    flat = expected.reshape(-1)
    i = int(np.argmin(flat))  # the smallest value: one step up stays in range
    flat[i] = flat[i] + 1
    return expected


@pytest.mark.parametrize(
    ("altered", "tolerance", "verdict"),
    [(False, 1.0, BIT_EXACT), (True, 1.0, WITHIN_TOLERANCE), (True, 0.0, MISMATCH)],
    ids=["bit-exact", "within-tolerance", "mismatch"],
)
def test_each_verdict_on_a_quantized_int8_output(tmp_path, altered, tolerance, verdict):
    data = golden(tmp_path, "relu_int8", change=one_step_up if altered else None)
    run, report = self_test(tmp_path, "relu_int8", data, tolerance=tolerance)
    (out,) = report.outputs
    assert (out.index, out.dtype, out.compared) == (0, "int8", 3 * 256)
    assert (out.differ, out.max_diff) == ((1, 1.0) if altered else (0, 0.0))
    assert out.verdict == verdict and report.verdict == verdict, run.stdout
    assert run.passed == (verdict != MISMATCH) and report.passed == run.passed
    if verdict == WITHIN_TOLERANCE:
        assert (
            "m_test_case: output 0 int8: 768 compared, 1 differ, max diff 1: within tolerance (|diff| <= 1)"
            in (run.stdout)
        )
        assert "m_test_case: PASS (3 sample(s), 1 output(s)): within tolerance" in run.stdout
    if verdict == MISMATCH:
        assert (out.bound, out.beyond) == ("|diff| <= 0", 1)
        assert "sample 1 run 0 output 0: 1 of 256 mismatched (max diff 1)" in run.stdout
        assert "m_test_case: FAIL (3 sample(s), 1 output(s)): mismatch" in run.stdout
    if verdict == BIT_EXACT:
        assert run.stdout.splitlines() == [
            "m_test_case: output 0 int8: 768 compared, 0 differ, max diff 0: bit-exact",
            "m_test_case: PASS (3 sample(s), 1 output(s)): bit-exact",
        ]


def test_a_bool_output_is_compared_exactly_whatever_the_tolerance(tmp_path):
    def flip(expected):
        expected.reshape(-1)[5] = ~expected.reshape(-1)[5]
        return expected

    data = golden(tmp_path, "compare_less_greater_int8_safe_int8", output=1, change=flip)
    run, report = self_test(tmp_path, "compare_less_greater_int8_safe_int8", data, tolerance=1.0)
    first, second = report.outputs
    assert (first.dtype, first.verdict, first.compared) == ("bool", BIT_EXACT, 48)
    assert (second.dtype, second.verdict, second.differ, second.beyond) == ("bool", MISMATCH, 1, 1)
    assert second.bound == "exact: bool output"
    assert not run.passed and report.verdict == MISMATCH


def test_an_index_output_is_compared_exactly_whatever_the_tolerance(tmp_path):
    def next_position(expected):
        flat = expected.reshape(-1)
        flat[0] = (flat[0] + 1) % 10  # ARG_MAX over an axis of 10
        return expected

    data = golden(tmp_path, "arg_max_float32", change=next_position)
    run, report = self_test(tmp_path, "arg_max_float32", data, tolerance=1.0)
    (out,) = report.outputs
    assert (out.dtype, out.verdict, out.bound, out.differ) == ("int32", MISMATCH, "exact: index output", 1)
    assert not run.passed


@pytest.mark.parametrize(
    ("tolerance", "verdict"), [(0.02, WITHIN_TOLERANCE), (0.005, MISMATCH)], ids=["within", "beyond"]
)
def test_a_float_output_is_judged_against_its_range(tmp_path, tolerance, verdict):
    """The bound is tolerance x the largest expected magnitude of the output (every sample), the
    same for every element: the smallest value moved by 1% of the range is within 2% and beyond
    0.5%, though it is many times its own magnitude."""
    with np.load(DATA_DIR / "golden" / "leaky_relu_float32.npz") as data:
        scale = float(np.abs(data["ref_out_0"][:3]).max())

    def nudge(expected):
        flat = expected.reshape(-1)
        i = int(np.argmin(np.abs(flat)))
        flat[i] = flat[i] + np.float32(0.01 * scale)
        return expected

    data = golden(tmp_path, "leaky_relu_float32", change=nudge)
    run, report = self_test(tmp_path, "leaky_relu_float32", data, tolerance=tolerance)
    (out,) = report.outputs
    assert (out.dtype, out.differ, out.verdict) == ("float32", 1, verdict), run.stdout
    assert out.max_diff == pytest.approx(0.01 * scale, rel=1e-3)
    assert out.bound.startswith(
        f"|diff| <= {tolerance * scale:.6g} = {tolerance:g} x max|expected| {scale:.6g}"
    )


def test_a_float_output_within_its_ulp_bound(tmp_path):
    def one_ulp(expected):
        flat = expected.reshape(-1)
        flat[7] = np.nextafter(flat[7], np.float32(np.inf))
        return expected

    data = golden(tmp_path, "leaky_relu_float32", change=one_ulp)
    run, report = self_test(tmp_path, "leaky_relu_float32", data, tolerance=0.0, tolerance_ulp=2)
    (out,) = report.outputs
    assert (out.differ, out.max_ulp, out.verdict, out.bound) == (1, 1, WITHIN_TOLERANCE, "<= 2 ULP"), (
        run.stdout
    )
    assert run.passed
