"""``validate``: convert a model, run the module and LiteRT on one dataset, compare every output.

The module is converted into a temporary folder (kept with ``keep_work_dir``), built with
``helia-aot test``'s compilers for the host or a Cortex-M55 / M4 under QEMU
(:mod:`helia_aot.validation.module_run`), and run on every sample in order; LiteRT runs the same
samples twice, with its reference kernels (what helia-aot is bit-exact with) and with the default
optimized ones (what ``Interpreter()`` gives). The metrics are
:mod:`helia_aot.validation.metrics`; the verdict and the notes :mod:`helia_aot.validation.report`.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from helia_aot.air import AirModel
from helia_aot.config import ConvertArgs
from helia_aot.config.loading import apply_overrides, invalid_config
from helia_aot.converters.litert.format import LITERT_LOADER
from helia_aot.converters.loaders import loader_for
from helia_aot.errors import InvalidConfigError, ReferenceExecutionError, ValidationDataError
from helia_aot.golden import from_source_layout, source_layout
from helia_aot.pipeline.test_case import INDEX_OPERATORS
from helia_aot.registry.build import build_default_registry_context
from helia_aot.validation.inputs import InputSource, InputSpec, generated_inputs, load_inputs
from helia_aot.validation.known_differences import known_differences, reference_bugs
from helia_aot.validation.metrics import compare_output, is_classifier
from helia_aot.validation.module_run import run_module
from helia_aot.validation.report import (
    BIT_EXACT,
    MISMATCH,
    OPTIMIZED,
    REFERENCE,
    WITHIN,
    OutputResult,
    ValidationReport,
)

TARGETS = ("host", "m55", "m4")
DEFAULT_SAMPLES = 10

Progress = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)`` while a stage advances (``convert``, ``reference``,
``optimized``, ``module``); the command line draws it as rich progress bars."""


def validate(
    config: ConvertArgs | Mapping[str, Any] | str | Path,
    *,
    inputs: InputSource = None,
    samples: int | None = None,
    target: str = "host",
    seed: int = 0,
    input_range: tuple[float, float] = (-1.0, 1.0),
    progress: Progress | None = None,
    converted: Callable[[Any], None] | None = None,
) -> ValidationReport:
    """Run the module converted from ``config`` and LiteRT on one dataset and compare the outputs.

    ``config`` is a ConvertArgs, its mapping, a YAML file or a ``.tflite`` model (converted with
    the defaults); its ``module.path`` is replaced by a temporary folder. ``inputs`` is an ``.npz``
    (``input_<i>`` or the input's name), a folder of ``.npy`` files, or a callable that returns
    sample ``i`` (an array, or a list / dict of one array per input); without it ``samples``
    (default 10) random samples are generated over each input's range (``input_range`` for float
    inputs) from ``seed``. ``samples`` also caps a file's samples and is the number of calls to a
    callable. ``target`` is ``host`` (gcc), ``m55`` or ``m4`` (arm-none-eabi-gcc and QEMU).
    ``converted`` is called with the ConversionResult before anything runs.

    Returns a :class:`ValidationReport`; ``report.passed()`` says whether every output is within
    ``test.tolerance`` of the reference kernels (``passed(exact=True)``: bit-exact). Bad inputs
    raise ValidationDataError naming the input and the fix, a bad setting InvalidConfigError, a
    missing compiler or QEMU ToolMissingError (exit code 2 on the command line).
    """
    target = str(target).lower()
    if target not in TARGETS:
        raise InvalidConfigError(
            f"target {target!r} is not one of {', '.join(TARGETS)}",
            hint="choose host (this machine), m55 (Apollo5/510 under QEMU) or m4 (Apollo3/4 under QEMU)",
        )
    if isinstance(inputs, (str, Path)) and not Path(inputs).exists():
        raise ValidationDataError(
            f"the inputs {inputs} do not exist",
            hint="give an .npz file or a folder of .npy files, or leave inputs out to generate samples",
        )
    if samples is not None and samples < 1:
        raise ValidationDataError(
            f"validate needs at least one sample, not {samples}", hint="give samples >= 1"
        )
    base = _config(config)
    if not base.memory.allocate_arenas:
        raise InvalidConfigError(
            "validate runs the module with its own arenas; memory.allocate_arenas is off",
            hint="validate without --no-memory.allocate-arenas "
            "(the outputs do not depend on who owns the arenas)",
        )
    from helia_aot.testing.run_targets import check_tools, refuse_foreign_core

    check_tools(target, "validate")
    work = Path(tempfile.mkdtemp(prefix="helia-aot-validate-"))
    try:
        run_config = _work_config(base, work)
        from helia_aot.converter import AotConverter

        if progress is not None:
            progress("convert", 0, 1)
        result = AotConverter(run_config).convert()
        if progress is not None:
            progress("convert", 1, 1)
        refuse_foreign_core(result.plan, target)
        if converted is not None:
            converted(result)
        return _validate_converted(
            result, run_config, work, inputs, samples, target, seed, input_range, progress
        )
    finally:
        if not base.keep_work_dir:
            shutil.rmtree(work, ignore_errors=True)


