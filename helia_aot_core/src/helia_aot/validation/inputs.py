"""The samples ``helia-aot validate`` runs: the user's own, or generated at the inputs' ranges.

A dataset is one array per model input, ``(samples, *shape)``, in the input's element type. It
comes from an ``.npz`` (``input_<i>`` or the input's name, one sample shaped like the tensor or
samples stacked on a new first axis), a folder of ``.npy`` files (``input_<i>.npy`` per input, or
for a one-input model any ``.npy`` files, each a sample or a stack, in name order), a Python
callable (called with the sample index, it returns one sample: an array, or one per input) or,
without any of these, from random values over each input's range: the whole integer range of a
quantized or integer input (every value its quantization can stand for) and ``float_range`` for
a float input. Float values given for a quantized input are quantized with its scale and zero
point, as a user's float features would be before they reach the device.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.errors import ValidationDataError

InputSource = str | Path | Callable[[int], Any] | None
"""An ``.npz`` file, a folder of ``.npy`` files, a callable returning sample ``i``, or None."""

SHAPE_HINT = "store one sample shaped like the input, or samples stacked on a new first axis"


@dataclass(frozen=True, slots=True)
class InputSpec:
    """One model input as the dataset must fill it: its shape and numpy type, and the
    quantization (scale, zero point) that float values for it are quantized with."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    scale: float | None = None
    zero_point: int | None = None

    @property
    def label(self) -> str:
        """How messages name the input: ``input 0 (in0)``."""
        return f"input {self.index}" + (f" ({self.name})" if self.name else "")


def generated_inputs(
    specs: Sequence[InputSpec], samples: int, *, seed: int = 0, float_range: tuple[float, float] = (-1.0, 1.0)
) -> list[np.ndarray]:
    """``samples`` random samples per input: integers over the type's whole range, booleans,
    floats uniform in ``float_range``. The same seed gives the same samples."""
    if samples < 1:
        raise ValidationDataError(
            f"validate needs at least one sample, not {samples}", hint="give --samples 1 or more"
        )
    low, high = float_range
    if not low < high:
        raise ValidationDataError(
            f"the float input range [{low:g}, {high:g}] is empty",
            hint="give --input-range LOW HIGH with LOW < HIGH",
        )
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        shape = (samples, *spec.shape)
        if spec.dtype == np.bool_:
            arrays.append(rng.integers(0, 2, size=shape).astype(np.bool_))
        elif np.issubdtype(spec.dtype, np.integer):
            info = np.iinfo(spec.dtype)
            arrays.append(rng.integers(info.min, int(info.max) + 1, size=shape, dtype=spec.dtype))
        else:
            arrays.append(rng.uniform(low, high, size=shape).astype(spec.dtype))
    return arrays


def load_inputs(
    source: InputSource, specs: Sequence[InputSpec], *, samples: int | None = None
) -> list[np.ndarray]:
    """The dataset ``source`` holds, one ``(samples, *shape)`` array per input (``samples`` caps
    the count of a file or folder and is the count a callable is called for)."""
    if callable(source):
        return _from_callable(source, specs, samples or 1)
    if source is None:
        raise ValidationDataError("no inputs given", hint="give an .npz file or a folder of .npy files")
    path = Path(source)
    if path.is_dir():
        arrays = _from_folder(path, specs)
    elif path.is_file():
        arrays = _from_npz(path, specs)
    else:
        raise ValidationDataError(
            f"the inputs {path} do not exist",
            hint="give --inputs an .npz file or a folder of .npy files, or leave it out to generate samples",
        )
    counts = {a.shape[0] for a in arrays}
    if len(counts) > 1:
        raise ValidationDataError(
            f"the inputs in {path.name} hold different sample counts "
            + ", ".join(f"{s.label}: {a.shape[0]}" for s, a in zip(specs, arrays)),
            hint="give every input the same number of samples",
        )
    return [a[:samples] for a in arrays] if samples else arrays


def as_samples(value: Any, spec: InputSpec, where: str) -> np.ndarray:
    """``value`` as ``(samples, *shape)`` in the input's type, or ValidationDataError naming
    ``where`` it came from, the input, and what to store instead."""
    array = np.asarray(value)
    array = _converted(array, spec, where)
    shape = spec.shape
    size = int(np.prod(shape, dtype=np.int64))
    if array.shape == shape or (array.size == size and array.ndim < len(shape) and size > 0):
        return array.reshape((1, *shape))
    if array.ndim >= 1 and array.shape[1:] == shape:
        return array
    # A model input of batch 1 also takes samples stored without the batch axis.
    if shape and shape[0] == 1 and array.shape[1:] == shape[1:]:
        return array.reshape((-1, *shape))
    raise ValidationDataError(
        f"{where}: {spec.label} has shape {list(array.shape)}; the model's input is {list(shape)}",
        hint=f"{SHAPE_HINT}: {list(shape)} or [N, {', '.join(map(str, shape))}]",
    )


