"""Inputs of unknown size: naming them, and fixing their shapes at conversion (``model.input_shapes``).

An exporter writes a dimension it does not know as -1 in the tensor's ``shape_signature`` and a
placeholder (usually 1) in its ``shape``; LiteRT allocates the placeholder until the application
calls ``resize_tensor_input``. A module is generated for one static shape. A dynamic *batch* (a
leading -1 of a tensor of rank 2 or more) runs as one sample, as before; any other unknown
dimension is a size the user has to choose:

- :func:`dynamic_inputs` lists the inputs that still have one (after ``model.input_shapes``);
  when a model does not convert at the placeholder shapes, :func:`dynamic_shape_error` turns the
  error into a :class:`~helia_aot.errors.DynamicShapeError` that names each such input and the
  ``--model.input-shapes`` flag that fixes it.
- :func:`fix_input_shapes` applies ``model.input_shapes`` to the file's model: each named input
  gets its shape, and every tensor of the subgraph the shape LiteRT's own shape propagation gives
  it (the reference interpreter resizes the inputs, prepares every operator and runs once, so
  shapes computed from other shapes are known too). What the module computes then matches
  LiteRT run with ``resize_tensor_input`` to the same shapes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from helia_aot.converters.litert import schema_access as sa
from helia_aot.errors import (
    DynamicShapeError,
    InvalidConfigError,
    ReferenceExecutionError,
    UnsupportedModelError,
)

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


@dataclass(frozen=True, slots=True)
class DynamicInput:
    """A subgraph input with unknown dimensions: its position, name, stored shape and signature."""

    position: int
    name: str
    shape: tuple[int, ...]
    signature: tuple[int, ...]

    def flag(self) -> str:
        """The ``--model.input-shapes`` value that would fix it at the stored shape's size."""
        return f"{self.name}={','.join(str(d) for d in self.shape)}"

    def sentence(self) -> str:
        return (
            f"model input {self.position} {self.name!r} has the dynamic shape {list(self.signature)} "
            f"(stored as {list(self.shape)})"
        )


def _signature(tensor: litert.TensorT) -> tuple[int, ...]:
    sig = getattr(tensor, "shapeSignature", None)
    return tuple(int(d) for d in sig) if sig is not None and len(sig) else ()


def _is_dynamic(signature: tuple[int, ...]) -> bool:
    """Whether a signature has an unknown dimension beyond a dynamic batch."""
    return any(d < 0 for position, d in enumerate(signature) if position > 0 or len(signature) == 1)


def _inputs(model: litert.ModelT, subgraph_index: int) -> list[tuple[int, int, litert.TensorT]]:
    subgraph = sa.subgraphs_of(model)[subgraph_index]
    return [
        (position, int(index), sa.tensor_at(subgraph, int(index)))
        for position, index in enumerate(sa.subgraph_inputs(subgraph))
    ]


def dynamic_inputs(model: litert.ModelT, subgraph_index: int) -> list[DynamicInput]:
    """The inputs of subgraph ``subgraph_index`` whose signature still has an unknown dimension
    other than a dynamic batch (an input ``fix_input_shapes`` fixed has none)."""
    if not 0 <= subgraph_index < len(sa.subgraphs_of(model)):
        return []  # Load names the missing subgraph
    found = []
    for position, _index, tensor in _inputs(model, subgraph_index):
        signature = _signature(tensor)
        if _is_dynamic(signature):
            shape = tuple(int(d) for d in sa.shape_of(tensor))
            found.append(DynamicInput(position, sa.name_of(tensor), shape, signature))
    return found


def dynamic_shape_error(error: UnsupportedModelError, inputs: Sequence[DynamicInput]) -> DynamicShapeError:
    """``error`` (the model does not convert at the stored shapes) as a DynamicShapeError naming
    ``inputs`` and the fix; its details stay the error's, so ``check`` places them as before."""
    named = "; ".join(i.sentence() for i in inputs)
    flags = ";".join(i.flag() for i in inputs)
    return DynamicShapeError(
        f"{error.message}\n  {named}: the model was read at the stored shape, which its graph "
        "does not accept",
        hint=f"give the input its real shape with --model.input-shapes '{flags}' (with your sizes; "
        "model.input_shapes in YAML or ConvertArgs)",
        details=error.details,
    )


