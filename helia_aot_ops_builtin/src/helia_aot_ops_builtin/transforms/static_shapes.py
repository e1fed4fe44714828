"""FOLD_STATIC_SHAPE_EXPRESSIONS: shape arithmetic whose values are known becomes constants.

Models exported with a dynamic batch dimension (``shape_signature`` -1) compute their reshape
targets at run time: SHAPE of an activation, a STRIDED_SLICE taking the batch, a PACK with the
other dimensions, then RESHAPE. A module is converted for the static shape the file stores, so
every value in such a chain is known at conversion. This transform walks the operators in order,
evaluates each integer-valued operator whose inputs are all known (SHAPE needs only its input's
shape) with numpy, turns its output into a constant and removes the operator; constants nothing
reads any more are dropped. A RESHAPE's shape operand that was computed becomes a constant holding
the output's resolved shape (a -1 the expression produced is resolved), so the RESHAPE needs no
run-time input but its data.

Only int32/int64 results without quantization are folded (shape arithmetic, never activations),
and never a model output. The numpy evaluations follow the reference kernels: integer ADD, SUB,
MUL wrap as two's complement; FLOOR_DIV and FLOOR_MOD floor; DIV truncates (LiteRT's integer DIV);
STRIDED_SLICE resolves its masks as LiteRT does (:func:`resolve_strided_slice`). An operator the
evaluator cannot compute is left for its kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from helia_aot.air import AirModel, AirOperator, AirTensor, AirTensorKind, AirTensorType
from helia_aot.transforms import AirTransform

# ops.shape and ops.slice (with their operator classes and dataclasses) are imported by the two
# evaluators that need them: the transform runs on every conversion, and most models have neither
# a SHAPE nor an integer STRIDED_SLICE to fold.

_INTEGER_RESULTS = (AirTensorType.INT32, AirTensorType.INT64)
_MAX_FOLDED_ELEMENTS = 4096
"""Larger integer results stay computed at run time (a folded constant costs flash)."""

Evaluator = Callable[[AirOperator, list[np.ndarray], AirTensor], np.ndarray]


def _option(op: AirOperator, name: str, default: Any) -> Any:
    return getattr(op.options, name, default)


def _strided_slice(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    from helia_aot_ops_builtin.data_movement.slice import AirStridedSliceOptions, resolve_strided_slice

    data, begin, end, strides = values
    options = op.options if isinstance(op.options, AirStridedSliceOptions) else AirStridedSliceOptions()
    window = resolve_strided_slice(data.shape, begin.tolist(), end.tolist(), strides.tolist(), options)
    picked = data.reshape(window.shape)
    for axis, (start, count, stride) in enumerate(zip(window.starts, window.counts, window.strides)):
        picked = np.take(picked, start + stride * np.arange(count), axis=axis)
    return picked.reshape(window.output_shape)


def _slice(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    data, begin, size = values
    index = tuple(
        slice(int(b), data.shape[i] if int(s) == -1 else int(b) + int(s))
        for i, (b, s) in enumerate(zip(begin.tolist(), size.tolist()))
    )
    return data[index]


def _pack(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    return np.stack(values, axis=int(_option(op, "axis", 0)))


def _concatenation(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    if _option(op, "activation", "NONE") != "NONE":
        raise ValueError("fused activation")
    return np.concatenate(values, axis=int(_option(op, "axis", 0)))


def _same_elements(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    return values[0].reshape(out.shape)


def _gather(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    params, indices = values
    if int(_option(op, "batch_dims", 0)) != 0:
        raise ValueError("batch_dims")
    axis = int(_option(op, "axis", 0))
    if indices.size and (indices.min() < 0 or indices.max() >= params.shape[axis]):
        raise ValueError("index out of range")  # the kernel reports it at run time
    return np.take(params, indices, axis=axis)


def _cast(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
    if not np.issubdtype(values[0].dtype, np.integer):
        raise ValueError("only integer sources fold")
    return values[0].astype(np.int64).astype(out.dtype.numpy)


def _arithmetic(kind: str) -> Evaluator:
    def evaluate(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
        if _option(op, "activation", "NONE") != "NONE":
            raise ValueError("fused activation")
        a, b = (v.astype(np.int64) for v in values)
        if kind in ("FLOOR_DIV", "FLOOR_MOD", "DIV") and np.any(b == 0):
            raise ValueError("division by zero")  # left for the kernel to report
        operations: dict[str, Callable[[], np.ndarray]] = {
            "ADD": lambda: a + b,
            "SUB": lambda: a - b,
            "MUL": lambda: a * b,
            "MAXIMUM": lambda: np.maximum(a, b),
            "MINIMUM": lambda: np.minimum(a, b),
            "FLOOR_DIV": lambda: np.floor_divide(a, b),
            "FLOOR_MOD": lambda: np.mod(a, b),
            "DIV": lambda: np.trunc(a / b).astype(np.int64),
        }
        result = operations[kind]()
        return result.astype(out.dtype.numpy)  # wraps as the int32 kernels do

    return evaluate


def _reduce(kind: str) -> Evaluator:
    def evaluate(op: AirOperator, values: list[np.ndarray], out: AirTensor) -> np.ndarray:
        data, axes = values
        axis = tuple(sorted({int(a) % data.ndim for a in axes.reshape(-1)})) if data.ndim else None
        reduced = np.prod(data.astype(np.int64), axis=axis) if kind == "prod" else np.sum(data, axis=axis)
        return np.asarray(reduced).astype(out.dtype.numpy).reshape(out.shape)

    return evaluate


EVALUATORS: dict[str, Evaluator] = {
    "STRIDED_SLICE": _strided_slice,
    "SLICE": _slice,
    "PACK": _pack,
    "CONCATENATION": _concatenation,
    "RESHAPE": _same_elements,
    "SQUEEZE": _same_elements,
    "EXPAND_DIMS": _same_elements,
    "GATHER": _gather,
    "CAST": _cast,
    "REDUCE_PROD": _reduce("prod"),
    "SUM": _reduce("sum"),
    **{
        k: _arithmetic(k)
        for k in ("ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM", "FLOOR_DIV", "FLOOR_MOD", "DIV")
    },
}
"""Operator type -> numpy evaluation of one operator on known input values."""


def _foldable_output(model: AirModel, op: AirOperator) -> AirTensor | None:
    if len(op.output_ids) != 1 or op.output_ids[0] in model.outputs:
        return None
    out = model.tensors[op.output_ids[0]]
    if out.dtype not in _INTEGER_RESULTS or out.quantization is not None or out.size > _MAX_FOLDED_ELEMENTS:
        return None
    return out


def _evaluate(model: AirModel, op: AirOperator, out: AirTensor) -> np.ndarray | None:
    inputs = [model.tensors[t] if t else None for t in op.input_ids]
    if op.op_type == "SHAPE":
        from helia_aot_ops_builtin.data_movement.shape import shape_value

        return shape_value(inputs[0].shape, out.dtype) if inputs and inputs[0] is not None else None
    evaluate = EVALUATORS.get(op.op_type)
    if evaluate is None or any(t is None or not t.is_constant or t.data is None for t in inputs):
        return None
    values = [np.asarray(t.data).reshape(t.shape) for t in inputs if t is not None]
    try:
        with np.errstate(over="ignore"):
            result = np.asarray(evaluate(op, values, out))
    except (ValueError, IndexError, TypeError, KeyError, ArithmeticError):
        # Malformed or unusual operands: the operator stays, and its own checks at Resolve name
        # what is wrong with it.
        return None
    if result.size != out.size:
        return None
    return np.ascontiguousarray(result.astype(out.dtype.numpy).reshape(out.shape))


def _fold_reshape_target(model: AirModel, op: AirOperator) -> bool:
    """Give a RESHAPE whose shape operand is a folded constant the output's resolved shape."""
    if op.op_type != "RESHAPE" or len(op.input_ids) < 2 or not op.input_ids[1]:
        return False
    target = model.tensors[op.input_ids[1]]
    out = model.tensors[op.output_ids[0]]
    if not target.is_constant or target.data is None or target.size != len(out.shape):
        return False
    resolved = np.asarray(out.shape, dtype=target.dtype.numpy)
    if np.array_equal(np.asarray(target.data).reshape(-1), resolved):
        return False
    target.data = resolved.reshape(target.shape)
    return True