def _converted(array: np.ndarray, spec: InputSpec, where: str) -> np.ndarray:
    """``array`` in the input's type: floats for a quantized input are quantized, other numbers
    are cast when every value fits the type."""
    if array.dtype == spec.dtype:
        return array
    target = spec.dtype
    if np.issubdtype(target, np.integer) and np.issubdtype(array.dtype, np.floating):
        if spec.scale is None or spec.zero_point is None:
            raise ValidationDataError(
                f"{where}: {spec.label} is {target} without quantization, the values are {array.dtype}",
                hint=f"store the values as {target}",
            )
        info = np.iinfo(target)
        quantized = np.round(array.astype(np.float64) / spec.scale) + spec.zero_point
        return np.clip(quantized, info.min, info.max).astype(target)
    if np.issubdtype(target, np.integer) and np.issubdtype(array.dtype, np.integer):
        info = np.iinfo(target)
        if array.size and (int(array.min()) < info.min or int(array.max()) > info.max):
            raise ValidationDataError(
                f"{where}: {spec.label} is {target}, and the {array.dtype} values reach beyond "
                f"[{info.min}, {info.max}]",
                hint=f"store the values as {target}",
            )
        return array.astype(target)
    if np.issubdtype(target, np.floating) and (
        np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)
    ):
        return array.astype(target)
    if target == np.bool_ and (array.dtype == np.bool_ or np.issubdtype(array.dtype, np.integer)):
        return array.astype(np.bool_)
    raise ValidationDataError(
        f"{where}: {spec.label} is {target}, the values are {array.dtype}",
        hint=f"store the values as {target}",
    )


def _keyed(arrays: Mapping[str, np.ndarray], spec: InputSpec) -> np.ndarray | None:
    for key in (f"input_{spec.index}", spec.name):
        if key and key in arrays:
            return arrays[key]
    return None


def _from_npz(path: Path, specs: Sequence[InputSpec]) -> list[np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, AttributeError) as exc:
        raise ValidationDataError(
            f"the inputs {path} cannot be read as an .npz archive: {exc}",
            hint="write them with numpy.savez(path, input_0=samples, ...)",
        ) from exc
    result = []
    for spec in specs:
        value = _keyed(arrays, spec)
        if value is None and len(specs) == 1 and len(arrays) == 1:
            value = next(iter(arrays.values()))  # one input, one array: whatever its key
        if value is None:
            raise ValidationDataError(
                f"{path.name} has no array for {spec.label}; "
                f"it holds {', '.join(sorted(arrays)) or 'nothing'}",
                hint=f"store it as input_{spec.index}" + (f" or {spec.name}" if spec.name else ""),
            )
        result.append(as_samples(value, spec, path.name))
    return result


def _from_folder(path: Path, specs: Sequence[InputSpec]) -> list[np.ndarray]:
    files = sorted(path.glob("*.npy"))
    if not files:
        raise ValidationDataError(
            f"the folder {path} holds no .npy files",
            hint="save one per input as input_<i>.npy (numpy.save), or for one input one file per sample",
        )
    named = {f.stem: f for f in files}
    result = []
    for spec in specs:
        file = named.get(f"input_{spec.index}") or (named.get(spec.name) if spec.name else None)
        if file is not None:
            result.append(as_samples(_read_npy(file), spec, file.name))
        elif len(specs) == 1:
            result.append(np.concatenate([as_samples(_read_npy(f), spec, f.name) for f in files]))
        else:
            raise ValidationDataError(
                f"the folder {path} has no input_{spec.index}.npy for {spec.label}",
                hint="save one file per input, input_0.npy ... (samples stacked on the first axis)",
            )
    return result


def _read_npy(path: Path) -> np.ndarray:
    try:
        return np.asarray(np.load(path, allow_pickle=False))
    except (OSError, ValueError, EOFError) as exc:
        raise ValidationDataError(
            f"{path} cannot be read as a .npy array: {exc}", hint="write it with numpy.save"
        ) from exc


def _from_callable(
    source: Callable[[int], Any], specs: Sequence[InputSpec], samples: int
) -> list[np.ndarray]:
    per_input: list[list[np.ndarray]] = [[] for _ in specs]
    for index in range(samples):
        where = f"sample {index} of the inputs callable"
        value = source(index)
        if isinstance(value, Mapping):
            values = [_keyed(value, spec) for spec in specs]
        elif isinstance(value, (list, tuple)):
            values = list(value)
        else:
            values = [value]
        if len(values) != len(specs) or any(v is None for v in values):
            raise ValidationDataError(
                f"{where} gives {len(values)} value(s) for the model's {len(specs)} input(s)",
                hint="return one array per input (a list in input order, or a dict keyed input_<i>)",
            )
        for spec, v, target in zip(specs, values, per_input):
            array = as_samples(v, spec, where)
            if array.shape[0] != 1:
                raise ValidationDataError(
                    f"{where}: {spec.label} holds {array.shape[0]} samples, not one",
                    hint="return one sample per call (validate calls it once per sample)",
                )
            target.append(array)
    return [np.concatenate(arrays) for arrays in per_input]


__all__ = ["InputSource", "InputSpec", "as_samples", "generated_inputs", "load_inputs"]
