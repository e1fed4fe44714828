"""Extreme input samples for the corpus golden tests, with the reference's outputs for them.

The recorded golden samples are drawn from each input's usual range, which leaves a kernel's
corners untested: a requantization that overflows only when every input is at its maximum, an
accumulator that wraps for alternating signs, a clamp that is off at the minimum. Every corpus
module therefore also runs, in the same build and the same self test, on four more samples per
model, each input set to:

* ``min``: every element the input's minimum;
* ``max``: every element the input's maximum;
* ``alternating``: minimum and maximum in turn (element 0 the minimum);
* ``random``: uniform over the range, from a generator seeded by the model's name.

The range is the input type's whole range for a quantized input (every byte pattern the
application can write), and the manifest's ``golden_range`` for a float or index input (the values
the model is defined for: a float model is not specified on infinities, an index input not
outside its table). The expected outputs are the LiteRT interpreter's on these inputs, computed
here with the kernels the manifest recorded the model's golden data with: the reference kernels
(BUILTIN_REF), or the optimized ones for the two models whose operators the reference resolver
lacks (ROUND, CEIL). The int8 TILE model the reference resolver refuses only for its declared
TILE version runs with the reference kernels on a relabelled copy (relabelled_reference.py). One
model's reference kernel is known wrong (corpus.KNOWN_REFERENCE_BUGS: LiteRT's int8 SUM reference
reads signed data as unsigned, issue #4079), and the optimized SUM rounds through float and is 1
LSB off on random inputs, so for that model the expected outputs come from the kernel suite's numpy
model of the integer sum the reference intends (``reduce_quantized``), checked first against the
trusted recording of the golden samples.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot_ops_builtin.common.rescale import reduce_rescale
from ops_builtin.support.elementwise_refmodels import reduce_quantized

from .relabelled_reference import reference_model

PATTERNS = ("min", "max", "alternating", "random")


def input_range(spec: dict[str, Any]) -> tuple[float, float]:
    """The smallest and largest value an input is driven to (see the module docstring)."""
    dtype = np.dtype(spec["dtype"])
    if spec.get("quant") is not None and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    lo, hi = spec["golden_range"]
    return lo, hi


def pattern(spec: dict[str, Any], kind: str, rng: np.random.Generator) -> np.ndarray:
    """One sample (batch axis included, as the golden archives store it) of ``kind`` for an input."""
    dtype = np.dtype(spec["dtype"])
    shape = tuple(spec["shape"])
    lo, hi = input_range(spec)
    if kind == "min":
        flat = np.full(int(np.prod(shape)), lo)
    elif kind == "max":
        flat = np.full(int(np.prod(shape)), hi)
    elif kind == "alternating":
        flat = np.where(np.arange(int(np.prod(shape))) % 2 == 0, lo, hi)
    elif kind == "random":
        if dtype.kind in "iu":
            flat = rng.integers(lo, hi, int(np.prod(shape)), endpoint=True)
        else:
            flat = rng.uniform(lo, hi, int(np.prod(shape)))
    else:
        raise ValueError(f"unknown pattern {kind!r}; expected one of {', '.join(PATTERNS)}")
    return flat.astype(dtype).reshape(shape)


def hostile_samples(entry: dict[str, Any]) -> list[list[np.ndarray]]:
    """The extra samples of a corpus model: one list of inputs (model order) per pattern."""
    rng = np.random.default_rng(zlib.crc32(entry["name"].encode()))
    return [[pattern(spec, kind, rng) for spec in entry["inputs"]] for kind in PATTERNS]


def reference_kernels(entry: dict[str, Any]) -> OpResolverType:
    """Which LiteRT kernels compute the expected outputs of a model (see the module docstring)."""
    if not entry["reference_op_resolver"].startswith("BUILTIN_REF"):
        return OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    return OpResolverType.BUILTIN_REF


def run_reference(model: Path, kernels: OpResolverType, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """One inference with LiteRT's interpreter; outputs in model order."""
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=kernels)
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    return [np.array(interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()]


def int8_sum_reference(entry: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The exactly requantized int8 SUM of a one-operator keep-dims model (reduce_sum_int8)."""
    (spec_in,), (spec_out,) = entry["inputs"], entry["outputs"]
    axes = tuple(a for a, (i, o) in enumerate(zip(spec_in["shape"], spec_out["shape"])) if i != o)
    count = int(np.prod([spec_in["shape"][a] for a in axes]))
    q_in, q_out = spec_in["quant"], spec_out["quant"]
    multiplier, shift = reduce_rescale(q_in["scale"], q_out["scale"], count, False)
    out = reduce_quantized(
        inputs[0], axes, multiplier, shift, q_in["zero_point"], q_out["zero_point"], np.int8
    )
    return [out.reshape(spec_out["shape"])]


EXACT_MODELS = {"reduce_sum_int8": int8_sum_reference}
"""Models whose expected outputs come from a numpy model (their reference kernel is wrong)."""


def add_hostile_samples(entry: dict[str, Any], model: Path, golden: Path) -> Path:
    """Append the extra samples, and the reference's outputs for them, to a golden archive.

    ``golden`` is a test.golden_data archive (``input_i`` / ``output_j``, samples on axis 0), as
    ``corpus_golden_to_npz`` writes it; it is rewritten in place and returned.
    """
    model, kernels = reference_model(entry, model, golden.parent)
    with np.load(golden) as data:
        arrays = {key: data[key] for key in data.files}
    exact = EXACT_MODELS.get(entry["name"])
    if exact is not None:  # the numpy model must reproduce the trusted recording first
        for sample in range(arrays["input_0"].shape[0]):
            (want,) = exact(entry, [arrays["input_0"][sample]])
            np.testing.assert_array_equal(want, arrays["output_0"][sample], err_msg=entry["name"])
    for inputs in hostile_samples(entry):
        outputs = exact(entry, inputs) if exact else run_reference(model, kernels, inputs)
        for i, value in enumerate(inputs):
            key = f"input_{i}"
            arrays[key] = np.concatenate([arrays[key], value[None].astype(arrays[key].dtype)])
        for j, value in enumerate(outputs):
            key = f"output_{j}"
            arrays[key] = np.concatenate(
                [arrays[key], value.reshape((1, *arrays[key].shape[1:])).astype(arrays[key].dtype)]
            )
    np.savez(golden, **arrays)
    return golden
