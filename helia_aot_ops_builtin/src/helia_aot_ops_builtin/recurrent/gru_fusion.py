"""The ``fuse_rolled_gru`` LiteRT model hook: a Keras GRU exported as a WHILE loop becomes one
``GRU`` custom operator before Load, so the model needs no general control flow.

TensorFlow exports ``keras.layers.GRU`` (reset_after=True, batch 1) as RESHAPE (the sequence to
time-major) -> WHILE -> RESHAPE (the written list back to [1, steps, units]) or STRIDED_SLICE (the
last state). The hook reads the WHILE's body subgraph directly and fuses only when the body is
exactly a GRU cell: two FULLY_CONNECTED products (one of the gathered time step, one of the carried
state), each split into three gate parts, and
h = z * h + (1 - z) * tanh(x_n + r * h_n) with z, r = sigmoid(x_z + h_z), sigmoid(x_r + h_r).
The loop must run over the whole sequence from counters 0 with a constant initial state. The
three operators become one GRU operator whose custom options list their indices in the model file
(``source_indices``, from the marks Load put on every operator, so an earlier fusion or another
hook moving operators does not shift them); anything else is left to the general WHILE support.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from helia_aot.converters.litert.source_indices import mark_source_indices, source_index
from helia_aot.litert.objects import OperatorCodeT, OperatorT, TensorT
from helia_aot.litert.schema_tables import BuiltinOperator, CustomOptionsFormat, TensorType

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

_CODES = {v: k for k, v in vars(BuiltinOperator).items() if not k.startswith("_") and isinstance(v, int)}


def _op_name(model: litert.ModelT, op: litert.OperatorT) -> str:
    code = (model.operatorCodes or [])[op.opcodeIndex]
    return _CODES.get(max(int(code.builtinCode or 0), int(code.deprecatedBuiltinCode or 0)), "?")


def _ints(values: Any) -> list[int]:
    return [] if values is None else [int(v) for v in values]


def _tensor(subgraph: litert.SubGraphT, index: int) -> litert.TensorT:
    """``subgraph``'s tensor ``index``; an IndexError (the match fails) when it has none."""
    return (subgraph.tensors or [])[index]


def _options(op: litert.OperatorT, table: str) -> object:
    """``op``'s builtin options, checked to be the schema table ``table`` (by class name, so the
    bindings' and the object module's classes both pass); a ValueError otherwise, which makes the
    match fail (``_fuse_one`` leaves a loop of unexpected form alone)."""
    options = op.builtinOptions
    if type(options).__name__ != f"{table}T":
        raise ValueError(f"{table} options expected, found {type(options).__name__}")
    return options


def _const(model: litert.ModelT, subgraph: litert.SubGraphT, index: int) -> np.ndarray | None:
    """A constant tensor's values, or None when it has no data."""
    if index < 0:
        return None
    tensor = _tensor(subgraph, index)
    buffers = model.buffers or []
    data = buffers[tensor.buffer].data if tensor.buffer < len(buffers) else None
    if data is None or len(data) == 0:
        return None
    dtype = {TensorType.FLOAT32: np.float32, TensorType.INT32: np.int32}.get(tensor.type)
    if dtype is None:
        return None
    return np.frombuffer(bytes(bytearray(np.asarray(data, np.uint8))), dtype).reshape(
        _ints(tensor.shape) or ()
    )


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class _Cell:
    """What a matched body holds: input positions and the weight tensors (body indices)."""

    sequence_arg: int
    state_arg: int
    list_arg: int
    kernel: int
    kernel_bias: int
    recurrent: int
    recurrent_bias: int


class _Graph:
    """Producer lookup over one subgraph."""

    def __init__(self, model: litert.ModelT, subgraph: litert.SubGraphT) -> None:
        self.model, self.subgraph = model, subgraph
        self.producer: dict[int, litert.OperatorT] = {}
        for op in subgraph.operators or []:
            for t in _ints(op.outputs):
                self.producer[t] = op

    def op(self, tensor: int, name: str) -> litert.OperatorT | None:
        op = self.producer.get(tensor)
        return op if op is not None and _op_name(self.model, op) == name else None

    def pair(self, tensor: int, name: str) -> tuple[int, int] | None:
        op = self.op(tensor, name)
        if op is None or len(_ints(op.inputs)) != 2:
            return None
        options = op.builtinOptions
        if options is not None and int(getattr(options, "fusedActivationFunction", 0) or 0) != 0:
            return None
        a, b = _ints(op.inputs)
        return a, b


