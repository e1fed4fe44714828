"""The golden test case a module with a test carries: ``<prefix>_test_case.c``'s template values.

Only a conversion with ``test.enabled`` builds one (the stimulus, the expected outputs from the
reference interpreter or a golden file, the tolerance), so the converter imports this module when
it does: a conversion without a test never creates these records or loads the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.air import AirModel
from helia_aot.codegen import c_float_list, c_int_list
from helia_aot.errors import InvalidConfigError
from helia_aot.pipeline.state_feedback import check_state_feedback


@dataclass(slots=True)
class _Array:
    symbol: str
    ctype: str
    size: int
    nbytes: int
    role: str
    index: int
    samples: list[list[str]]  # per sample, its frames: one, or one per run
    frames: int


@dataclass(slots=True)
class _OutputCheck:
    index: int
    ctype: str
    size: int
    symbol: str
    is_float: bool
    frames: int  # 1: compared after a sample's last run; the run count: after every run
    half: bool = False
    """A float16 output: the module writes binary16 bits, the expected values are float32 (the
    golden of a float16 model is its float32 twin's), and the check decodes before comparing."""


def _c_values(array: np.ndarray, is_float: bool) -> str:
    flat = array.reshape(-1)
    if is_float:
        return c_float_list(flat.astype(np.float32).tolist())
    if flat.dtype == np.float16:
        return c_int_list(flat.view(np.uint16).tolist())
    return c_int_list(flat.astype(np.int64).tolist())


def test_case_values(model: AirModel, config: Any) -> dict[str, Any]:
    """Template values of ``<prefix>_test_case.c``: stimulus, expected outputs, tolerance."""
    test = config.test
    iterations = int(getattr(test, "num_iterations", 1) or 1)
    feedback = state_feedback_pairs(model, getattr(test, "state_feedback", None) or [])
    # Imported here: the reference interpreter and the float32 twin serve only modules with a test.
    from helia_aot.golden import load_golden, reference_golden

    if test.golden_data:
        golden = load_golden(Path(test.golden_data), model, iterations)
    else:
        golden = reference_golden(
            Path(config.model.path),
            model,
            samples=int(test.samples or 1),
            iterations=iterations,
            feedback=feedback,
        )
    limit = int(test.samples) if test.samples else golden.num_samples
    prefix = config.module.prefix
    arrays, checks = [], []
    # test.skip_verification: the stimulus runs, nothing is compared, no expected output is stored.
    compared = [] if test.skip_verification else [("output", model.outputs, golden.outputs)]
    for role, ids, data in [("input", model.inputs, golden.inputs), *compared]:
        for i, tid in enumerate(ids):
            tensor = model.tensors[tid]
            half = tensor.dtype.value == "float16" and role == "output"
            is_float = tensor.dtype.value == "float32" or half
            symbol = f"{prefix}_test_{role}_{i}"
            frames = int(data[i].shape[1])
            values = [[_c_values(frame, is_float) for frame in sample] for sample in data[i][:limit]]
            ctype = "float" if half else tensor.ctype
            arrays.append(_Array(symbol, ctype, tensor.size, tensor.nbytes, role, i, values, frames))
            if role == "output":
                checks.append(
                    _OutputCheck(i, tensor.ctype, tensor.size, symbol, tensor.dtype.is_float, frames, half)
                )
    tolerance = float(test.tolerance or 0.0)
    if tolerance < 0:
        raise InvalidConfigError("test.tolerance must not be negative")
    ulp = getattr(test, "tolerance_ulp", None)
    return {
        "arrays": arrays,
        "outputs_check": checks,
        "num_samples": min(limit, golden.num_samples),
        "tolerance_c": repr(tolerance),
        "tolerance_ulp": None if ulp is None else int(ulp),
        "num_iterations": iterations,
        "feedback": feedback,
        "fed_inputs": {i for _, i in feedback},
    }


def state_feedback_pairs(model: AirModel, pairs: Any) -> list[tuple[int, int]]:
    """``test.state_feedback`` as ``(output, input)`` index pairs, checked against the model
    (:func:`helia_aot.pipeline.state_feedback.check_state_feedback`; the configuration already
    refused an input fed by two outputs)."""
    checked = [(int(out_index), int(in_index)) for out_index, in_index in pairs]
    check_state_feedback(model, checked)
    return checked


__all__ = ["state_feedback_pairs", "test_case_values"]
