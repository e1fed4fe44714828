"""Structural checks of a LiteRT operator before any parser sees it.

Parsers are written against well-formed files: they index tensors by the operator's inputs and read
the fields of the options class their operator takes. A hostile file breaks both assumptions, so
:func:`~helia_aot.converters.litert.view_builder.build_view` checks each node here, on the fields
it has already read, and raises :class:`~helia_aot.errors.ModelLoadError` naming the operator, so
no parser (built-in or from a plugin) meets an index out of range or an options object of the
wrong class.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence

import numpy as np

from helia_aot.air import AirModel
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.view import Arity, OperatorView, TensorView
from helia_aot.errors import ModelLoadError, UnsupportedModelError
from helia_aot.litert.schema_tables import TABLES, UNIONS

_MALFORMED_HINT = "the model file is malformed; re-export it with the LiteRT converter"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


# Operators whose options class is not named after the operator (LiteRT schema, flatbuffer_conversions).
_SHARED_OPTIONS: dict[str, str] = {
    **dict.fromkeys(("AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"), "Pool2DOptions"),
    **dict.fromkeys(
        ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ALL", "REDUCE_ANY"),
        "ReducerOptions",
    ),
    **dict.fromkeys(("MAXIMUM", "MINIMUM"), "MaximumMinimumOptions"),
    **dict.fromkeys(("RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL", "MULTINOMIAL"), "RandomOptions"),
    "L2_NORMALIZATION": "L2NormOptions",
    "UNIDIRECTIONAL_SEQUENCE_RNN": "SequenceRNNOptions",
    "CONV_3D_TRANSPOSE": "Conv3DOptions",
}


def _options_tables() -> dict[str, str]:
    """Operator name -> the schema table of its options, for every operator that has one."""
    tables: dict[str, str] = {}
    by_norm: dict[str, str] = {}
    for union in ("BuiltinOptions", "BuiltinOptions2"):
        for name in UNIONS[union].values():
            if name in TABLES:
                by_norm[_norm(name.removesuffix("Options"))] = name
    for op_name in sa.BUILTIN_NAMES.values():
        options = _SHARED_OPTIONS.get(op_name) or by_norm.get(_norm(op_name))
        if options is not None:
            tables[op_name] = options
    return tables


OPTIONS_TABLES: dict[str, str] = _options_tables()
"""Builtin operator name -> the options table LiteRT reads for it (absent: the operator has none).
Options are matched by class name (``<table>T``): the object API of :mod:`helia_aot.litert.objects`
that ``read_model`` makes, or the bindings' class a hook may have put there."""


def _check_indices(what: str, indices: Sequence[int], count: int, *, absent_ok: bool) -> None:
    for position, index in enumerate(indices):
        if index == -1 and absent_ok:
            continue
        if not 0 <= index < count:
            raise ModelLoadError(
                f"{what} {position} refers to tensor {index}, but the subgraph has {count} tensors",
                hint=_MALFORMED_HINT,
                details={"where": what, "position": position, "index": index, "count": count},
            )


def _count_text(low: int, high: int | None, noun: str) -> str:
    if high is None:
        return f"at least {low} {noun}"
    return f"{low} {noun}" if low == high else f"{low} to {high} {noun}"


def _check_arity(op: OperatorView, arity: Arity, where: str) -> None:
    inputs, outputs, key = op.inputs, op.outputs, op.key
    present = len(inputs)
    while present and present - 1 in arity.optional and inputs[present - 1] == -1:
        present -= 1  # trailing absent optional inputs count as left off
    if present < arity.min_inputs or (arity.max_inputs is not None and len(inputs) > arity.max_inputs):
        raise ModelLoadError(
            f"{where} has {len(inputs)} inputs; {key} takes "
            f"{_count_text(arity.min_inputs, arity.max_inputs, 'inputs')}",
            hint=_MALFORMED_HINT,
        )
    for position, index in enumerate(inputs):
        if index == -1 and position not in arity.optional:
            raise ModelLoadError(
                f"{where} input {position} is absent, but {key} requires it", hint=_MALFORMED_HINT
            )
    if len(outputs) < arity.min_outputs or (
        arity.max_outputs is not None and len(outputs) > arity.max_outputs
    ):
        raise ModelLoadError(
            f"{where} has {len(outputs)} outputs; {key} produces "
            f"{_count_text(arity.min_outputs, arity.max_outputs, 'outputs')}",
            hint=_MALFORMED_HINT,
        )
    if -1 in outputs:
        raise ModelLoadError(f"{where} output {outputs.index(-1)} is absent", hint=_MALFORMED_HINT)