def _requested(
    model: litert.ModelT, subgraph_index: int, input_shapes: Mapping[str, Sequence[int]]
) -> dict[int, tuple[int, ...]]:
    """Input tensor index -> requested shape, each checked against the input's signature."""
    by_name = {sa.name_of(tensor): (index, tensor) for _p, index, tensor in _inputs(model, subgraph_index)}
    wanted: dict[int, tuple[int, ...]] = {}
    for name, dims in input_shapes.items():
        if name not in by_name:
            raise InvalidConfigError(
                f"model.input_shapes names {name!r}, which is not an input of subgraph {subgraph_index}",
                hint="the inputs are " + ", ".join(repr(n) for n in by_name),
            )
        index, tensor = by_name[name]
        shape = tuple(int(d) for d in dims)
        signature = _signature(tensor) or tuple(int(d) for d in sa.shape_of(tensor))
        if len(shape) != len(signature) or any(s >= 0 and s != d for s, d in zip(signature, shape)):
            raise InvalidConfigError(
                f"model.input_shapes gives input {name!r} the shape {list(shape)}, which its "
                f"signature {list(signature)} does not allow",
                hint="keep the rank and every known dimension; choose only the -1 ones",
            )
        wanted[index] = shape
    return wanted


def _propagated(
    data: bytes, subgraph_index: int, wanted: Mapping[int, tuple[int, ...]]
) -> dict[int, tuple[int, ...]]:
    """Tensor index -> shape after LiteRT resizes ``wanted`` inputs, prepares and runs once."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError as exc:
        raise ReferenceExecutionError(
            "model.input_shapes propagates the shapes with the LiteRT reference interpreter, "
            "which is not installed",
            hint="pip install 'helia-aot-core[reference]'",
        ) from exc
    if subgraph_index != 0:
        raise InvalidConfigError(
            f"model.input_shapes applies to subgraph 0, not {subgraph_index}",
            hint="convert subgraph 0, or export the subgraph as a model of its own",
        )
    try:
        interpreter = Interpreter(
            model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF
        )
        for index, shape in wanted.items():
            interpreter.resize_tensor_input(index, list(shape), strict=False)
        interpreter.allocate_tensors()
        for detail in interpreter.get_input_details():
            interpreter.set_tensor(detail["index"], np.zeros(detail["shape"], dtype=detail["dtype"]))
        interpreter.invoke()  # shapes computed from values (SHAPE -> RESHAPE) settle here
        return {int(d["index"]): tuple(int(x) for x in d["shape"]) for d in interpreter.get_tensor_details()}
    except Exception as exc:  # the reference refuses the shapes: say so, with its words
        raise UnsupportedModelError(
            f"LiteRT cannot run the model with model.input_shapes {dict(wanted)}: {exc}",
            hint="choose shapes the model accepts (the sizes it was trained for)",
        ) from exc


def fix_input_shapes(
    model: litert.ModelT, data: bytes, subgraph_index: int, input_shapes: Mapping[str, Sequence[int]]
) -> None:
    """Give the inputs ``input_shapes`` names their shapes, and every tensor of the subgraph the
    shape LiteRT propagates to it (``data``: the model file's bytes, which the reference reads)."""
    if not input_shapes:
        return
    wanted = _requested(model, subgraph_index, input_shapes)
    shapes = _propagated(data, subgraph_index, wanted)
    for index, tensor in enumerate(sa.tensors_of(sa.subgraphs_of(model)[subgraph_index])):
        shape = shapes.get(index)
        if shape is None or not _changed(tensor, shape):
            continue
        # The object API keeps vectors as numpy arrays, as the reader made them.
        fixed: Any = np.asarray(shape, dtype=np.int32)
        tensor.shape = fixed
        tensor.shapeSignature = fixed.copy()


def _changed(tensor: Any, shape: tuple[int, ...]) -> bool:
    return tuple(int(d) for d in sa.shape_of(tensor)) != shape or _is_dynamic(_signature(tensor))


__all__ = ["DynamicInput", "dynamic_inputs", "dynamic_shape_error", "fix_input_shapes"]
