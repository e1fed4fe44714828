"""Reading an unpacked LiteRT model into its checked :class:`~helia_aot.converters.litert.view.ModelView`.

This is the one pass over the object API: the chosen subgraph is picked, each tensor's type,
shape, constant data and quantization are decoded and checked, the subgraph's inputs and outputs
are checked to name tensors, and each operator gets its canonical key and passes
:func:`~helia_aot.converters.litert.validate.check_operator`. What comes out needs no further
checking; what is wrong in the file is a typed error raised here, in file order (tensors, then
the subgraph's inputs and outputs, then operators), before any operator parser runs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from helia_aot.air.types import AirTensorType
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import (
    MAX_TENSOR_BYTES,
    buffer_data,
    element_count,
    quantization_of,
    tensor_dtype,
)
from helia_aot.converters.litert.source_indices import source_index, subgraph_is_marked
from helia_aot.converters.litert.validate import check_operator, empty_tensors_allowed
from helia_aot.converters.litert.view import Arity, ModelView, OperatorView, SubgraphView, TensorView
from helia_aot.errors import HeliaAotError, InvalidConfigError, ModelLoadError, UnsupportedModelError

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_MALFORMED_HINT = "the model file is malformed; re-export it with the LiteRT converter"


# Every unsupported tensor and operator of a subgraph is collected into one error: a model a user
# tries is often refused for several reasons at once (a RESOURCE tensor and an INT4 weight), and
# stopping at the first would make ``helia-aot check`` and ``convert`` report one at a time. Each
# UnsupportedModelError is kept with the operators that read or write the tensor; the error's
# ``details`` list one mapping per problem so ``check`` puts each on its operator's row. A
# malformed file (ModelLoadError) is not collected: nothing after it can be trusted.


@dataclass(frozen=True, slots=True)
class ViewProblem:
    """One reason the subgraph cannot convert: ``tensor`` (its index, or None for an operator's
    own problem), ``operators`` ((file index, key) of the operators it concerns), ``reason``
    (the error's message) and ``hint``."""

    tensor: int | None
    operators: tuple[tuple[int, str], ...]
    reason: str
    hint: str | None

    def line(self) -> str:
        """The problem as one line, naming the operators that use the tensor."""
        if self.tensor is None or not self.operators:
            return self.reason
        used = ", ".join(f"#{index} {key}" for index, key in self.operators)
        return f"{self.reason} (used by {used})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tensor": self.tensor,
            "operators": [{"index": index, "key": key} for index, key in self.operators],
            "reason": self.reason,
        }


class ViewProblems:
    """The problems found so far in one subgraph of ``model`` (falsy while there are none)."""

    def __init__(self, model: litert.ModelT, subgraph: litert.SubGraphT) -> None:
        self.model = model
        self.subgraph = subgraph
        self.found: list[ViewProblem] = []

    def __bool__(self) -> bool:
        return bool(self.found)

    def _operator(self, position: int) -> tuple[int, str]:
        node = sa.operators_of(self.subgraph)[position]
        index = source_index(node) if subgraph_is_marked(self.subgraph) else position
        try:
            key = sa.op_key(self.model, node)
        except HeliaAotError:  # a malformed code: the operator check names it later
            key = "?"
        return (position if index is None else index), key

    def add_tensor(self, index: int, error: UnsupportedModelError) -> None:
        """Tensor ``index`` is unsupported: recorded with every operator that reads or writes it."""
        users = [
            self._operator(position)
            for position, node in enumerate(sa.operators_of(self.subgraph))
            if index in (*sa.inputs_of(node), *sa.outputs_of(node), *sa.intermediates_of(node))
        ]
        self.found.append(ViewProblem(index, tuple(users), error.message, error.hint))

    def add_operator(self, position: int, error: UnsupportedModelError) -> None:
        """The operator at ``position`` is unsupported as wired (its tensors' sizes, say)."""
        self.found.append(ViewProblem(None, (self._operator(position),), error.message, error.hint))

    def error(self) -> UnsupportedModelError:
        """One error naming every problem found; a single problem keeps its own hint."""
        lines = [problem.line() for problem in self.found]
        hints: list[str] = []
        for problem in self.found:
            if problem.hint and problem.hint not in hints:
                hints.append(problem.hint)
        if len(lines) == 1:
            message = lines[0]
        else:
            message = f"{len(lines)} problems stop the conversion:\n  " + "\n  ".join(lines)
        return UnsupportedModelError(
            message,
            hint="; ".join(hints) or None,
            details=[problem.to_dict() for problem in self.found],
        )