def _config(config: ConvertArgs | Mapping[str, Any] | str | Path) -> ConvertArgs:
    if isinstance(config, ConvertArgs):
        return config
    if isinstance(config, (str, Path)):
        if Path(config).suffix.lower() in (".tflite", ".litert", ".onnx"):
            return ConvertArgs.model_validate({"model": {"path": str(config)}})
        return ConvertArgs.from_yaml(config)
    try:
        return ConvertArgs.model_validate(dict(config))
    except ValidationError as error:
        raise invalid_config(error) from error


def _work_config(base: ConvertArgs, work: Path) -> ConvertArgs:
    """``base`` writing its module into ``work`` as a folder, without a self-test, with views."""
    data = base.model_dump(mode="python")
    overrides = {
        "module.path": str(work / "module"),
        "test.enabled": False,
        "force": False,
        "dry_run": False,
        "result_views": True,
    }
    try:
        config = ConvertArgs.model_validate(apply_overrides(data, overrides))
    except ValidationError as error:
        raise invalid_config(error) from error
    if base.model.data is not None:
        config = config.model_copy(
            update={"model": config.model.model_copy(update={"data": base.model.data})}
        )
    return config


def _specs(result: Any) -> tuple[list[InputSpec], list[Any]]:
    """The module's inputs (as the dataset fills them) and its output views, in order."""
    tensors = result.tensors or ()
    inputs = sorted((t for t in tensors if t.input_index is not None), key=lambda t: t.input_index)
    outputs = sorted((t for t in tensors if t.output_index is not None), key=lambda t: t.output_index)
    specs = []
    for t in inputs:
        quant = t.quantization
        specs.append(
            InputSpec(
                index=int(t.input_index),
                name=str(t.name),
                shape=tuple(int(d) for d in t.shape),
                dtype=np.dtype(t.dtype),
                scale=float(quant.scale[0]) if quant is not None and quant.scale else None,
                zero_point=int(quant.zero_point[0]) if quant is not None and quant.zero_point else None,
            )
        )
    return specs, outputs


def _front_end(config: ConvertArgs, path: Path) -> tuple[Any, AirModel] | None:
    """The reader and AIR model of a model another front end than LiteRT reads (its runtime is
    the reference, its file layout the dataset's), or None for a LiteRT model."""
    context = build_default_registry_context(plugins=config.plugins)
    loader = loader_for(path, config, context)
    if loader is LITERT_LOADER:
        return None
    reader = loader.open()
    return reader, reader.load(path, config, context)