def _gate_part(g: _Graph, tensor: int, units: int) -> tuple[int, int] | None:
    """(fully connected output, gate 0/1/2) when ``tensor`` is one third of an FC output."""
    split = g.producer.get(tensor)
    if split is None:
        return None
    name = _op_name(g.model, split)
    if name == "SPLIT":
        axis, source = _ints(split.inputs)
        axis_value = _const(g.model, g.subgraph, axis)
        outs = _ints(split.outputs)
        if axis_value is None or int(axis_value.reshape(-1)[0]) not in (-1, 1) or len(outs) != 3:
            return None
        return source, outs.index(tensor)
    if name == "STRIDED_SLICE":
        source, begin, _end, strides = _ints(split.inputs)
        begin_value, stride_value = _const(g.model, g.subgraph, begin), _const(g.model, g.subgraph, strides)
        opts = cast("litert.StridedSliceOptionsT", _options(split, "StridedSliceOptions"))
        if begin_value is None or stride_value is None or begin_value.size != 2 or np.any(stride_value != 1):
            return None
        start = 0 if int(opts.beginMask) & 2 else int(begin_value[1])
        if start % units or not 0 <= start // units < 3:
            return None
        return source, start // units
    return None


def _fc(g: _Graph, tensor: int) -> tuple[int, int, int] | None:
    """(input, weights, bias) of a plain float FULLY_CONNECTED producing ``tensor``."""
    op = g.op(tensor, "FULLY_CONNECTED")
    if op is None:
        return None
    opts = (
        None
        if op.builtinOptions is None
        else cast("litert.FullyConnectedOptionsT", _options(op, "FullyConnectedOptions"))
    )
    if opts is not None and (int(opts.fusedActivationFunction or 0) or int(opts.weightsFormat or 0)):
        return None
    inputs = _ints(op.inputs) + [-1]
    if _const(g.model, g.subgraph, inputs[1]) is None:
        return None
    return inputs[0], inputs[1], inputs[2]


