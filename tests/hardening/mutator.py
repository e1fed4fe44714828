"""A structure-aware mutator for LiteRT models, shared by the suite's fuzz test and bench/fuzz_models.py.

A case is a corpus model plus a list of :class:`Mutation` records. Structural mutations edit the
unpacked object tree (shapes, types, buffer and tensor indices, quantization, options, names,
operator order) and are packed again, so they reach the parsers, transforms and planner instead of
dying in the FlatBuffers verifier; byte mutations (bit flips, overwritten words, truncation,
insertion, a wrong identifier) then corrupt the packed file itself. Every mutation is a no-op when
its target no longer exists, so any sub-list of a case is itself a case: that is what lets
:func:`minimize` shrink a crash to the few edits that cause it.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any, Callable

import flatbuffers
import numpy as np

from helia_aot.converters.litert.reader import parse_model
from helia_aot.litert import FILE_IDENTIFIER
from helia_aot.litert import builder as litert_builder
from helia_aot.litert import schema_py_generated as litert

INTERESTING_INTS = (0, 1, -1, 2, 3, -2, 4, 7, 8, 16, 127, -128, 255, 256, 1000, 65535, 65536,
                    1 << 20, 1 << 24, (1 << 31) - 1, -(1 << 31))
INTERESTING_DIMS = (0, 1, 2, 3, -1, -2, 5, 255, 4096, 65536, 1 << 20, 1 << 28, (1 << 31) - 1, -(1 << 31))
INTERESTING_FLOATS = (0.0, -0.0, 1.0, -1.0, 1e-30, 1e30, 3.4e38, float("inf"), float("-inf"),
                      float("nan"), 1e-45, 0.5)
HOSTILE_TEXTS = ("*/", "/* x", "//", '"', "'", "\\", "a\nb", "#include <stdio.h>", "??/", "??=",
                 "é漢字", "int", "return", "9lives", "", "_", "x" * 3000, "../../etc/passwd",
                 "/abs/path", "a\0b", "%s%n", "${x}", "<% x %>", "\r\n#define x")
TENSOR_TYPE_CODES = tuple(range(0, 22)) + (99, 127, -1)
BUILTIN_CODES = tuple(sorted({int(v) for k, v in vars(litert.BuiltinOperator).items()
                              if not k.startswith("_") and isinstance(v, int)}))

STRUCTURAL_KINDS = (
    "tensor.dim", "tensor.rank", "tensor.type", "tensor.buffer", "tensor.name", "tensor.variable",
    "tensor.quant", "tensor.signature", "buffer.data", "buffer.offset", "op.input", "op.output",
    "op.arity", "op.opcode", "op.options", "op.option_field", "op.custom_options", "op.self_loop",
    "opcode.builtin", "opcode.custom", "subgraph.io", "subgraph.swap_ops", "subgraph.clear",
    "model.subgraphs", "model.version", "model.description",
)
BYTE_KINDS = ("bytes.flip", "bytes.set", "bytes.word", "bytes.truncate", "bytes.delete",
              "bytes.insert", "bytes.ident", "bytes.random")


@dataclass(frozen=True, slots=True)
class Mutation:
    """One edit: ``kind`` says what it touches, ``where`` which node (indices), ``value`` the new value.

    Byte positions are fractions of the packed length, so a byte edit stays meaningful after a
    structural edit has changed that length.
    """

    kind: str
    where: tuple[Any, ...]
    value: Any

    def describe(self) -> str:
        value = self.value
        if isinstance(value, (str, bytes)) and len(value) > 40:
            value = value[:37] + ("..." if isinstance(value, str) else b"...")
        return f"{self.kind}{list(self.where)}={value!r}"


# -- drawing ---------------------------------------------------------------------------------------

def _index(rng: random.Random, count: int) -> int:
    """Usually a valid index; sometimes just past the end, negative, or huge (hostile files)."""
    roll = rng.random()
    if count and roll < 0.8:
        return rng.randrange(count)
    return rng.choice((count, count + 1, -1, -2, 1 << 20, (1 << 31) - 1, -(1 << 31)))


def _where(rng: random.Random, model: litert.ModelT, kind: str) -> tuple[Any, ...]:
    subgraphs = model.subgraphs or []
    sg = rng.randrange(len(subgraphs)) if subgraphs and rng.random() < 0.9 else 0
    sg = 0 if rng.random() < 0.7 else sg
    subgraph = subgraphs[sg] if sg < len(subgraphs) else None
    tensors = (subgraph.tensors or []) if subgraph else []
    operators = (subgraph.operators or []) if subgraph else []
    t = rng.randrange(len(tensors)) if tensors else 0
    o = rng.randrange(len(operators)) if operators else 0
    if kind.startswith("tensor."):
        return (sg, t)
    if kind in ("op.input", "op.output"):
        op = operators[o] if operators else None
        vec = (op.inputs if kind == "op.input" else op.outputs) if op is not None else None
        return (sg, o, rng.randrange(len(vec)) if vec is not None and len(vec) else 0)
    if kind.startswith("op."):
        return (sg, o)
    if kind.startswith("opcode."):
        return (rng.randrange(max(1, len(model.operatorCodes or []))),)
    if kind.startswith("buffer."):
        return (rng.randrange(max(1, len(model.buffers or []))),)
    if kind == "subgraph.io":
        return (sg, rng.choice(("inputs", "outputs")))
    if kind == "subgraph.swap_ops":
        return (sg, o, rng.randrange(len(operators)) if operators else 0)
    if kind == "subgraph.clear":
        return (sg, rng.choice(("operators", "tensors", "inputs", "outputs")))
    return ()


def _quant_variant(rng: random.Random) -> Any:
    choice = rng.randrange(7)
    if choice == 0:
        return ("none",)
    if choice == 1:
        return ("no_zero_points",)
    if choice == 2:
        return ("scales", rng.choice((0, 2, 3, 1000)))
    if choice == 3:
        return ("axis", rng.choice(INTERESTING_INTS[:12]))
    if choice == 4:
        return ("scale", rng.choice(INTERESTING_FLOATS))
    if choice == 5:
        return ("zero_point", rng.choice(INTERESTING_INTS))
    return ("details",)


def _value(rng: random.Random, model: litert.ModelT, kind: str, where: tuple[Any, ...]) -> Any:
    tensors = len(_tensors(model, where[0])) if kind.startswith(("op.", "subgraph.")) and where else 0
    if kind == "tensor.dim":
        return (rng.randrange(6), rng.choice(INTERESTING_DIMS) if rng.random() < 0.7
                else rng.randrange(-3, 300))
    if kind in ("tensor.rank", "tensor.signature"):
        return tuple(rng.choice(INTERESTING_DIMS[:8]) for _ in range(rng.choice((0, 1, 2, 4, 5, 7, 9))))
    if kind == "tensor.type":
        return rng.choice(TENSOR_TYPE_CODES)
    if kind == "tensor.buffer":
        return _index(rng, len(model.buffers or []))
    if kind in ("tensor.name", "opcode.custom", "model.description"):
        return rng.choice(HOSTILE_TEXTS)
    if kind == "tensor.variable":
        return bool(rng.getrandbits(1))
    if kind == "tensor.quant":
        return _quant_variant(rng)
    if kind == "buffer.data":
        return rng.choice(("empty", "half", "minus1", "plus7", "random"))
    if kind == "buffer.offset":
        return (rng.choice((0, 1, 2, 8, 1 << 20, (1 << 63) - 1)), rng.choice((0, 1, 16, 1 << 30, (1 << 63) - 1)))
    if kind in ("op.input", "op.output"):
        return _index(rng, tensors) if rng.random() < 0.9 else -1
    if kind == "op.arity":
        return rng.choice(("drop", "append_absent", "append_tensor", "empty", "duplicate"))
    if kind == "op.opcode":
        return _index(rng, len(model.operatorCodes or []))
    if kind == "op.options":
        return rng.choice(("none", "swap"))
    if kind == "op.option_field":
        return (rng.randrange(16), rng.random())
    if kind == "op.custom_options":
        return bytes(rng.getrandbits(8) for _ in range(rng.choice((0, 1, 3, 8, 33))))
    if kind == "opcode.builtin":
        return rng.choice(BUILTIN_CODES) if rng.random() < 0.8 else rng.choice((-1, 1000, 255))
    if kind == "subgraph.io":
        return rng.choice(("drop", "append", "set", "empty", "duplicate")), _index(rng, tensors)
    if kind == "model.subgraphs":
        return rng.choice(("empty", "duplicate", "none"))
    if kind == "model.version":
        return rng.choice((0, 1, 2, 4, -1, 255))
    return None


def draw_mutations(rng: random.Random, model: litert.ModelT, *, max_mutations: int = 4) -> list[Mutation]:
    """Draw a case's edits for ``model`` (the unpacked original), structural ones first."""
    count = 1 + min(rng.randrange(max_mutations), rng.randrange(max_mutations))
    structural: list[Mutation] = []
    byte_level: list[Mutation] = []
    for _ in range(count):
        if rng.random() < 0.75:
            kind = rng.choice(STRUCTURAL_KINDS)
            where = _where(rng, model, kind)
            structural.append(Mutation(kind, where, _value(rng, model, kind, where)))
        else:
            kind = rng.choice(BYTE_KINDS)
            byte_level.append(Mutation(kind, (rng.random(),), _byte_value(rng, kind)))
    return structural + byte_level


