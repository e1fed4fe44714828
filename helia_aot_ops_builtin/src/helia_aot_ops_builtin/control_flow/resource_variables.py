"""Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE) made into state.

A streaming model keeps its window in resource variables: a VAR_HANDLE names a variable by
``container``/``shared_name`` and yields a RESOURCE tensor, READ_VARIABLE and ASSIGN_VARIABLE
read and overwrite the variable through that handle, and CALL_ONCE runs an initialisation
subgraph (assigning each variable its first value) the first time the model is invoked.

Generated C has no handles and no subgraph calls, so this LiteRT model hook (run at Load, before
the model is read into AIR) turns that pattern into what the rest of the compiler already knows,
a LiteRT *variable tensor* (``is_variable``, persistent state):

- the init subgraphs CALL_ONCE names are evaluated here, at conversion time: they assign
  constants, possibly after simple elementwise arithmetic, which :func:`_evaluate_init` runs;
- in every other subgraph, the RESOURCE tensor of a variable's first VAR_HANDLE becomes the
  variable itself (the element type, shape and quantization of the values assigned to it),
  its buffer holding the initial value; every other handle of that variable is redirected to it;
- the VAR_HANDLE and CALL_ONCE nodes are removed (every other operator keeps its index in the
  file: Load marked them before the hooks ran, see ``helia_aot.converters.litert.source_indices``).

READ_VARIABLE and ASSIGN_VARIABLE then remain, reading and writing a persistent tensor
(``control_flow/variables.py``); ``<prefix>_model_init`` and ``<prefix>_model_reset_state`` put the initial
values into the persistent arena.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import buffer_data, tensor_dtype
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert.objects import BufferT

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

HANDLE_KEYS = frozenset({"VAR_HANDLE", "CALL_ONCE"})
"""Operators the hook removes: what they did is folded into the variable tensors."""

VariableKey = tuple[str, str]
"""A variable's identity: ``(container, shared_name)`` of its VAR_HANDLE."""


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class InitialValue:
    """A variable's value after its init subgraph: the array and the tensor it was assigned from
    (whose element type, shape and quantization the variable takes)."""

    value: np.ndarray
    tensor: litert.TensorT


def _text(value: object) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return "" if value is None else str(value)


def variable_key(op: litert.OperatorT) -> VariableKey:
    """``(container, shared_name)`` of a VAR_HANDLE node."""
    options = op.builtinOptions
    return (_text(getattr(options, "container", b"")), _text(getattr(options, "sharedName", b"")))


def variable_name(key: VariableKey) -> str:
    """How reports and errors name a variable: its shared name, prefixed by a non-empty container."""
    container, shared = key
    return f"{container}/{shared}" if container else shared


# Elementwise arithmetic an init subgraph may apply to constants (float or plain integers only:
# quantized arithmetic needs the kernels' rescaling, which an initial value never uses).
_ARITHMETIC: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "ADD": np.add,
    "SUB": np.subtract,
    "MUL": np.multiply,
    "MAXIMUM": np.maximum,
    "MINIMUM": np.minimum,
}


def _fail(where: str, message: str) -> UnsupportedModelError:
    return UnsupportedModelError(
        f"{where}: {message}",
        hint="initialise resource variables with constants (optionally after ADD, SUB, MUL, "
        "MAXIMUM or MINIMUM on float or unquantized integer constants)",
    )