def _static_shape(tensor: litert.TensorT, dtype: AirTensorType, what: str) -> tuple[int, ...]:
    """The static shape, checked (before anything is allocated) to fit in MAX_TENSOR_BYTES."""
    shape = list(sa.shape_of(tensor))
    if shape and shape[0] == -1:
        shape[0] = 1  # a dynamic batch runs as one sample, as the interpreter's default shape does
    nbytes = element_count(tuple(shape), what) * dtype.itemsize
    if nbytes > MAX_TENSOR_BYTES:
        raise UnsupportedModelError(
            f"{what} needs {nbytes} bytes (shape {shape}), too many", hint="tensors must fit in 2**31 bytes"
        )
    return tuple(shape)


def tensor_view(model: litert.ModelT, index: int, tensor: litert.TensorT) -> TensorView:
    """Tensor ``index`` of a subgraph of ``model``, decoded and checked."""
    source_name = sa.name_of(tensor)
    what = f"tensor {index} ({source_name!r})"
    try:
        dtype = tensor_dtype(tensor.type)
    except UnsupportedModelError as exc:
        raise UnsupportedModelError(f"{what}: {exc.message}", hint=exc.hint) from None
    shape = _static_shape(tensor, dtype, what)
    data = buffer_data(model, tensor)
    # A variable with buffer data starts from those bytes (its initial value: what the resource
    # variable hook stores for a CALL_ONCE-initialised variable); without data it starts zeroed.
    is_variable = bool(tensor.isVariable)
    quantization = quantization_of(tensor)
    if data is None and quantization is not None and not (quantization.scale > 0).all():
        # A zero activation scale maps every value to the zero point; the requantizing
        # multipliers derived from it would divide by zero.
        raise ModelLoadError(
            f"{what} has quantization scale 0; a tensor computed at run time needs a positive scale",
            hint=_MALFORMED_HINT,
        )
    return TensorView(
        index=index,
        name=source_name,
        dtype=dtype,
        shape=shape,
        buffer=int(tensor.buffer or 0),
        data=data,
        quantization=quantization,
        is_variable=is_variable,
    )


def _empty_constant(tensor: TensorView) -> TensorView:
    """An empty tensor no operator writes, as the constant of no elements it is (LiteRT stores
    the ``[0]`` shape operand of a RESHAPE to a scalar with an empty buffer)."""
    if tensor.data is not None:
        return tensor
    return replace(tensor, data=np.zeros(tensor.shape, dtype=tensor.dtype.numpy))


def operator_view(
    model: litert.ModelT,
    index: int,
    node: litert.OperatorT,
    tensors: Sequence[TensorView],
    arities: Mapping[str, Arity] | None = None,
    may_be_empty: Collection[int] = (),
) -> OperatorView:
    """Operator ``index`` (``node``) of a subgraph of ``model`` whose checked tensors are
    ``tensors``: its canonical key, wiring and options, checked (``may_be_empty``: the tensors
    it may have although they hold no elements, see ``validate.empty_tensors_allowed``)."""
    op = OperatorView(
        index=index,
        key=sa.op_key(model, node),
        inputs=tuple(sa.inputs_of(node)),
        outputs=tuple(sa.outputs_of(node)),
        intermediates=tuple(sa.intermediates_of(node)),
        options=sa.builtin_options_of(node),
        node=node,
    )
    check_operator(op, tensors, len(sa.subgraphs_of(model)), (arities or {}).get(op.key), may_be_empty)
    return op