def _byte_value(rng: random.Random, kind: str) -> Any:
    if kind == "bytes.flip":
        return rng.randrange(8)
    if kind == "bytes.set":
        return rng.choice((0, 0xFF, 0x7F, 0x80, rng.randrange(256)))
    if kind == "bytes.word":
        return rng.choice(INTERESTING_INTS) & 0xFFFFFFFF
    if kind in ("bytes.delete", "bytes.insert"):
        return rng.choice((1, 2, 4, 16, 100))
    if kind == "bytes.ident":
        return rng.choice((b"TFL2", b"\0\0\0\0", b"tfl3", b"TFL4"))
    if kind == "bytes.random":
        return rng.choice((0, 3, 8, 64, 1024))
    return None


# -- applying --------------------------------------------------------------------------------------

def _tensors(model: litert.ModelT, sg: int) -> list[Any]:
    subgraphs = model.subgraphs or []
    return list(subgraphs[sg].tensors or []) if 0 <= sg < len(subgraphs) else []


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
        q.zeroPoint = np.asarray(q.zeroPoint[:1] if q.zeroPoint is not None and len(q.zeroPoint) else [0],
                                 dtype=np.int64)
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
    fields = sorted(name for name, value in vars(options).items()
                    if isinstance(value, (bool, int, float, np.ndarray)) or value is None)
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
        vec = [int(v) for v in (getattr(subgraph, m.where[1]) if getattr(subgraph, m.where[1]) is not None else [])]
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
            setattr(subgraph, m.where[1], [] if m.where[1] in ("operators", "tensors")
                    else np.zeros(0, np.int32))
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
        data[pos:pos + 4] = int(m.value).to_bytes(4, "little")
    elif m.kind == "bytes.truncate":
        del data[pos:]
    elif m.kind == "bytes.delete":
        del data[pos:pos + m.value]
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


def apply_mutations(original: bytes, mutations: list[Mutation]) -> bytes:
    """The bytes of ``original`` (a valid model) after ``mutations``, structural edits first."""
    structural = [m for m in mutations if not m.kind.startswith("bytes.")]
    if structural:
        model = parse_model(original)
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
            trial = current[:i] + current[i + 1:]
            if fails(apply_mutations(original, trial)):
                current = trial
                changed = True
                break
    return current


__all__ = ["BYTE_KINDS", "HOSTILE_TEXTS", "Mutation", "STRUCTURAL_KINDS", "apply_mutations",
           "draw_mutations", "minimize", "pack_any"]