def _evaluate_init(model: litert.ModelT, index: int, initial: dict[VariableKey, InitialValue]) -> None:
    """Run init subgraph ``index`` with numpy, recording each variable's assigned value."""
    subgraph = sa.subgraphs_of(model)[index]
    tensors = sa.tensors_of(subgraph)
    values: dict[int, np.ndarray] = {}
    handles: dict[int, VariableKey] = {}

    def value_of(tensor_index: int, where: str) -> np.ndarray:
        if tensor_index in values:
            return values[tensor_index]
        data = buffer_data(model, sa.tensor_at(subgraph, tensor_index))
        if data is None:
            raise _fail(where, f"tensor {tensor_index} is neither a constant nor computed before")
        values[tensor_index] = data
        return data

    for position, op in enumerate(sa.operators_of(subgraph)):
        key = sa.op_key(model, op)
        where = f"the CALL_ONCE init subgraph {index}, operator #{position} ({key})"
        inputs, outputs = sa.inputs_of(op), sa.outputs_of(op)
        if key == "VAR_HANDLE":
            handles[outputs[0]] = variable_key(op)
        elif key == "ASSIGN_VARIABLE":
            value = value_of(inputs[1], where)
            initial[handles[inputs[0]]] = InitialValue(np.array(value), tensors[inputs[1]])
        elif key == "READ_VARIABLE":
            variable = handles[inputs[0]]
            if variable not in initial:
                raise _fail(where, f"reads {variable_name(variable)!r} before it is assigned")
            values[outputs[0]] = initial[variable].value
        elif key in _ARITHMETIC:
            out = tensors[outputs[0]]
            options = op.builtinOptions
            if int(getattr(options, "fusedActivationFunction", 0) or 0) != 0:
                raise _fail(where, "a fused activation is not evaluated at conversion time")
            if (
                out.quantization is not None
                and out.quantization.scale is not None
                and len(out.quantization.scale)
            ):
                raise _fail(where, "quantized arithmetic is not evaluated at conversion time")
            result = _ARITHMETIC[key](value_of(inputs[0], where), value_of(inputs[1], where))
            values[outputs[0]] = result.astype(tensor_dtype(out.type).numpy)
        else:
            raise _fail(where, f"{key} is not evaluated at conversion time")


def _is_quantized(tensor: litert.TensorT) -> bool:
    q = tensor.quantization
    return q is not None and q.scale is not None and len(q.scale) > 0


def _int32_vector(values: Sequence[int]) -> list[int]:
    """An int32 vector field's value as a numpy array, typed as the list flatc's annotations
    declare (the bindings' ``Pack`` takes either; the readers here make arrays)."""
    return cast("list[int]", np.array(values, dtype=np.int32))


def _make_variable(
    model: litert.ModelT,
    tensor: litert.TensorT,
    template: litert.TensorT,
    value: np.ndarray | None,
) -> None:
    """Turn the RESOURCE ``tensor`` into a variable tensor shaped like ``template``, starting from
    ``value`` (None: from zeros)."""
    tensor.type = template.type
    tensor.shape = _int32_vector(sa.shape_of(template))
    tensor.shapeSignature = None
    tensor.quantization = copy.deepcopy(template.quantization) if _is_quantized(template) else None
    tensor.isVariable = True
    if value is None:
        tensor.buffer = 0
        return
    dtype = tensor_dtype(template.type).numpy
    buffer = BufferT()
    buffer.data = np.frombuffer(np.ascontiguousarray(value, dtype=dtype).tobytes(), dtype=np.uint8).copy()
    if model.buffers is None:
        model.buffers = [BufferT()]
    model.buffers.append(buffer)
    tensor.buffer = len(model.buffers) - 1


