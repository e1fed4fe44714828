"""``helia-aot validate``'s parts that need no module: metrics, verdicts, datasets, the report.

The metrics are checked against values worked out here by hand with plain Python arithmetic on a
tiny case, not with the numpy calls the implementation makes; the datasets against arrays written
in every accepted layout and the mistakes a user makes (a wrong shape, a missing key, values the
input's type cannot hold), each a ValidationDataError naming the input and the fix (exit code 2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helia_aot.errors import ValidationDataError
from helia_aot.validation.inputs import InputSpec, generated_inputs, load_inputs
from helia_aot.validation.metrics import compare_output, is_classifier
from helia_aot.validation.report import OutputResult, ValidationReport
from helia_aot.validation.run import judge
from rich.console import Console

INT8 = InputSpec(0, "in0", (1, 2, 3), np.dtype(np.int8), scale=0.5, zero_point=-1)


def test_metrics_of_a_tiny_case_match_the_hand_computed_values():
    actual = np.array([[[3, 1, -2]], [[0, 4, 4]]], dtype=np.int8)  # 2 samples, 1 row, 3 classes
    expected = np.array([[[3, 2, -2]], [[0, 4, 6]]], dtype=np.int8)
    zp = -1
    m = compare_output(0, "reference", actual, expected, zero_point=zp, classifier=True)
    a = [3, 1, -2, 0, 4, 4]
    e = [3, 2, -2, 0, 4, 6]
    diffs = [abs(x - y) for x, y in zip(a, e)]
    assert m.compared == 6
    assert m.max_abs_error == 2 and m.mean_abs_error == pytest.approx(sum(diffs) / 6)
    ra, re_ = [x - zp for x in a], [y - zp for y in e]
    l2 = math.sqrt(sum((x - y) ** 2 for x, y in zip(ra, re_))) / math.sqrt(sum(y * y for y in re_))
    cos = sum(x * y for x, y in zip(ra, re_)) / (
        math.sqrt(sum(x * x for x in ra)) * math.sqrt(sum(y * y for y in re_))
    )
    assert m.relative_l2 == pytest.approx(l2) and m.cosine == pytest.approx(cos)
    assert m.exact_match == pytest.approx(4 / 6)
    # Sample 0: both pick class 0; sample 1: the module's first maximum (class 1) is not the
    # reference's maximum (class 2).
    assert m.top1_agreement == pytest.approx(0.5)


def test_top1_does_not_hold_a_tie_in_the_reference_against_the_module():
    expected = np.array([[5, 5, 1]], dtype=np.int8)
    actual = np.array([[4, 5, 1]], dtype=np.int8)  # picks class 1, tied best in the reference
    assert compare_output(0, "reference", actual, expected, classifier=True).top1_agreement == 1.0


def test_zero_vectors_give_defined_or_absent_ratios():
    zeros = np.zeros((1, 4), dtype=np.float32)
    same = compare_output(0, "reference", zeros, zeros)
    assert (same.relative_l2, same.cosine, same.exact_match) == (0.0, 1.0, 1.0)
    other = compare_output(0, "reference", np.ones((1, 4), dtype=np.float32), zeros)
    assert other.relative_l2 is None and other.cosine is None and other.max_abs_error == 1.0


def test_classifiers_are_softmax_outputs_with_more_than_one_class():
    assert is_classifier("SOFTMAX", (1, 12)) and is_classifier("LOG_SOFTMAX", (2, 3))
    assert not is_classifier("SOFTMAX", (1, 1)) and not is_classifier("FULLY_CONNECTED", (1, 12))


@pytest.mark.parametrize(
    ("actual", "dtype", "quantized", "index", "verdict"),
    [
        ([1, 2, 3], np.int8, True, False, "bit-exact"),
        ([1, 2, 4], np.int8, True, False, "within tolerance"),
        ([1, 2, 5], np.int8, True, False, "mismatch"),
        ([1, 2, 4], np.int32, False, False, "mismatch"),  # an unquantized integer: exact
        ([1, 2, 4], np.int8, True, True, "mismatch"),  # an index output: exact
    ],
)
def test_verdicts_follow_the_test_commands_rules(actual, dtype, quantized, index, verdict):
    expected = np.array([1, 2, 3], dtype=dtype)
    got, _ = judge(
        np.array(actual, dtype=dtype),
        expected,
        np.dtype(dtype),
        quantized=quantized,
        index_output=index,
        tolerance=1.0,
    )
    assert got == verdict


def test_float_outputs_are_judged_relative_to_their_largest_value():
    expected = np.array([10.0, -1.0], dtype=np.float32)
    verdict, bound = judge(
        np.array([10.05, -1.0], dtype=np.float32),
        expected,
        np.dtype(np.float32),
        quantized=False,
        index_output=False,
        tolerance=0.01,
    )
    assert verdict == "within tolerance" and "0.1 = 0.01 x max|expected| 10" in bound


def test_generated_inputs_span_the_integer_range_and_the_float_range():
    spec_f = InputSpec(1, "x", (4,), np.dtype(np.float32))
    ints, floats = generated_inputs([INT8, spec_f], 200, seed=3, float_range=(2.0, 3.0))
    assert ints.shape == (200, 1, 2, 3) and ints.dtype == np.int8
    assert ints.min() == -128 and ints.max() == 127
    assert floats.dtype == np.float32 and 2.0 <= floats.min() and floats.max() < 3.0
    again = generated_inputs([INT8, spec_f], 200, seed=3, float_range=(2.0, 3.0))
    assert np.array_equal(again[0], ints)


def test_an_npz_takes_one_sample_stacks_and_quantizes_float_values(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, input_0=np.array([[[0.0, 1.0, -1.0], [63.0, 100.0, -0.4]]], dtype=np.float32))
    (array,) = load_inputs(path, [INT8])
    # q = round(x / 0.5) - 1, clipped to int8
    assert array.tolist() == [[[[-1, 1, -3], [125, 127, -2]]]]
    np.savez(path, in0=np.zeros((5, 2, 3), dtype=np.int8))  # by name, samples without batch axis
    assert load_inputs(path, [INT8])[0].shape == (5, 1, 2, 3)
    assert load_inputs(path, [INT8], samples=2)[0].shape == (2, 1, 2, 3)


def test_a_folder_of_npy_is_one_file_per_sample_or_per_input(tmp_path):
    for i in range(3):
        np.save(tmp_path / f"s{i}.npy", np.full((1, 2, 3), i, dtype=np.int8))
    (array,) = load_inputs(tmp_path, [INT8])
    assert array[:, 0, 0, 0].tolist() == [0, 1, 2]
    np.save(tmp_path / "input_0.npy", np.ones((4, 1, 2, 3), dtype=np.int8))
    assert load_inputs(tmp_path, [INT8])[0].shape == (4, 1, 2, 3)


@pytest.mark.parametrize(
    ("value", "message", "hint"),
    [
        (
            np.zeros((2, 3, 3), dtype=np.int8),
            "input 0 (in0) has shape [2, 3, 3]; the model's input is [1, 2, 3]",
            "stacked",
        ),
        (np.full((1, 2, 3), 300, dtype=np.int16), "reach beyond [-128, 127]", "store the values as int8"),
        (np.array(["a"] * 6).reshape(1, 2, 3), "input 0 (in0) is int8, the values are <U1", "int8"),
    ],
    ids=["shape", "range", "type"],
)
def test_bad_arrays_are_typed_errors_naming_the_input_and_the_fix(tmp_path, value, message, hint):
    path = tmp_path / "bad.npz"
    np.savez(path, input_0=value)
    with pytest.raises(ValidationDataError) as info:
        load_inputs(path, [INT8])
    assert message in info.value.message and hint in info.value.hint
    assert info.value.exit_code == 2


def test_missing_keys_files_and_bad_callables_are_typed_errors(tmp_path):
    np.savez(tmp_path / "k.npz", a=np.zeros(6, dtype=np.int8), b=np.zeros(6, dtype=np.int8))
    with pytest.raises(ValidationDataError, match="has no array for input 0 .in0.; it holds a, b"):
        load_inputs(tmp_path / "k.npz", [INT8])
    with pytest.raises(ValidationDataError, match="do not exist"):
        load_inputs(tmp_path / "missing.npz", [INT8])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValidationDataError, match="holds no .npy files"):
        load_inputs(tmp_path / "empty", [INT8])
    with pytest.raises(ValidationDataError, match="gives 2 value.s. for the model's 1 input"):
        load_inputs(lambda i: [np.zeros((1, 2, 3), np.int8)] * 2, [INT8], samples=1)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValidationDataError, match="cannot be read"):
        load_inputs(tmp_path / "junk.npz", [INT8])


def _report(optimized_exact: float) -> ValidationReport:
    ref = compare_output(0, "reference", np.array([[1, 2]]), np.array([[1, 2]]), classifier=True)
    opt = compare_output(0, "optimized", np.array([[1, 2]]), np.array([[1, 3]]), classifier=True)
    opt = type(opt)(**{**opt.to_json(), "exact_match": optimized_exact})
    out = OutputResult(0, "scores", (1, 2), "int8", "step", True, ref, opt, "bit-exact", "|diff| <= 1", 0.5)
    return ValidationReport(
        "m.tflite", "apollo510_evb", "host", 1, "generated", 0, 1.0, (out,), (("CONV_2D", "why"),)
    )


def test_the_json_document_has_every_field():
    data = _report(0.5).to_json()
    assert set(data) == {
        "model", "platform", "plan_hash", "runtime", "target", "samples", "inputs", "seed", "tolerance",
        "verdict", "passed", "outputs", "known_differences", "reference_bugs", "notes",
    }  # fmt: skip
    (out,) = data["outputs"]
    metrics = {
        "compared",
        "max_abs_error",
        "mean_abs_error",
        "relative_l2",
        "cosine",
        "exact_match",
        "top1_agreement",
    }
    assert set(out["reference"]) == metrics and set(out["optimized"]) == metrics
    assert data["known_differences"] == [{"operator": "CONV_2D", "note": "why"}]
    assert data["notes"][0] == "CONV_2D: why" and data["passed"] is True


def test_the_table_and_notes_wrap_at_80_columns():
    console = Console(width=80, record=True, highlight=False)
    console.print(_report(0.5))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "note: CONV_2D: why" in text and "bit-exact" in text and "opt" in text
    # No difference in the optimized column: no notes.
    assert _report(1.0).notes() == []