def _file_spec(spec: InputSpec, model: AirModel) -> InputSpec:
    """``spec`` with the shape the model file gives the input (before the front end's layout)."""
    perm = source_layout(model, "input", spec.index)
    if perm is None:
        return spec
    shape = [0] * len(perm)
    for position, axis in enumerate(perm):
        shape[axis] = spec.shape[position]
    return replace(spec, shape=tuple(shape))


def _model_file(config: ConvertArgs, work: Path) -> Path:
    if config.model.data is not None:
        path = work / "model.tflite"
        path.write_bytes(bytes(config.model.data))
        return path
    return Path(config.model.path)


def _validate_converted(
    result: Any,
    config: ConvertArgs,
    work: Path,
    source: InputSource,
    samples: int | None,
    target: str,
    seed: int,
    input_range: tuple[float, float],
    progress: Progress | None,
) -> ValidationReport:
    from helia_aot.golden import _reference_model
    from helia_aot.interpreters import create_interpreter

    specs, outputs = _specs(result)
    model_file = _model_file(config, work)
    front = _front_end(config, model_file)
    if source is None:
        dataset = generated_inputs(specs, samples or DEFAULT_SAMPLES, seed=seed, float_range=input_range)
        described = "generated"
    elif front is not None:  # a dataset in the model file's own layout (NCHW for ONNX)
        model = front[1]
        file_specs = [_file_spec(spec, model) for spec in specs]
        loaded = load_inputs(source, file_specs, samples=samples)
        dataset = [from_source_layout(a, model, "input", i) for i, a in enumerate(loaded)]
        described = "callable" if callable(source) else str(source)
    else:
        dataset = load_inputs(source, specs, samples=samples)
        described = "callable" if callable(source) else str(source)
    count = int(dataset[0].shape[0]) if dataset else (samples or DEFAULT_SAMPLES)
    shapes = [tuple(int(d) for d in o.shape) for o in outputs]
    report = progress or (lambda stage, done, total: None)
    reference_file = model_file if front is not None else _reference_model(model_file, work)
    input_shapes = [spec.shape for spec in specs]
    expected: dict[str, list[np.ndarray]] = {}
    operators: list[str] = []
    producers: list[str | None] = []
    for kind in (REFERENCE, OPTIMIZED):
        try:
            if front is not None:
                interpreter = front[0].reference(reference_file, front[1], optimized=kind == OPTIMIZED)
            else:
                interpreter = create_interpreter(reference_file, input_shapes, optimized=kind == OPTIMIZED)
        except ReferenceExecutionError as error:
            raise ReferenceExecutionError(
                error.message,
                hint=f"LiteRT's {kind} kernels cannot run this model, so validate has nothing to compare "
                "with; helia-aot test --test.golden-data checks it against outputs you supply",
            ) from error
        if kind == REFERENCE:
            operators, producers = interpreter.operator_names(), interpreter.output_producers()
        rows: list[list[np.ndarray]] = [[] for _ in outputs]
        report(kind, 0, count)
        for s in range(count):
            values = interpreter.run([a[s] for a in dataset])
            for j, value in enumerate(values):
                rows[j].append(np.asarray(value).reshape(shapes[j]))
            report(kind, s + 1, count)
        expected[kind] = [np.stack(r) for r in rows]
    done = [0]

    def advance(n: int) -> None:
        done[0] += n
        report("module", done[0], count)

    report("module", 0, count)
    actual = run_module(
        Path(result.output),
        work / "build",
        result.prefix,
        target,
        dataset,
        [np.dtype(o.dtype) for o in outputs],
        shapes,
        advance=advance,
    )
    tolerance = float(config.test.tolerance or 0.0)
    results = []
    for j, view in enumerate(outputs):
        producer = producers[j] if j < len(producers) else None
        results.append(
            _output_result(
                j, view, actual[j], expected[REFERENCE][j], expected[OPTIMIZED][j], producer, tolerance
            )
        )
    return ValidationReport(
        model=str(config.model.name if config.model.data is not None else Path(config.model.path).name),
        platform=str(result.plan.platform.name),
        target=target,
        samples=count,
        inputs=described,
        seed=seed if source is None else None,
        tolerance=tolerance,
        outputs=tuple(results),
        known_differences=tuple(known_differences(operators)) if front is None else (),
        reference_bugs=tuple(reference_bugs(operators)) if front is None else (),
        runtime="LiteRT" if front is None else str(getattr(front[0], "RUNTIME", "the front end's runtime")),
        plan_hash=module_plan_hash(Path(result.output), result.prefix),
    )