def _check_not_empty(
    op: OperatorView, tensors: Sequence[TensorView], where: str, may_be_empty: Collection[int]
) -> None:
    """An operator's tensors have elements unless they are in ``may_be_empty``: C has no
    zero-length arrays and the kernels' geometry (channels, strides) divides by the dimensions.

    What LiteRT allows empty and no kernel here reads is let through (see
    :func:`empty_tensors_allowed`): a constant of no elements (the ``[0]`` shape operand that makes
    a RESHAPE's output a scalar), and an operator output that nothing reads. Intermediates may be
    empty too (LiteRT's LSTM keeps placeholders of shape [0]).
    """
    for role, indices in (("input", op.inputs), ("output", op.outputs)):
        for position, index in enumerate(indices):
            if index < 0 or index in may_be_empty:
                continue
            shape = tensors[index].shape
            if 0 in shape:
                raise UnsupportedModelError(
                    f"{where} {role} {position} (tensor {index}) has no elements (shape {list(shape)})",
                    hint="an empty tensor may only be a constant or an operator output that nothing "
                    "reads; give every tensor a kernel reads or a model input or output a nonzero size",
                )


def empty_tensors_allowed(
    tensors: Sequence[TensorView],
    inputs: Collection[int],
    outputs: Collection[int],
    written: Collection[int],
    read: Collection[int],
) -> frozenset[int]:
    """The empty tensors of a subgraph its operators may have (``written`` and ``read``: the
    tensors some operator writes or reads): constants (no operator writes them and they are not a
    subgraph input or a variable) and outputs no operator reads and the subgraph does not return.
    Every other tensor an operator touches must have elements."""
    boundary = {*inputs, *outputs}
    return frozenset(
        tensor.index
        for tensor in tensors
        if 0 in tensor.shape
        and tensor.index not in boundary
        and not tensor.is_variable
        and (tensor.index not in written or tensor.index not in read)
    )


def check_operator(
    op: OperatorView,
    tensors: Sequence[TensorView],
    subgraph_count: int,
    arity: Arity | None = None,
    may_be_empty: Collection[int] = (),
) -> None:
    """Reject operator ``op`` if its wiring or options are malformed.

    ``tensors`` are the subgraph's tensors (already read and checked), ``subgraph_count`` the
    number of subgraphs in the model. Input, output and intermediate indices must name tensors of
    the subgraph (``-1`` marks an absent optional input or output); a builtin operator's inputs and
    outputs are not empty (UnsupportedModelError) unless they are in ``may_be_empty``
    (:func:`empty_tensors_allowed`). An operator whose pack declared its ``arity``
    must have as many inputs and outputs as its LiteRT kernel accepts. Options, when present, must
    be of the class LiteRT reads for the operator (absent options are left to the parser: the
    LiteRT converter omits empty ones), hold finite floats, and refer only to existing subgraphs.
    """
    count = len(tensors)
    where = f"operator #{op.index} ({op.key})"
    _check_indices(f"{where} input", op.inputs, count, absent_ok=True)
    _check_indices(f"{where} output", op.outputs, count, absent_ok=True)
    _check_indices(f"{where} intermediate", op.intermediates, count, absent_ok=False)
    if sa.is_known_builtin(op.key):
        _check_not_empty(op, tensors, where, may_be_empty)
    if arity is not None:
        _check_arity(op, arity, where)
    options = op.options
    if options is None:
        return
    expected = OPTIONS_TABLES.get(op.key)
    if expected is not None and type(options).__name__ != expected + "T":
        raise ModelLoadError(
            f"{where} carries {type(options).__name__[:-1]}, but {op.key} takes {expected}",
            hint=_MALFORMED_HINT,
        )
    _check_option_values(options, subgraph_count, where)


def _check_option_values(options: object, subgraphs: int, where: str) -> None:
    """Options floats must be finite and subgraph references must name a subgraph."""
    for field, value in sorted(vars(options).items()):
        if isinstance(value, float) and not math.isfinite(value):
            raise ModelLoadError(
                f"{where} option {field} is {value}; options must be finite", hint=_MALFORMED_HINT
            )
        if "subgraph" in field.lower() and value is not None:
            for index in sa.int_list(value) if not isinstance(value, (int, np.integer)) else [value]:
                if not 0 <= int(index) < subgraphs:
                    raise ModelLoadError(
                        f"{where} option {field} refers to subgraph {int(index)}, but the model has "
                        f"{subgraphs} subgraphs",
                        hint=_MALFORMED_HINT,
                    )


def wiring_problems(air: AirModel) -> list[str]:
    """Graph shapes the AIR verifier allows but no LiteRT converter writes, as sentences.

    An operator that writes a tensor it also reads is a one-node cycle, and one that writes a
    model input overwrites what the application supplied; both would make the planner alias a
    tensor to itself.
    """
    problems = []
    model_inputs = set(air.inputs)
    for op in air.operators:
        reads = {t for t in op.input_ids if t}
        for tid in op.output_ids:
            if tid in reads:
                problems.append(
                    f"operator #{op.id} ({op.op_type}) writes tensor {tid}, which it also reads (a cycle)"
                )
            elif tid in model_inputs:
                problems.append(f"operator #{op.id} ({op.op_type}) writes the model input {tid}")
    return problems


__all__ = ["OPTIONS_TABLES", "check_operator", "empty_tensors_allowed", "wiring_problems"]
