"""Golden data for the module's self test: supplied as ``.npz`` or computed by the reference.

An archive holds ``input_N`` and ``output_N`` for every model input and output, either one sample
shaped like the tensor or several samples stacked on a new leading axis, in the model file's own
layout (NCHW for ONNX: a front end that lays a tensor out otherwise records it, and the arrays
are transposed here, :func:`from_source_layout`). With
``test.num_iterations`` = R > 1 the self-test runs every sample R times in a row on one context,
and an array may hold one *frame per run* instead: R frames per sample, stacked as
``(samples * R, *shape)`` or ``(samples, R, *shape)``. An input with frames gets frame k on run k
(a stream); one without gets the same stimulus every run. An output with frames is compared after
every run (a stream checked frame by frame); one without is compared after the last run only. An
input fed back from an output (``test.state_feedback``) takes its stimulus on the first run only.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.air import AirModel, AirTensor
from helia_aot.errors import GoldenDataError, GoldenDataKeyError, GoldenDataNotFoundError
from helia_aot.interpreters import create_interpreter
from helia_aot.litert.float32_twin import float32_twin, has_float16_activations


@dataclass(slots=True)
class GoldenData:
    """Samples in model order: ``inputs[i]`` and ``outputs[j]`` are ``(samples, frames, *shape)``
    arrays, ``frames`` being 1 (one value for the whole sample) or the number of runs (one per run)."""

    inputs: list[np.ndarray]
    outputs: list[np.ndarray]

    @property
    def num_samples(self) -> int:
        arrays = self.inputs + self.outputs
        return int(arrays[0].shape[0]) if arrays else 1


def _as_samples(value: np.ndarray, tensor: AirTensor, key: str, runs: int = 1) -> np.ndarray:
    """``value`` as ``(samples, frames, *shape)``; frames is ``runs`` when the array holds one
    frame per run (``runs`` > 1 and a leading count divisible by it), 1 otherwise."""
    shape = tuple(tensor.shape)
    if (
        tensor.dtype.value == "float16"
        and key.startswith("output")
        and np.issubdtype(value.dtype, np.floating)
    ):
        # A float16 output's golden stays float32 (its float32 twin's result): the self-test
        # compares the module's float16 values with it within the stated tolerance.
        value = value.astype(np.float32)
    elif value.dtype != tensor.dtype.numpy:
        if tensor.dtype.is_float and np.issubdtype(value.dtype, np.floating):
            value = value.astype(tensor.dtype.numpy)
        else:
            raise GoldenDataError(
                f"golden {key} is {value.dtype}, the model tensor is {tensor.dtype}",
                hint="store the arrays in the model's dtypes",
            )
    if value.size == tensor.size:
        return value.reshape((1, 1, *shape))
    stacked = tensor.size and value.size % tensor.size == 0
    if stacked and runs > 1 and value.ndim == len(shape) + 2 and value.shape[1:] == (runs, *shape):
        return value
    if stacked and value.shape[1:] == shape:
        if runs == 1:
            return value.reshape((-1, 1, *shape))
        if value.shape[0] % runs == 0:
            return value.reshape((-1, runs, *shape))
        raise GoldenDataError(
            f"golden {key} holds {value.shape[0]} frames, not a multiple of test.num_iterations "
            f"({runs}) runs",
            hint="store one frame per run for every sample (samples * num_iterations frames), or "
            "one value shaped like the tensor",
        )
    raise GoldenDataError(
        f"golden {key} has shape {value.shape}, the model tensor is {list(shape)}",
        hint="store one sample shaped like the tensor, or samples (or one frame per run) stacked on axis 0",
    )


def source_layout(model: AirModel, role: str, index: int) -> tuple[int, ...] | None:
    """The perm that lays input or output ``index`` of the model file out as the module holds it
    (``module = numpy.transpose(file_value, perm)``), or None when the two agree.

    A front end that changes a layout records it in ``metadata["source_layouts"]`` (the ONNX one
    lays NCHW images out NHWC): ``{"inputs": [perm or None, ...], "outputs": [...]}``.
    """
    layouts = model.metadata.get("source_layouts") or {}
    perms = layouts.get(f"{role}s") or []
    perm = perms[index] if index < len(perms) else None
    return tuple(int(a) for a in perm) if perm else None


def from_source_layout(value: np.ndarray, model: AirModel, role: str, index: int) -> np.ndarray:
    """Golden ``value`` (one sample shaped like the file's tensor, or samples stacked in front)
    in the module's layout: its trailing axes permuted by :func:`source_layout`."""
    perm = source_layout(model, role, index)
    if perm is None or value.ndim < len(perm):
        return value
    lead = value.ndim - len(perm)
    return np.ascontiguousarray(np.transpose(value, (*range(lead), *(lead + a for a in perm))))


def load_golden(path: Path, model: AirModel, runs: int = 1) -> GoldenData:
    """Read and check an archive against the model's inputs and outputs (``runs``:
    test.num_iterations, which decides whether stacked arrays are samples or frames)."""
    path = Path(path)
    if not path.is_file():
        raise GoldenDataNotFoundError(
            f"golden data {path} does not exist",
            hint="check test.golden_data, or omit it to use the reference",
        )
    try:
        archive = np.load(path, allow_pickle=False)
        arrays = {k: archive[k] for k in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise GoldenDataError(
            f"golden data {path} cannot be read: {exc}", hint="write it with numpy.savez"
        ) from exc
    result = GoldenData([], [])
    for role, ids, target in (
        ("input", model.inputs, result.inputs),
        ("output", model.outputs, result.outputs),
    ):
        for i, tid in enumerate(ids):
            key = f"{role}_{i}"
            if key not in arrays:
                raise GoldenDataKeyError(
                    f"golden data {path.name} has no {key!r}",
                    hint=f"it needs input_0..input_{len(model.inputs) - 1} and "
                    f"output_0..output_{len(model.outputs) - 1}",
                )
            value = from_source_layout(arrays[key], model, role, i)
            target.append(_as_samples(value, model.tensors[tid], key, runs))
    counts = {a.shape[0] for a in result.inputs + result.outputs}
    if len(counts) > 1:
        raise GoldenDataError(f"golden data {path.name} mixes sample counts {sorted(counts)}")
    return result


def reference_golden(
    model_path: Path,
    model: AirModel,
    samples: int = 1,
    seed: int = 0,
    *,
    iterations: int = 1,
    feedback: Sequence[tuple[int, int]] = (),
    interpreter: Any = None,
) -> GoldenData:
    """Random inputs over each input's full range, outputs from the reference interpreter.

    With ``iterations`` > 1 each sample runs that many times in a row, as the module's self-test
    does with ``test.num_iterations`` and ``test.state_feedback``: every input not fed back gets a
    fresh frame each run, ``feedback`` (output, input) pairs copy outputs into inputs between runs
    (a fed input keeps one frame: its first run's), and every run's outputs are kept, so the
    self-test compares the stream frame by frame. One interpreter runs everything in order, as
    the module's one context does, so state carries over between runs and samples.
    ``interpreter`` replaces LiteRT's (a front end's runtime: ``ModelReader.reference``).
    """
    rng = np.random.default_rng(seed)
    if interpreter is not None:
        return _run_reference(interpreter, model, rng, samples, iterations, feedback)
    with tempfile.TemporaryDirectory(prefix="helia-aot-twin") as tmp:
        reference = _reference_model(Path(model_path), Path(tmp))
        # At the shapes the module has (model.input_shapes may have resized an input).
        interpreter = create_interpreter(reference, [model.tensors[t].shape for t in model.inputs])
        return _run_reference(interpreter, model, rng, samples, iterations, feedback)


def _reference_model(model_path: Path, work: Path) -> Path:
    """The model the reference runs: a float16 model's float32 twin (the reference has no float16
    kernels; see :mod:`helia_aot.litert.float32_twin`), any other model itself."""
    try:
        data = model_path.read_bytes()
    except OSError:
        return model_path  # create_interpreter reports the unreadable file
    try:
        if not has_float16_activations(data):
            return model_path
        twin = work / model_path.name
        twin.write_bytes(float32_twin(data))
    except Exception:  # not a LiteRT flatbuffer we can rewrite: let the reference report it
        return model_path
    return twin


def _run_reference(
    interpreter: Any,
    model: AirModel,
    rng: np.random.Generator,
    samples: int,
    iterations: int,
    feedback: Sequence[tuple[int, int]],
) -> GoldenData:
    runs = max(1, iterations)
    fed = {in_index for _, in_index in feedback}
    inputs: list[list[np.ndarray]] = [[] for _ in model.inputs]
    outputs: list[list[np.ndarray]] = [[] for _ in model.outputs]
    for _ in range(samples):
        frames: list[list[np.ndarray]] = [[] for _ in model.inputs]
        produced: list[list[np.ndarray]] = [[] for _ in model.outputs]
        feed: list[np.ndarray] = []
        for run in range(runs):
            if run == 0:
                feed = [_random_input(model.tensors[t], rng) for t in model.inputs]
            else:
                for i, tid in enumerate(model.inputs):
                    if i not in fed:
                        feed[i] = _random_input(model.tensors[tid], rng)
            for i, value in enumerate(feed):
                if run == 0 or i not in fed:
                    frames[i].append(value)
            result = interpreter.run(feed)
            for j, value in enumerate(result):
                produced[j].append(np.asarray(value).reshape(model.tensors[model.outputs[j]].shape))
            for out_index, in_index in feedback:
                feed[in_index] = np.asarray(result[out_index]).reshape(
                    model.tensors[model.inputs[in_index]].shape
                )
        for i, values in enumerate(frames):
            inputs[i].append(np.stack(values))
        for j, values in enumerate(produced):
            outputs[j].append(np.stack(values))
    return GoldenData([np.stack(v) for v in inputs], [np.stack(v) for v in outputs])


def _random_input(tensor: AirTensor, rng: np.random.Generator) -> np.ndarray:
    if tensor.dtype.is_integer:
        info = np.iinfo(tensor.dtype.numpy)
        return rng.integers(info.min, int(info.max) + 1, size=tensor.shape, dtype=tensor.dtype.numpy)
    if tensor.dtype.value == "bool":
        return rng.integers(0, 2, size=tensor.shape).astype(bool)
    return rng.uniform(-1.0, 1.0, size=tensor.shape).astype(tensor.dtype.numpy)