def module_plan_hash(module: Path, prefix: str) -> str | None:
    """The plan hash a module states in its public header (``#define <PREFIX>_PLAN_HASH``)."""
    header = module / "includes-api" / f"{prefix}_tensors.h"
    if not header.is_file():
        return None
    match = re.search(
        rf'^#define {re.escape(prefix.upper())}_PLAN_HASH "([0-9a-f]+)"$',
        header.read_text(encoding="utf-8"),
        re.MULTILINE,
    )
    return match.group(1) if match else None


def _output_result(
    index: int,
    view: Any,
    actual: np.ndarray,
    reference: np.ndarray,
    optimized: np.ndarray,
    producer: str | None,
    tolerance: float,
) -> OutputResult:
    dtype = np.dtype(view.dtype)
    quant = view.quantization
    integer = bool(np.issubdtype(dtype, np.integer) or dtype == np.bool_)
    zero_point = int(quant.zero_point[0]) if integer and quant is not None and quant.zero_point else 0
    shape = tuple(int(d) for d in view.shape)
    classifier = is_classifier(producer, shape)
    against_ref = compare_output(
        index, REFERENCE, actual, reference, zero_point=zero_point, classifier=classifier
    )
    against_opt = compare_output(
        index, OPTIMIZED, actual, optimized, zero_point=zero_point, classifier=classifier
    )
    agree = compare_output(index, REFERENCE, optimized, reference, zero_point=zero_point).exact_match
    verdict, bound = judge(
        actual,
        reference,
        dtype,
        quantized=quant is not None,
        index_output=producer in INDEX_OPERATORS,
        tolerance=tolerance,
    )
    return OutputResult(
        index=index,
        name=str(view.name),
        shape=shape,
        dtype=str(dtype),
        error_unit="step" if integer else "value",
        classifier=classifier,
        reference=against_ref,
        optimized=against_opt,
        verdict=verdict,
        bound=bound,
        interpreters_agree=agree,
    )


def judge(
    actual: np.ndarray,
    expected: np.ndarray,
    dtype: np.dtype[Any],
    *,
    quantized: bool,
    index_output: bool,
    tolerance: float,
) -> tuple[str, str]:
    """``(verdict, bound)`` of one output against the reference, by ``helia-aot test``'s rules."""
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    same = bool(np.array_equal(a, e, equal_nan=True))
    if dtype == np.bool_ or index_output or (np.issubdtype(dtype, np.integer) and not quantized):
        bound = "exact"
        limit = 0.0
    elif np.issubdtype(dtype, np.integer):
        limit = tolerance
        bound = f"|diff| <= {tolerance:g}"
    else:
        finite = np.abs(e[np.isfinite(e)])
        scale = float(finite.max()) if finite.size else 0.0
        limit = tolerance * scale
        bound = f"|diff| <= {limit:.6g} = {tolerance:g} x max|expected| {scale:.6g}"
    if same:
        return BIT_EXACT, bound
    diff = np.abs(a - e)
    nan = np.isnan(a) != np.isnan(e)
    within = not nan.any() and bool(np.nanmax(np.where(np.isnan(a) & np.isnan(e), 0.0, diff)) <= limit)
    return (WITHIN if within else MISMATCH), bound


__all__ = ["DEFAULT_SAMPLES", "TARGETS", "Progress", "judge", "validate"]