def _sigmoid_gate(g: _Graph, tensor: int, units: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The two gate parts summed under LOGISTIC (order: x part, h part, undecided)."""
    op = g.op(tensor, "LOGISTIC")
    pair = None if op is None else g.pair(_ints(op.inputs)[0], "ADD")
    if pair is None:
        return None
    first, second = (_gate_part(g, t, units) for t in pair)
    return None if first is None or second is None else (first, second)


def _match_cell(model: litert.ModelT, body: litert.SubGraphT) -> _Cell | None:
    """The GRU cell of a WHILE body, or None."""
    g = _Graph(model, body)
    args = _ints(body.inputs)
    outs = _ints(body.outputs)
    if len(args) != 5 or len(outs) != 5:
        return None
    names = sorted(_op_name(model, op) for op in body.operators or [])
    for name, count in (
        ("FULLY_CONNECTED", 2),
        ("LOGISTIC", 2),
        ("TANH", 1),
        ("GATHER", 1),
        ("SUB", 1),
        ("MUL", 3),
    ):
        if names.count(name) != count:
            return None
    for position, (arg, out) in enumerate(zip(args, outs)):
        if len(_ints(_tensor(body, arg).shape)) != 2 or out == arg:
            continue
        state_arg = position
        h = arg
        units = _ints(_tensor(body, arg).shape)[1]
        top = g.pair(out, "ADD")
        if top is None:
            continue
        for keep, blend in (top, top[::-1]):
            keep_pair, blend_pair = g.pair(keep, "MUL"), g.pair(blend, "MUL")
            if keep_pair is None or blend_pair is None or h not in keep_pair:
                continue
            z = keep_pair[1] if keep_pair[0] == h else keep_pair[0]
            for sub_t, tanh_t in (blend_pair, blend_pair[::-1]):
                sub = g.pair(sub_t, "SUB")
                tanh = g.op(tanh_t, "TANH")
                one = None if sub is None else _const(model, body, sub[0])
                if sub is None or tanh is None or sub[1] != z or one is None or not np.all(one == 1.0):
                    continue
                cand = g.pair(_ints(tanh.inputs)[0], "ADD")
                cell = cand and _candidate(g, cand, z, h, units, args, state_arg)
                if cell:
                    return cell
    return None


def _candidate(
    g: _Graph, cand: tuple[int, int], z: int, h: int, units: int, args: list[int], state_arg: int
) -> _Cell | None:
    """Finish the match from the candidate sum x_n + r * h_n and the update gate z."""
    for xn_t, mul_t in (cand, cand[::-1]):
        mul = g.pair(mul_t, "MUL")
        xn = _gate_part(g, xn_t, units)
        if mul is None or xn is None or xn[1] != 2:
            continue
        for r_t, hn_t in (mul, mul[::-1]):
            hn = _gate_part(g, hn_t, units)
            zg, rg = _sigmoid_gate(g, z, units), _sigmoid_gate(g, r_t, units)
            if hn is None or hn[1] != 2 or zg is None or rg is None:
                continue
            x_fc, h_fc = xn[0], hn[0]
            if {zg[0], zg[1]} != {(x_fc, 0), (h_fc, 0)} or {rg[0], rg[1]} != {(x_fc, 1), (h_fc, 1)}:
                continue
            xf, hf = _fc(g, x_fc), _fc(g, h_fc)
            if xf is None or hf is None or hf[0] != h:
                continue
            gather = g.op(xf[0], "GATHER")
            if gather is None:
                continue
            seq, index = _ints(gather.inputs)
            if (
                seq not in args
                or index not in args
                or int(getattr(gather.builtinOptions, "axis", 0) or 0) != 0
            ):
                continue
            rest = [p for p in range(5) if p not in (state_arg, args.index(seq), args.index(index))]
            lists = [p for p in rest if len(_ints(_tensor(g.subgraph, args[p]).shape)) == 3]
            if len(lists) != 1:
                continue
            return _Cell(args.index(seq), state_arg, lists[0], xf[1], xf[2], hf[1], hf[2])
    return None


def _consumers(subgraph: litert.SubGraphT, tensor: int) -> list[int]:
    return [i for i, op in enumerate(subgraph.operators or []) if tensor in _ints(op.inputs)]


def _custom_code(model: litert.ModelT) -> int:
    if model.operatorCodes is None:
        model.operatorCodes = []
    for i, code in enumerate(model.operatorCodes):
        if int(code.builtinCode or 0) == BuiltinOperator.CUSTOM and code.customCode in ("GRU", b"GRU"):
            return i
    code = OperatorCodeT()
    code.builtinCode = BuiltinOperator.CUSTOM
    code.deprecatedBuiltinCode = BuiltinOperator.CUSTOM
    code.customCode = "GRU"
    code.version = 1
    model.operatorCodes.append(code)
    return len(model.operatorCodes) - 1


def _copy_tensor(model: litert.ModelT, source: litert.SubGraphT, index: int, target: litert.SubGraphT) -> int:
    """Add to ``target`` a tensor sharing ``source``'s tensor ``index`` buffer; -1 stays -1."""
    if index < 0:
        return -1
    original = _tensor(source, index)
    tensor = TensorT()
    tensor.name = original.name
    tensor.shape = original.shape
    tensor.type = original.type
    tensor.buffer = original.buffer
    tensor.hasRank = True
    if target.tensors is None:
        target.tensors = []
    target.tensors.append(tensor)
    return len(target.tensors) - 1


def _fuse_one(model: litert.ModelT, subgraph: litert.SubGraphT) -> bool:
    """Fuse the first matching WHILE of ``subgraph``; False when none matches.

    Matching only reads the model; a loop of unexpected form (any lookup that fails) is not a GRU
    and stays for the general WHILE support, so the hook never fails a conversion.
    """
    for w, op in enumerate(subgraph.operators or []):
        try:
            if _op_name(model, op) != "WHILE" or op.builtinOptions is None:
                continue
            plan = _plan(model, subgraph, w, op)
        except (IndexError, KeyError, ValueError, TypeError, AttributeError):
            plan = None
        if plan is not None:
            _apply(model, subgraph, *plan)
            return True
    return False


def _plan(
    model: litert.ModelT, subgraph: litert.SubGraphT, w: int, op: litert.OperatorT
) -> tuple[list[int], int, list[int]] | None:
    """(inputs of the GRU operator, its output, the replaced operator indices), or None."""
    ops = subgraph.operators or []
    outputs = set(_ints(subgraph.outputs))
    if op is not None:
        loop = cast("litert.WhileOptionsT", _options(op, "WhileOptions"))
        body_index, cond_index = int(loop.bodySubgraphIndex), int(loop.condSubgraphIndex)
        subgraphs = model.subgraphs or []
        body = subgraphs[body_index]
        cell = _match_cell(model, body)
        ins, outs = _ints(op.inputs), _ints(op.outputs)
        if cell is None or len(ins) != 5:
            return None
        # Head: the [1, T, F] input made time-major by one RESHAPE used only here.
        g = _Graph(model, subgraph)
        head = g.producer.get(ins[cell.sequence_arg])
        if (
            head is None
            or _op_name(model, head) != "RESHAPE"
            or len(_consumers(subgraph, ins[cell.sequence_arg])) != 1
        ):
            return None
        source = _ints(head.inputs)[0]
        shape = _ints(_tensor(subgraph, source).shape)
        if len(shape) != 3 or shape[0] != 1:
            return None
        steps = shape[1]
        # Counters start at 0, the condition stops both at the sequence length.
        counters = [p for p in range(5) if p not in (cell.sequence_arg, cell.state_arg, cell.list_arg)]
        starts = [_const(model, subgraph, ins[p]) for p in counters]
        if any(s is None or s.size != 1 or int(s.reshape(-1)[0]) != 0 for s in starts):
            return None
        cond = subgraphs[cond_index]
        limits = [
            _const(model, cond, _ints(c.inputs)[1])
            for c in cond.operators or []
            if _op_name(model, c) == "LESS"
        ]
        if not limits or any(v is None or int(v.reshape(-1)[0]) != steps for v in limits):
            return None
        if _const(model, subgraph, ins[cell.state_arg]) is None:
            return None
        # Tail: the only use of the WHILE's results is the list, reshaped or sliced once.
        used = [p for p in range(5) if _consumers(subgraph, outs[p]) or outs[p] in outputs]
        tails = _consumers(subgraph, outs[cell.list_arg])
        if used != [cell.list_arg] or len(tails) != 1 or outs[cell.list_arg] in outputs:
            return None
        tail = ops[tails[0]]
        units = _ints(_tensor(body, _ints(body.inputs)[cell.state_arg]).shape)[1]
        result = _ints(tail.outputs)[0]
        size = math.prod(_ints(_tensor(subgraph, result).shape))
        sequence = _op_name(model, tail) == "RESHAPE" and size == steps * units
        last = _op_name(model, tail) in ("STRIDED_SLICE", "RESHAPE") and size == units
        list_rows = _ints(_tensor(subgraph, outs[cell.list_arg]).shape)[0]
        if not (sequence or (last and list_rows == 1)):
            return None
        weights = [
            _copy_tensor(model, body, cell.kernel, subgraph),
            _copy_tensor(model, body, cell.recurrent, subgraph),
            _copy_tensor(model, body, cell.kernel_bias, subgraph),
            _copy_tensor(model, body, cell.recurrent_bias, subgraph),
        ]
        indices = sorted([ops.index(head), w, tails[0]])
        return [source, *weights, ins[cell.state_arg]], result, indices
    return None


def _apply(
    model: litert.ModelT, subgraph: litert.SubGraphT, inputs: list[int], result: int, indices: list[int]
) -> None:
    """Put one GRU operator where the first replaced operator was and drop the replaced ones."""
    from flatbuffers import flexbuffers  # here: only a model with a GRU to fuse writes options

    fused = OperatorT()
    fused.opcodeIndex = _custom_code(model)
    fused.inputs = inputs
    fused.outputs = [result]
    operators = subgraph.operators or []
    marks = (source_index(operators[i]) for i in indices)
    sources = sorted(mark for mark in marks if mark is not None)
    fused.customOptions = list(flexbuffers.Dumps({"source_indices": sources}))
    fused.customOptionsFormat = CustomOptionsFormat.FLEXBUFFERS
    subgraph.operators = [o for i, o in enumerate(operators) if i not in indices]
    subgraph.operators.insert(indices[0], fused)


def fuse_rolled_gru(model: litert.ModelT) -> litert.ModelT | None:
    """Replace every WHILE-loop Keras GRU (with its reshapes) by one GRU operator; None if none."""
    changed = False
    mark_source_indices(model)  # called on its own (not from Load), positions are the indices
    for subgraph in model.subgraphs or []:
        while _fuse_one(model, subgraph):
            changed = True
    return model if changed else None