def _rewrite_subgraph(
    model: litert.ModelT, index: int, subgraph: litert.SubGraphT, initial: dict[VariableKey, InitialValue]
) -> None:
    operators = sa.operators_of(subgraph)
    tensors = sa.tensors_of(subgraph)
    handle_of: dict[int, VariableKey] = {}
    first_handle: dict[VariableKey, int] = {}
    for op in operators:
        if sa.op_key(model, op) == "VAR_HANDLE":
            handle = variable_key(op)
            (out,) = sa.outputs_of(op)
            handle_of[out] = handle
            first_handle.setdefault(handle, out)
    if not handle_of:
        return
    # Every value a variable takes in this subgraph: it must keep one type and size.
    seen: dict[VariableKey, list[tuple[litert.TensorT, str]]] = {}
    kept: list[litert.OperatorT] = []
    for position, op in enumerate(operators):
        key = sa.op_key(model, op)
        if key in HANDLE_KEYS:
            continue
        inputs = sa.inputs_of(op)
        if key in ("READ_VARIABLE", "ASSIGN_VARIABLE") and inputs and inputs[0] in handle_of:
            variable = handle_of[inputs[0]]
            value = sa.outputs_of(op)[0] if key == "READ_VARIABLE" else inputs[1]
            seen.setdefault(variable, []).append((tensors[value], f"operator #{position} ({key})"))
        op.inputs = _int32_vector([first_handle[handle_of[t]] if t in handle_of else t for t in inputs])
        kept.append(op)
    for variable, tensor_index in first_handle.items():
        init = initial.get(variable)
        uses = seen.get(variable, [])
        template = init.tensor if init is not None else (uses[0][0] if uses else None)
        name = variable_name(variable)
        if template is None:
            raise UnsupportedModelError(
                f"subgraph {index}: resource variable {name!r} is neither initialised nor used, so "
                "its type and shape are unknown",
                hint="remove the unused VAR_HANDLE, or assign the variable in its CALL_ONCE init subgraph",
            )
        want = (int(template.type), int(np.prod(sa.shape_of(template), dtype=np.int64)))
        for tensor, where in uses:
            got = (int(tensor.type), int(np.prod(sa.shape_of(tensor), dtype=np.int64)))
            if got != want:
                raise UnsupportedModelError(
                    f"subgraph {index}, {where}: resource variable {name!r} holds "
                    f"{sa.tensor_type_name(want[0])}[{want[1]}] but is used as "
                    f"{sa.tensor_type_name(got[0])}[{got[1]}]",
                    hint="a variable keeps one element type and size; re-export the model",
                )
        _make_variable(model, tensors[tensor_index], template, None if init is None else init.value)
        tensors[tensor_index].name = name  # reports name the variable by its shared name
    for tensor_index, variable in handle_of.items():
        if tensor_index != first_handle[variable]:
            # A second handle of the same variable: no operator refers to it any more.
            _make_variable(model, tensors[tensor_index], tensors[first_handle[variable]], None)
            tensors[tensor_index].isVariable = False
    subgraph.operators = kept


def resolve_resource_variables(model: litert.ModelT) -> None:
    """The ``litert_model_hooks`` entry: resource variables become initialised variable tensors.

    A model without VAR_HANDLE is left untouched. Raises UnsupportedModelError for an init
    subgraph doing more than constant arithmetic, or a variable used with two types or sizes.
    """
    subgraphs = sa.subgraphs_of(model)
    keys = [[sa.op_key(model, op) for op in sa.operators_of(sg)] for sg in subgraphs]
    if not any("VAR_HANDLE" in k or "CALL_ONCE" in k for k in keys):
        return
    init_subgraphs: list[int] = []
    for sg, sg_keys in zip(subgraphs, keys):
        for op, key in zip(sa.operators_of(sg), sg_keys):
            if key == "CALL_ONCE":
                target = int(getattr(op.builtinOptions, "initSubgraphIndex", -1))
                if not 0 <= target < len(subgraphs):
                    raise UnsupportedModelError(
                        f"CALL_ONCE names init subgraph {target}, but the model has {len(subgraphs)}",
                        hint="the model file is malformed; re-export it with the LiteRT converter",
                    )
                if target not in init_subgraphs:
                    init_subgraphs.append(target)
    initial: dict[VariableKey, InitialValue] = {}
    for target in init_subgraphs:
        _evaluate_init(model, target, initial)
    for index, subgraph in enumerate(subgraphs):
        if index not in init_subgraphs:
            _rewrite_subgraph(model, index, subgraph, initial)


__all__ = ["HANDLE_KEYS", "InitialValue", "resolve_resource_variables", "variable_key", "variable_name"]
