"""One operator alone in a model, per element type, against LiteRT's reference interpreter.

The per-operator test files (``tests/ops_builtin/<family>/test_<operator>.py``) each hold their
operator's cases, a :class:`SingleOp` per element type the operator converts, and hand them to
:func:`check_against_reference`: every case becomes a one-operator model, its inputs are drawn
from a seeded generator, LiteRT's reference kernels (``BUILTIN_REF``; the builtin kernels for the
few operators the reference resolver lacks) give the expected outputs, and all the operator's
modules are linked into one host program (ASan/UBSan, :mod:`ops_builtin.support.linked_host`), so
one file costs one build. Integer outputs must be bit-exact, float outputs bit-exact too unless
the case states its ULP bound (the bound documented for that operator).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import write_golden

from ops_builtin.support.linked_host import run_linked


@dataclass(frozen=True)
class T:
    """A tensor of a case: shape, element type, (scale, zero point) when quantized, constant data
    when it is a constant (a per-channel quantization is (scales, zero points, axis)), and the
    range run-time values are drawn from (by default: floats [-4, 4], int8/int16 their whole
    range, wider integers +-10000)."""

    shape: tuple[int, ...]
    dtype: str
    quant: tuple[Any, ...] | None = None
    data: Any = None
    low: float | None = None
    high: float | None = None
    variable: bool = False
    """A state the operator keeps from run to run (neither a model input nor a constant)."""

    @property
    def runtime(self) -> bool:
        """Whether the tensor is a model input (fed by the golden samples)."""
        return self.dtype != "none" and self.data is None and not self.variable


@dataclass(frozen=True)
class SingleOp:
    """One operator over ``inputs`` into ``outputs`` with its builtin ``options`` (or None).
    ``ulp`` is the stated bound on float outputs in ULP, ``tolerance`` the module test's
    relative one (its fraction of the largest expected magnitude; both unset: bit-exact);
    ``version`` the operator code's version (some operators' first is above 1)."""

    op: str
    inputs: Sequence[T]
    outputs: Sequence[T]
    options: Any = None
    ulp: int | None = None
    tolerance: float = 0.0
    samples: int = 2
    version: int = 1


def options(name: str, **fields: Any) -> Any:
    """``litert.<name>`` (for example ``"AddOptionsT"``) with ``fields`` set."""
    value = getattr(litert, name)()
    for key, item in fields.items():
        setattr(value, key, item)
    return value


def const(shape: Sequence[int], dtype: str, values: Any, quant: tuple[Any, ...] | None = None) -> T:
    """A constant input of ``shape`` holding ``values``."""
    return T(tuple(shape), dtype, quant, np.asarray(values).reshape(shape))


def seeded_uniform(seed: int, low: float, high: float, count: int) -> np.ndarray:
    """``count`` constant values in [low, high) from a generator of their own (a module-level
    generator shared by several constants would make each depend on the ones drawn before it)."""
    return np.random.default_rng(seed).uniform(low, high, count)


def seeded_integers(seed: int, low: int, high: int, count: int) -> np.ndarray:
    """``count`` constant integers in [low, high) from a generator of their own."""
    return np.random.default_rng(seed).integers(low, high, count)


def build(case: SingleOp, path: Path) -> Path:
    """Save the one-operator model of ``case`` to ``path``."""
    b = LiteRTModelBuilder()
    runtime = []
    ids = []
    for i, t in enumerate(case.inputs):
        if t.dtype == "none":
            ids.append(-1)  # an omitted optional input
            continue
        tid = b.add_tensor(f"in{i}", t.shape, t.dtype, data=t.data, quantization=t.quant, variable=t.variable)
        ids.append(tid)
        if t.runtime:
            runtime.append(tid)
    outs = [
        b.add_tensor(f"out{j}", t.shape, t.dtype, quantization=t.quant) for j, t in enumerate(case.outputs)
    ]
    b.add_operator(case.op, ids, outs, case.options, version=case.version)
    b.set_inputs(runtime)
    b.set_outputs(outs)
    return b.save(path)


def _values(t: T, rng: np.random.Generator) -> np.ndarray:
    dtype = np.dtype(t.dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, t.shape).astype(bool)
    if dtype.kind == "f":
        low = -4.0 if t.low is None else t.low
        high = 4.0 if t.high is None else t.high
        return rng.uniform(low, high, t.shape).astype(dtype)
    info = np.iinfo(dtype)
    wide = dtype.itemsize > 2  # int32/int64: a range whose sums and products do not overflow
    low = (-10000 if wide else info.min) if t.low is None else int(t.low)
    high = (10000 if wide else info.max) if t.high is None else int(t.high)
    return rng.integers(low, high, t.shape, endpoint=True).astype(dtype)


def reference(model: Path, samples: Sequence[Sequence[np.ndarray]]) -> list[np.ndarray]:
    """Each output of the model over every sample (stacked on axis 0), one interpreter for all."""
    try:
        it = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    except ValueError:  # CEIL, ROUND: only the builtin resolver has them
        it = Interpreter(
            model_path=str(model),
            experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        )
    it.allocate_tensors()
    found: list[list[np.ndarray]] = [[] for _ in it.get_output_details()]
    for inputs in samples:
        for detail, x in zip(it.get_input_details(), inputs, strict=True):
            it.set_tensor(detail["index"], x)
        it.invoke()
        for j, detail in enumerate(it.get_output_details()):
            found[j].append(it.get_tensor(detail["index"]).copy())
    return [np.stack(values) for values in found]


def golden(case: SingleOp, model: Path, target: Path, seed: int) -> Path:
    """Golden data of ``case.samples`` seeded samples through the reference kernels, one
    interpreter for all (so a variable state carries from sample to sample, as in the module's
    self test)."""
    rng = np.random.default_rng(seed)
    runtime = [t for t in case.inputs if t.runtime]
    samples = [[_values(t, rng) for t in runtime] for _ in range(case.samples)]
    expected = reference(model, samples)
    stacked = [np.stack([s[i] for s in samples]) for i in range(len(runtime))]
    return write_golden(target, stacked, expected)


def check_against_reference(cases: Mapping[str, SingleOp], tmp_path: Path) -> dict[str, str]:
    """Convert every case, link them into one host program and run each module's self test on
    the reference's outputs; bit-exact cases must say so. Returns each case's self-test lines."""
    linked = {}
    for name, case in cases.items():
        model = build(case, tmp_path / f"{name}.tflite")
        data = golden(case, model, tmp_path / f"{name}.npz", zlib.crc32(name.encode()))
        linked[name] = (model, data, case.tolerance if case.tolerance else case.ulp)
    sections = run_linked(linked, tmp_path / "linked")
    for name, case in cases.items():
        if case.ulp is None and case.tolerance == 0.0:
            assert "bit-exact" in sections[name] and "within" not in sections[name], (
                f"{name}: {sections[name]}"
            )
    return sections


def unary(
    op: str,
    dtype: str,
    shape: Sequence[int] = (2, 3, 7),
    quant: tuple[float, int] | None = None,
    out_quant: tuple[float, int] | None = None,
    opts: Any = None,
    low: float | None = None,
    high: float | None = None,
    ulp: int | None = None,
) -> SingleOp:
    """``op`` over one runtime input of ``shape`` into an output of the same shape and type
    (``out_quant``: the output's own quantization, the input's by default)."""
    shape = tuple(shape)
    x = T(shape, dtype, quant, low=low, high=high)
    return SingleOp(op, [x], [T(shape, dtype, out_quant or quant)], opts, ulp)


def binary(
    op: str,
    dtype: str,
    shapes: Sequence[Sequence[int]] = ((2, 3, 5), (1, 3, 5), (2, 3, 5)),
    quants: Sequence[tuple[float, int] | None] = (None, None, None),
    opts: Any = None,
    second: tuple[float | None, float | None] = (None, None),
    out_dtype: str | None = None,
    ulp: int | None = None,
) -> SingleOp:
    """``op`` over two runtime inputs (the second broadcast by default; ``second`` its value
    range) into ``shapes[2]`` (of ``out_dtype``, the inputs' type by default)."""
    a = T(tuple(shapes[0]), dtype, quants[0])
    b = T(tuple(shapes[1]), dtype, quants[1], low=second[0], high=second[1])
    return SingleOp(op, [a, b], [T(tuple(shapes[2]), out_dtype or dtype, quants[2])], opts, ulp)
