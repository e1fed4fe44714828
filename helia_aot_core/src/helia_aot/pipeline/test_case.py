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

from helia_aot.air import AirModel, AirOperator, AirTensor
from helia_aot.codegen import c_float_list, c_int_list
from helia_aot.converters.loaders import choose_loader
from helia_aot.errors import InvalidConfigError
from helia_aot.pipeline.state_feedback import check_state_feedback
from helia_aot.registry.build import build_default_registry_context


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
    dtype: str = ""
    """The output's element type as the summary line names it (``int8``, ``float32``, ``bool``)."""
    kind: str = "exact"
    """How a value is judged: ``exact`` (must equal the expected value), ``absolute`` (an integer
    within ``bound`` quantization steps), ``relative`` (a float within ``bound``, which is
    ``test.tolerance`` times the largest expected magnitude of the output) or ``ulp`` (a float32
    within ``test.tolerance_ulp`` units in the last place)."""
    bound: str = "0.0"
    """The bound as a C double literal (``absolute`` and ``relative``) or a ULP count (``ulp``)."""
    bound_text: str = "exact"
    """The bound as the summary line prints it after ``within tolerance`` or ``mismatch``."""


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
            interpreter=front_end_reference(model, config),
        )
    limit = int(test.samples) if test.samples else golden.num_samples
    prefix = config.module.prefix
    arrays: list[_Array] = []
    checks: list[_OutputCheck] = []
    outputs: list[tuple[_OutputCheck, AirTensor, np.ndarray]] = []
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
                check = _OutputCheck(
                    i,
                    tensor.ctype,
                    tensor.size,
                    symbol,
                    tensor.dtype.is_float,
                    frames,
                    half,
                    tensor.dtype.value,
                )
                outputs.append((check, tensor, data[i][:limit]))
    tolerance = float(test.tolerance or 0.0)
    if tolerance < 0:
        raise InvalidConfigError("test.tolerance must not be negative")
    ulp = getattr(test, "tolerance_ulp", None)
    producers = model.producers()
    for check, tensor, expected in outputs:
        index_output = _is_index_output(producers.get(tensor.id), tensor)
        _judge(check, tensor, expected, tolerance, None if ulp is None else int(ulp), index_output)
        checks.append(check)
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


def front_end_reference(model: AirModel, config: Any, *, optimized: bool = False) -> Any:
    """The runtime of the front end that read ``model`` when it is not LiteRT (the ONNX front
    end's onnxruntime), else None: LiteRT's interpreter, as always."""
    source = model.metadata.get("source_format")
    if source in (None, "litert"):
        return None
    context = build_default_registry_context(plugins=config.plugins)
    path = Path(config.model.path)
    loader = choose_loader(path, source, context.model_loaders, context.blocked_plugins)
    return loader.open().reference(path, model, optimized=optimized)


def _is_index_output(producer: AirOperator | None, tensor: AirTensor) -> bool:
    """Whether ``tensor`` is the positions output of an index operator (INDEX_OPERATORS)."""
    position = INDEX_OPERATORS.get(producer.op_type) if producer is not None else None
    return (
        producer is not None
        and position is not None
        and position < len(producer.output_ids)
        and producer.output_ids[position] == tensor.id
    )


def _judge(
    check: _OutputCheck,
    tensor: AirTensor,
    expected: np.ndarray,
    tolerance: float,
    ulp: int | None,
    index_output: bool,
) -> None:
    """Set how ``check`` judges its output's values (see :attr:`_OutputCheck.kind`).

    A bool output, an integer output without quantization (an index, a count, a shape) and the
    output of an index operator are compared exactly whatever the tolerance: one step off there is
    another class, another position, another answer, not a rounding difference. A quantized
    integer output is allowed ``tolerance`` steps. A float output is allowed ``tolerance`` times
    the largest magnitude among its expected values (its range, over every stored sample and
    frame; a float32 output ``tolerance_ulp`` units in the last place instead when that is set):
    one bound for every element, so small values are held as tightly as large ones.
    """
    dtype = tensor.dtype
    if dtype.value == "bool" or index_output or (dtype.is_integer and tensor.quantization is None):
        check.kind = "exact"
        check.bound_text = "exact: bool output" if dtype.value == "bool" else "exact: index output"
    elif dtype.is_integer:
        check.kind, check.bound = "absolute", repr(tolerance)
        check.bound_text = f"|diff| <= {tolerance:g}"
    elif ulp is not None and not check.half:
        check.kind, check.bound = "ulp", str(ulp)
        check.bound_text = f"<= {ulp} ULP"
    else:
        magnitudes = np.abs(np.asarray(expected, dtype=np.float64).reshape(-1))
        finite = magnitudes[np.isfinite(magnitudes)]
        scale = float(finite.max()) if finite.size else 0.0
        bound = tolerance * scale
        check.kind, check.bound = "relative", repr(bound)
        check.bound_text = f"|diff| <= {bound:.6g} = {tolerance:g} x max|expected| {scale:.6g}"


INDEX_OPERATORS = {"ARG_MAX": 0, "ARG_MIN": 0, "TOPK_V2": 1}
"""Operators that write positions, and which of their outputs holds them (TOPK_V2's first output
holds the values, judged by their type)."""


def state_feedback_pairs(model: AirModel, pairs: Any) -> list[tuple[int, int]]:
    """``test.state_feedback`` as ``(output, input)`` index pairs, checked against the model
    (:func:`helia_aot.pipeline.state_feedback.check_state_feedback`; the configuration already
    refused an input fed by two outputs)."""
    checked = [(int(out_index), int(in_index)) for out_index, in_index in pairs]
    check_state_feedback(model, checked)
    return checked


__all__ = ["INDEX_OPERATORS", "front_end_reference", "state_feedback_pairs", "test_case_values"]
