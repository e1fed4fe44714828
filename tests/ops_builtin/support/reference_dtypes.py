"""Single-operator models over one element type, and whether LiteRT's reference kernels run them.

Used by test_reference_dtypes.py: for each operator of ``OPERATORS`` and each element type of
``DTYPES``, one generated model whose inputs and output all have that type (quantized types get
a scale and zero point, as a converter writes them); LiteRT's reference resolver either runs it
(the pair exists in the reference) or refuses it at Prepare or Invoke.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.litert.builder import LiteRTModelBuilder

UNARY = (
    "ABS NEG SQRT RSQRT SQUARE EXP LOG SIN COS FLOOR CEIL ROUND SIGN RELU RELU6 RELU_N1_TO_1 "
    "RELU_0_TO_1 LOGISTIC TANH ELU HARD_SWISH GELU LEAKY_RELU LOG_SOFTMAX SOFTMAX"
).split()
BINARY = "ADD SUB MUL DIV MAXIMUM MINIMUM SQUARED_DIFFERENCE FLOOR_DIV FLOOR_MOD POW".split()
OPERATORS = (*UNARY, *BINARY)
DTYPES = ("float32", "int8", "uint8", "int16", "int32", "int64")
QUANTIZED = {"int8": (0.05, 3), "uint8": (0.05, 128), "int16": (0.001, 0)}
"""Element type -> (scale, zero point) of its tensors (int16: symmetric, as LiteRT requires)."""
SHAPE = (1, 4, 3)


def single_op_model(path: Path, op: str, dtype: str) -> Path:
    """``op`` over ``SHAPE`` tensors of ``dtype`` (binary operators: two inputs)."""
    b = LiteRTModelBuilder()
    q = QUANTIZED.get(dtype)
    quant = None if q is None else (np.array([q[0]], np.float32), np.array([q[1]], np.int64), 0)
    inputs = [b.add_tensor(f"x{i}", SHAPE, dtype, quantization=quant) for i in range(1 + (op in BINARY))]
    out_quant = quant
    if op in ("LOGISTIC", "SOFTMAX") and dtype in ("int8", "uint8", "int16"):
        # LiteRT fixes these outputs' quantization: 1/256 (1/32768), zero point -128 / 0 / 0.
        scale = 1 / 32768 if dtype == "int16" else 1 / 256
        zero = -128 if dtype == "int8" else 0
        out_quant = (np.array([scale], np.float32), np.array([zero], np.int64), 0)
    if op == "LOG_SOFTMAX" and dtype in ("int8", "uint8"):
        out_quant = (
            np.array([16 / 256], np.float32),
            np.array([127 if dtype == "int8" else 255], np.int64),
            0,
        )
    if op == "TANH" and dtype in ("int8", "uint8", "int16"):
        scale = 1 / 32768 if dtype == "int16" else 1 / 128
        out_quant = (np.array([scale], np.float32), np.array([0 if dtype != "uint8" else 128], np.int64), 0)
    y = b.add_tensor("y", SHAPE, dtype, quantization=out_quant)
    b.add_operator(op, inputs, [y], _options(op))
    b.set_inputs(inputs)
    b.set_outputs([y])
    return b.save(path)


def _options(op: str):
    from helia_aot.litert import schema_py_generated as litert

    if op == "SOFTMAX":
        o = litert.SoftmaxOptionsT()
        o.beta = 1.0
        return o
    if op == "LEAKY_RELU":
        o = litert.LeakyReluOptionsT()
        o.alpha = 0.2
        return o
    return None


def reference_runs(path: Path) -> bool:
    """Whether LiteRT's reference resolver prepares and invokes the model on random data."""
    try:
        interpreter = Interpreter(
            model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
        )
        interpreter.allocate_tensors()
        rng = np.random.default_rng(0)
        for detail in interpreter.get_input_details():
            dtype = np.dtype(detail["dtype"])
            if dtype.kind == "f":
                value = rng.uniform(0.5, 2.0, detail["shape"]).astype(dtype)
            else:
                info = np.iinfo(dtype)
                value = rng.integers(max(info.min, -100), min(info.max, 100), detail["shape"]).astype(dtype)
                value[value == 0] = 1  # DIV, FLOOR_DIV and FLOOR_MOD by zero
            interpreter.set_tensor(detail["index"], value)
        interpreter.invoke()
    except (RuntimeError, ValueError):
        return False
    return True


def div_quantized_model(
    path: Path,
    dtype: str,
    shapes: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
    quant: tuple[tuple[float, int], tuple[float, int], tuple[float, int]],
    activation: int = 0,
) -> Path:
    """One quantized DIV: inputs of ``shapes[0]`` and ``shapes[1]`` (broadcast) into ``shapes[2]``,
    each tensor with its (scale, zero point)."""
    from helia_aot.litert import schema_py_generated as litert

    b = LiteRTModelBuilder()
    tensors = [
        b.add_tensor(name, shape, dtype, quantization=(np.array([s], np.float32), np.array([z], np.int64), 0))
        for name, shape, (s, z) in zip(("x", "y", "out"), shapes, quant)
    ]
    options = litert.DivOptionsT()
    options.fusedActivationFunction = activation
    b.add_operator("DIV", tensors[:2], [tensors[2]], options)
    b.set_inputs(tensors[:2])
    b.set_outputs([tensors[2]])
    return b.save(path)