class FoldStaticShapeExpressions(AirTransform):
    """The FOLD_STATIC_SHAPE_EXPRESSIONS transform (see the module docstring); takes no options."""

    NAME = "FOLD_STATIC_SHAPE_EXPRESSIONS"
    OPTIONS = None
    ORDER = 10
    ENABLED_BY_DEFAULT = True

    def __init__(self, options: Any = None, *, enabled: bool = True) -> None:
        self.options = options
        self.enabled = enabled
        self.folded: list[str] = []
        """Ids of the operators the last ``apply`` replaced by constants, in graph order."""

    def apply(self, model: AirModel, context: Any = None) -> AirModel:
        del context
        self.folded = []
        folded_targets: set[str] = set()
        kept: list[AirOperator] = []
        for op in model.operators:
            out = _foldable_output(model, op)
            value = _evaluate(model, op, out) if out is not None else None
            if out is None or value is None:
                kept.append(op)
                continue
            out.kind = AirTensorKind.CONSTANT
            out.data = value
            folded_targets.add(out.id)
            self.folded.append(op.id)
        self.rewrote = bool(self.folded)  # tells the Transform stage whether to verify
        if not self.folded:
            return model
        model.operators = kept
        for op in kept:
            if op.op_type == "RESHAPE" and len(op.input_ids) > 1 and op.input_ids[1] in folded_targets:
                _fold_reshape_target(model, op)
        used = {
            t for op in model.operators for t in (*op.input_ids, *op.output_ids, *op.named_tensors.values())
        }
        used.update(model.inputs)
        used.update(model.outputs)
        for tid in [t for t, tensor in model.tensors.items() if tensor.is_constant and t not in used]:
            del model.tensors[tid]
        model.metadata.setdefault("folded_shape_expressions", []).extend(self.folded)
        return model
