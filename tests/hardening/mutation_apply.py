"""Applying :class:`~hardening.mutator.Mutation` lists to a model file, and shrinking crashing ones.

Structural edits are made on the unpacked object tree and packed again (:func:`pack_any` also
writes buffers that claim data after the flatbuffer, which the builder refuses); byte edits then
corrupt the packed bytes. A mutation whose target no longer exists does nothing.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import flatbuffers
import numpy as np
from helia_aot.converters.litert.reader import parse_model
from helia_aot.litert import FILE_IDENTIFIER
from helia_aot.litert import builder as litert_builder
from helia_aot.litert import schema_py_generated as litert

from .mutator import INTERESTING_FLOATS, INTERESTING_INTS, Mutation


def _node(items: Any, index: int) -> Any:
    items = items or []
    return items[index] if 0 <= index < len(items) else None


def _int32_vector(values: list[int]) -> np.ndarray:
    return np.asarray([max(-(1 << 31), min((1 << 31) - 1, int(v))) for v in values], dtype=np.int32)


def _apply_tensor(model: litert.ModelT, m: Mutation) -> None:
    tensor = _node((_node(model.subgraphs, m.where[0]) or litert.SubGraphT()).tensors, m.where[1])
    if tensor is None:
        return
    if m.kind == "tensor.dim":
        position, value = m.value
        shape = [int(d) for d in (tensor.shape if tensor.shape is not None else [])]
        if shape:
            shape[position % len(shape)] = value
            tensor.shape = _int32_vector(shape)
    elif m.kind == "tensor.rank":
        tensor.shape = _int32_vector(list(m.value))
    elif m.kind == "tensor.signature":
        tensor.shapeSignature = _int32_vector(list(m.value))
    elif m.kind == "tensor.type":
        tensor.type = m.value
    elif m.kind == "tensor.buffer":
        tensor.buffer = m.value & 0xFFFFFFFF  # the schema's field is a uint
    elif m.kind == "tensor.name":
        tensor.name = m.value
    elif m.kind == "tensor.variable":
        tensor.isVariable = m.value
    elif m.kind == "tensor.quant":
        _apply_quant(tensor, m.value)


def _apply_quant(tensor: litert.TensorT, variant: tuple[Any, ...]) -> None:
    q = tensor.quantization or litert.QuantizationParametersT()
    tensor.quantization = q
    if variant[0] == "none":
        tensor.quantization = None
    elif variant[0] == "no_zero_points":
        q.zeroPoint = None
        if q.scale is None:
            q.scale = np.asarray([0.5], dtype=np.float32)
    elif variant[0] == "scales":
        q.scale = np.full(variant[1], 0.25, dtype=np.float32)
        q.zeroPoint = np.zeros(variant[1], dtype=np.int64)
    elif variant[0] == "axis":
        q.quantizedDimension = variant[1]
    elif variant[0] == "scale":
        q.scale = np.asarray([variant[1]], dtype=np.float32)
        q.zeroPoint = np.asarray(
            q.zeroPoint[:1] if q.zeroPoint is not None and len(q.zeroPoint) else [0], dtype=np.int64
        )
    elif variant[0] == "zero_point":
        count = max(1, len(q.scale) if q.scale is not None else 1)
        q.zeroPoint = np.full(count, variant[1], dtype=np.int64)
        if q.scale is None:
            q.scale = np.full(count, 0.125, dtype=np.float32)
    elif variant[0] == "details":
        q.detailsType = litert.QuantizationDetails.CustomQuantization
        q.details = litert.CustomQuantizationT()
        q.details.custom = np.zeros(4, dtype=np.uint8)
        if q.scale is None:
            q.scale = np.asarray([0.5], dtype=np.float32)
            q.zeroPoint = np.asarray([0], dtype=np.int64)


def _apply_buffer(model: litert.ModelT, m: Mutation) -> None:
    buffer = _node(model.buffers, m.where[0])
    if buffer is None:
        return
    if m.kind == "buffer.offset":
        buffer.offset, buffer.size = m.value
        return
    data = np.asarray(buffer.data if buffer.data is not None else [], dtype=np.uint8)
    if m.value == "empty":
        data = data[:0]
    elif m.value == "half":
        data = data[: len(data) // 2]
    elif m.value == "minus1":
        data = data[:-1]
    elif m.value == "plus7":
        data = np.concatenate([data, np.full(7, 0xA5, np.uint8)])
    elif m.value == "random":
        data = np.random.default_rng(len(data)).integers(0, 256, len(data), dtype=np.uint8)
    buffer.data = data


def _options_class(index: int) -> Any:
    names = sorted(n for n in vars(litert.BuiltinOptions) if not n.startswith("_") and n != "NONE")
    return getattr(litert, names[index % len(names)] + "T")


def _apply_op(model: litert.ModelT, m: Mutation) -> None:
    subgraph = _node(model.subgraphs, m.where[0])
    op = _node(subgraph.operators if subgraph else None, m.where[1])
    if op is None:
        return
    if m.kind in ("op.input", "op.output"):
        attr = "inputs" if m.kind == "op.input" else "outputs"
        vec = [int(v) for v in (getattr(op, attr) if getattr(op, attr) is not None else [])]
        if vec:
            vec[m.where[2] % len(vec)] = m.value
            setattr(op, attr, _int32_vector(vec))
    elif m.kind == "op.arity":
        vec = [int(v) for v in (op.inputs if op.inputs is not None else [])]
        if m.value == "drop" and vec:
            vec.pop()
        elif m.value == "append_absent":
            vec.append(-1)
        elif m.value == "append_tensor":
            vec.append(vec[0] if vec else 0)
        elif m.value == "empty":
            vec = []
        elif m.value == "duplicate":
            vec = vec + vec
        op.inputs = _int32_vector(vec)
    elif m.kind == "op.opcode":
        op.opcodeIndex = m.value & 0xFFFFFFFF
    elif m.kind == "op.options":
        if m.value == "none":
            op.builtinOptions, op.builtinOptionsType = None, 0
        else:
            cls = _options_class(m.where[1] * 7 + 3)
            op.builtinOptions = cls()
            op.builtinOptionsType = getattr(litert.BuiltinOptions, cls.__name__[:-1])
    elif m.kind == "op.option_field":
        _mutate_option_field(op, *m.value)
    elif m.kind == "op.custom_options":
        op.customOptions = np.frombuffer(m.value, dtype=np.uint8)
    elif m.kind == "op.self_loop":
        outputs = [int(v) for v in (op.outputs if op.outputs is not None else [])]
        inputs = [int(v) for v in (op.inputs if op.inputs is not None else [])]
        if outputs and inputs:
            inputs[0] = outputs[0]
            op.inputs = _int32_vector(inputs)


def _mutate_option_field(op: litert.OperatorT, field_pick: int, value_pick: float) -> None:
    options = op.builtinOptions
    if options is None:
        return
    fields = sorted(
        name
        for name, value in vars(options).items()
        if isinstance(value, (bool, int, float, np.ndarray)) or value is None
    )
    if not fields:
        return
    name = fields[field_pick % len(fields)]
    old = getattr(options, name)
    if isinstance(old, bool):
        new: Any = not old
    elif isinstance(old, float):
        new = INTERESTING_FLOATS[int(value_pick * len(INTERESTING_FLOATS))]
    elif isinstance(old, np.ndarray) or old is None:
        new = _int32_vector([INTERESTING_INTS[int(value_pick * 12) + i] for i in range(3)])
    else:
        new = INTERESTING_INTS[int(value_pick * len(INTERESTING_INTS))]
    setattr(options, name, new)
    try:  # keep only values the field's width can hold (byte enums, int32 strides, ...)
        options.Pack(flatbuffers.Builder(256))
    except Exception:
        setattr(options, name, old)


def _apply_model(model: litert.ModelT, m: Mutation) -> None:
    if m.kind == "opcode.builtin":
        opcode = _node(model.operatorCodes, m.where[0])
        if opcode is not None:
            opcode.builtinCode = max(-(1 << 31), min(m.value, (1 << 31) - 1))
            opcode.deprecatedBuiltinCode = max(-128, min(m.value, 127))
    elif m.kind == "opcode.custom":
        opcode = _node(model.operatorCodes, m.where[0])
        if opcode is not None:
            opcode.customCode = m.value
            opcode.builtinCode = opcode.deprecatedBuiltinCode = litert.BuiltinOperator.CUSTOM
    elif m.kind == "subgraph.io":
        subgraph = _node(model.subgraphs, m.where[0])
        if subgraph is None:
            return
        action, index = m.value
        current = getattr(subgraph, m.where[1])
        vec = [int(v) for v in (current if current is not None else [])]
        if action == "drop" and vec:
            vec.pop()
        elif action == "append":
            vec.append(index)
        elif action == "set" and vec:
            vec[0] = index
        elif action == "empty":
            vec = []
        elif action == "duplicate":
            vec = vec + vec
        setattr(subgraph, m.where[1], _int32_vector(vec))
    elif m.kind == "subgraph.swap_ops":
        subgraph = _node(model.subgraphs, m.where[0])
        ops = list(subgraph.operators or []) if subgraph else []
        i, j = m.where[1], m.where[2]
        if 0 <= i < len(ops) and 0 <= j < len(ops):
            ops[i], ops[j] = ops[j], ops[i]
            subgraph.operators = ops
    elif m.kind == "subgraph.clear":
        subgraph = _node(model.subgraphs, m.where[0])
        if subgraph is not None:
            setattr(
                subgraph, m.where[1], [] if m.where[1] in ("operators", "tensors") else np.zeros(0, np.int32)
            )
    elif m.kind == "model.subgraphs":
        if m.value == "empty":
            model.subgraphs = []
        elif m.value == "none":
            model.subgraphs = None
        elif model.subgraphs:
            model.subgraphs = [model.subgraphs[0], copy.deepcopy(model.subgraphs[0])]
    elif m.kind == "model.version":
        model.version = m.value & 0xFFFFFFFF
    elif m.kind == "model.description":
        model.description = m.value


def _apply_structural(model: litert.ModelT, m: Mutation) -> None:
    if m.kind.startswith("tensor."):
        _apply_tensor(model, m)
    elif m.kind.startswith("buffer."):
        _apply_buffer(model, m)
    elif m.kind.startswith("op."):
        _apply_op(model, m)
    else:
        _apply_model(model, m)


def _apply_bytes(data: bytearray, m: Mutation) -> bytearray:
    pos = int(m.where[0] * len(data)) if data else 0
    if m.kind == "bytes.flip" and data:
        data[pos] ^= 1 << m.value
    elif m.kind == "bytes.set" and data:
        data[pos] = m.value
    elif m.kind == "bytes.word" and len(data) >= 4:
        pos = min(pos & ~3, len(data) - 4)
        data[pos : pos + 4] = int(m.value).to_bytes(4, "little")
    elif m.kind == "bytes.truncate":
        del data[pos:]
    elif m.kind == "bytes.delete":
        del data[pos : pos + m.value]
    elif m.kind == "bytes.insert":
        data[pos:pos] = bytes((pos + i) & 0xFF for i in range(m.value))
    elif m.kind == "bytes.ident" and len(data) >= 8:
        data[4:8] = m.value
    elif m.kind == "bytes.random":
        data = bytearray(random.Random(m.where[0]).getrandbits(8) for _ in range(m.value))
    return data


def pack_any(model: litert.ModelT) -> bytes:
    """Like ``pack_model``, but also writes buffers that claim data after the flatbuffer."""
    buffers = list(model.buffers or [])
    builder = flatbuffers.Builder(1024 + sum(0 if b.data is None else len(b.data) + 16 for b in buffers))
    packed = []
    for buffer in buffers:
        if int(buffer.offset or 0) > 1:
            litert.BufferStart(builder)
            litert.BufferAddOffset(builder, int(buffer.offset))
            litert.BufferAddSize(builder, int(buffer.size or 0))
            packed.append(litert_builder._Packed(litert.BufferEnd(builder)))
        else:
            packed.append(litert_builder._Packed(litert_builder._pack_buffer(builder, buffer)))
    original = model.buffers
    model.buffers = packed if original is not None else None
    try:
        root = model.Pack(builder)
    finally:
        model.buffers = original
    builder.Finish(root, file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


def apply_mutations(original: bytes, mutations: list[Mutation], parsed: litert.ModelT | None = None) -> bytes:
    """The bytes of ``original`` (a valid model) after ``mutations``, structural edits first.

    ``parsed`` (``original`` unpacked, left untouched) saves unpacking it again for every case.
    """
    structural = [m for m in mutations if not m.kind.startswith("bytes.")]
    if structural:
        model = copy.deepcopy(parsed) if parsed is not None else parse_model(original)
        for m in structural:
            _apply_structural(model, m)
        data = bytearray(pack_any(model))
    else:
        data = bytearray(original)
    for m in mutations:
        if m.kind.startswith("bytes."):
            data = _apply_bytes(data, m)
    return bytes(data)


def minimize(original: bytes, mutations: list[Mutation], fails: Callable[[bytes], bool]) -> list[Mutation]:
    """The smallest sub-list of ``mutations`` (greedy one-at-a-time removal) whose file still fails."""
    current = list(mutations)
    changed = True
    while changed:
        changed = False
        for i in range(len(current)):
            trial = current[:i] + current[i + 1 :]
            if fails(apply_mutations(original, trial)):
                current = trial
                changed = True
                break
    return current


__all__ = ["apply_mutations", "minimize", "pack_any"]