def div_golden(model: Path, samples: int, seed: int, target: Path) -> Path:
    """Golden npz of ``samples`` random inputs over the whole integer range (a divisor equal to
    its zero point, which LiteRT does not define, moved by one) through the reference kernels."""
    rng = np.random.default_rng(seed)
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()
    inputs: list[list[np.ndarray]] = [[], []]
    outputs = []
    for _ in range(samples):
        for i, detail in enumerate(details):
            dtype = np.dtype(detail["dtype"])
            info = np.iinfo(dtype)
            value = rng.integers(info.min, info.max, detail["shape"], endpoint=True).astype(dtype)
            if i == 1:
                zero = int(detail["quantization_parameters"]["zero_points"][0])
                value[value.astype(np.int64) == zero] = zero + 1
            interpreter.set_tensor(detail["index"], value)
            inputs[i].append(value)
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).copy())
    np.savez(target, input_0=np.stack(inputs[0]), input_1=np.stack(inputs[1]), output_0=np.stack(outputs))
    return target


DIV_CASES = {
    "int8_same_shape": ("int8", ((2, 3, 4), (2, 3, 4), (2, 3, 4)), ((0.05, 3), (0.02, -5), (0.1, 2)), 0),
    "int8_broadcast_relu": (
        "int8",
        ((2, 3, 4), (1, 1, 4), (2, 3, 4)),
        ((0.1, -20), (0.03, 10), (0.07, -9)),
        1,
    ),
    "int8_wide_quotients_relu6": ("int8", ((5, 7), (5, 7), (5, 7)), ((0.5, 0), (0.004, 0), (0.02, 0)), 3),
    "int16_broadcast": ("int16", ((2, 3, 4), (2, 1, 4), (2, 3, 4)), ((0.001, 0), (0.0005, 0), (0.004, 0)), 0),
}
"""name -> (element type, shapes, (scale, zero point) per tensor, fused activation code)."""


NARROW_INTEGER_CASES = (
    ("NEG", "int8"),
    ("NEG", "int16"),
    ("NEG", "int64"),
    ("FLOOR_DIV", "int8"),
    ("FLOOR_DIV", "int16"),
    ("FLOOR_MOD", "int8"),
    ("FLOOR_MOD", "int16"),
    ("FLOOR_MOD", "int64"),
    ("SQUARED_DIFFERENCE", "int32"),
)
"""Pairs that convert since issue 31 and compute on the stored integers (``hk_math_narrow``)."""


UINT8_SHIFTED = tuple(
    (op, "uint8")
    for op in (
        "RELU RELU6 RELU_N1_TO_1 RELU_0_TO_1 LOGISTIC TANH HARD_SWISH GELU LEAKY_RELU LOG_SOFTMAX "
        "SOFTMAX ADD SUB MUL DIV MAXIMUM MINIMUM"
    ).split()
)
"""uint8 pairs that convert since issue 31 through the int8 kernels (the UINT8_AS_INT8 transform)."""


def uint8_golden(model: Path, samples: int, seed: int, target: Path) -> Path:
    """Golden npz of ``samples`` inputs over the whole uint8 range (0 and 255 included) through
    the reference kernels; a second input is a divisor, so its zero point (a real 0) is moved."""
    rng = np.random.default_rng(seed)
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()
    inputs: list[list[np.ndarray]] = [[] for _ in details]
    outputs = []
    for _ in range(samples):
        for i, detail in enumerate(details):
            value = rng.integers(0, 255, detail["shape"], endpoint=True).astype(np.uint8)
            value.flat[0], value.flat[-1] = 0, 255
            if i == 1:
                zero = int(detail["quantization_parameters"]["zero_points"][0])
                value[value.astype(np.int64) == zero] = zero + 1
            interpreter.set_tensor(detail["index"], value)
            inputs[i].append(value)
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).copy())
    arrays = {f"input_{i}": np.stack(values) for i, values in enumerate(inputs)}
    np.savez(target, **arrays, output_0=np.stack(outputs))
    return target


def integer_golden(model: Path, samples: int, seed: int, target: Path) -> Path:
    """Golden npz of ``samples`` random integer inputs through the reference kernels: int8 and
    int16 over their whole range (the extremes included), wider types over +-100000; a second
    input is a divisor, so zeros become 1."""
    rng = np.random.default_rng(seed)
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()
    inputs: list[list[np.ndarray]] = [[] for _ in details]
    outputs = []
    for _ in range(samples):
        for i, detail in enumerate(details):
            dtype = np.dtype(detail["dtype"])
            info = np.iinfo(dtype)
            lo, hi = max(info.min, -100000), min(info.max, 100000)
            value = rng.integers(lo, hi, detail["shape"], endpoint=True).astype(dtype)
            value.flat[0], value.flat[-1] = lo, hi
            if i == 1:
                value[value == 0] = 1
                value.flat[1] = -1
            interpreter.set_tensor(detail["index"], value)
            inputs[i].append(value)
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).copy())
    arrays = {f"input_{i}": np.stack(values) for i, values in enumerate(inputs)}
    np.savez(target, **arrays, output_0=np.stack(outputs))
    return target