def _chosen_subgraph(model: litert.ModelT, subgraph_index: int, name: str) -> litert.SubGraphT:
    subgraphs = sa.subgraphs_of(model)
    if not subgraphs:
        raise UnsupportedModelError(f"{name} has no subgraphs", hint="the model is empty")
    if (
        isinstance(subgraph_index, bool)
        or not isinstance(subgraph_index, int)
        or not 0 <= subgraph_index < len(subgraphs)
    ):
        raise InvalidConfigError(
            f"subgraph index {subgraph_index!r} is out of range: {name} has {len(subgraphs)} subgraph(s)",
            hint=f"choose a subgraph from 0 to {len(subgraphs) - 1}",
        )
    subgraph = subgraphs[subgraph_index]
    if not sa.operators_of(subgraph):
        raise UnsupportedModelError(
            f"subgraph {subgraph_index} of {name} has no operators",
            hint="a model needs at least one operator to convert",
        )
    return subgraph


def subgraph_view(
    model: litert.ModelT, subgraph_index: int, arities: Mapping[str, Arity] | None = None
) -> SubgraphView:
    """Subgraph ``subgraph_index`` (an existing index) of ``model``, read and checked (``arities``:
    the operators' input and output counts the packs declare, by LiteRT key).

    Used for the main subgraph and for the subgraphs its control-flow operators run; the same
    checks apply to both, in file order (tensors, inputs and outputs, operators). What the
    compiler does not handle is collected rather than raised at the first: every tensor that is
    unsupported (its type, shape or storage), then every operator, each named with the operators
    that read or write it, in one UnsupportedModelError (see
    :class:`ViewProblems`); a malformed file still raises
    ModelLoadError at the first fault.
    """
    subgraph = sa.subgraphs_of(model)[subgraph_index]
    problems = ViewProblems(model, subgraph)
    tensors: list[TensorView] = []
    for index, tensor in enumerate(sa.tensors_of(subgraph)):
        try:
            tensors.append(tensor_view(model, index, tensor))
        except UnsupportedModelError as exc:
            problems.add_tensor(index, exc)
    inputs, outputs = sa.subgraph_inputs(subgraph), sa.subgraph_outputs(subgraph)
    for index in [*inputs, *outputs]:
        sa.tensor_at(subgraph, index)  # an out-of-range input or output is a ModelLoadError
    if problems:  # the operators' checks read their tensors: report what is known so far
        raise problems.error()
    nodes = sa.operators_of(subgraph)
    written = {int(i) for node in nodes for i in sa.outputs_of(node)}
    may_be_empty = empty_tensors_allowed(
        tensors, inputs, outputs, written, {int(i) for node in nodes for i in sa.inputs_of(node)}
    )
    tensors = [
        _empty_constant(t) if t.index in may_be_empty and t.index not in written else t for t in tensors
    ]
    operators: list[OperatorView] = []
    for index, node in enumerate(nodes):
        try:
            operators.append(operator_view(model, index, node, tensors, arities, may_be_empty))
        except UnsupportedModelError as exc:
            problems.add_operator(index, exc)
    if problems:
        raise problems.error()
    return SubgraphView(
        index=subgraph_index,
        tensors=tuple(tensors),
        operators=tuple(operators),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        node=subgraph,
    )


def build_view(
    model: litert.ModelT, subgraph_index: int, name: str, arities: Mapping[str, Arity] | None = None
) -> ModelView:
    """The checked view of subgraph ``subgraph_index`` of ``model`` (``name`` names the file in errors;
    ``arities`` the operators' input and output counts the registered packs declare).

    Raises UnsupportedModelError for an empty model or subgraph and for what the compiler does
    not handle (tensor types, dynamic shapes, sparse or external data), InvalidConfigError for a
    subgraph index out of range, and ModelLoadError for a malformed file.
    """
    _chosen_subgraph(model, subgraph_index, name)
    return ModelView(
        name=name,
        description=sa.description_of(model),
        subgraph_count=len(sa.subgraphs_of(model)),
        subgraph=subgraph_view(model, subgraph_index, arities),
        node=model,
        arities=dict(arities or {}),
    )


__all__ = ["ViewProblem", "ViewProblems", "build_view", "operator_view", "subgraph_view", "tensor_view"]
