"""A structure-aware mutator for LiteRT models, shared by the suite's fuzz test and bench/fuzz_models.py.

A case is a corpus model plus a list of :class:`Mutation` records. Structural mutations edit the
unpacked object tree (shapes, types, buffer and tensor indices, quantization, options, names,
operator order) and are packed again, so they reach the parsers, transforms and planner instead of
dying in the FlatBuffers verifier; byte mutations (bit flips, overwritten words, truncation,
insertion, a wrong identifier) then corrupt the packed file itself. Every mutation is a no-op when
its target no longer exists, so any sub-list of a case is itself a case: that is what lets
:func:`hardening.mutation_apply.minimize` shrink a crash to the few edits that cause it. This
module draws cases; :mod:`hardening.mutation_apply` turns them into files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from helia_aot.litert import schema_py_generated as litert

INTERESTING_INTS = (
    0,
    1,
    -1,
    2,
    3,
    -2,
    4,
    7,
    8,
    16,
    127,
    -128,
    255,
    256,
    1000,
    65535,
    65536,
    1 << 20,
    1 << 24,
    (1 << 31) - 1,
    -(1 << 31),
)
INTERESTING_DIMS = (0, 1, 2, 3, -1, -2, 5, 255, 4096, 65536, 1 << 20, 1 << 28, (1 << 31) - 1, -(1 << 31))
INTERESTING_FLOATS = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    1e-30,
    1e30,
    3.4e38,
    float("inf"),
    float("-inf"),
    float("nan"),
    1e-45,
    0.5,
)
HOSTILE_TEXTS = (
    "*/",
    "/* x",
    "//",
    '"',
    "'",
    "\\",
    "a\nb",
    "#include <stdio.h>",
    "??/",
    "??=",
    "é漢字",
    "int",
    "return",
    "9lives",
    "",
    "_",
    "x" * 3000,
    "../../etc/passwd",
    "/abs/path",
    "a\0b",
    "%s%n",
    "${x}",
    "<% x %>",
    "\r\n#define x",
)
TENSOR_TYPE_CODES = tuple(range(0, 22)) + (99, 127, -1)
BUILTIN_CODES = tuple(
    sorted(
        {
            int(v)
            for k, v in vars(litert.BuiltinOperator).items()
            if not k.startswith("_") and isinstance(v, int)
        }
    )
)

STRUCTURAL_KINDS = (
    "tensor.dim",
    "tensor.rank",
    "tensor.type",
    "tensor.buffer",
    "tensor.name",
    "tensor.variable",
    "tensor.quant",
    "tensor.signature",
    "buffer.data",
    "buffer.offset",
    "op.input",
    "op.output",
    "op.arity",
    "op.opcode",
    "op.options",
    "op.option_field",
    "op.custom_options",
    "op.self_loop",
    "opcode.builtin",
    "opcode.custom",
    "subgraph.io",
    "subgraph.swap_ops",
    "subgraph.clear",
    "model.subgraphs",
    "model.version",
    "model.description",
)
BYTE_KINDS = (
    "bytes.flip",
    "bytes.set",
    "bytes.word",
    "bytes.truncate",
    "bytes.delete",
    "bytes.insert",
    "bytes.ident",
    "bytes.random",
)


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
        return (
            rng.randrange(6),
            rng.choice(INTERESTING_DIMS) if rng.random() < 0.7 else rng.randrange(-3, 300),
        )
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
        huge = (1 << 63) - 1
        return rng.choice((0, 1, 2, 8, 1 << 20, huge)), rng.choice((0, 1, 16, 1 << 30, huge))
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


def _tensors(model: litert.ModelT, sg: int) -> list[Any]:
    subgraphs = model.subgraphs or []
    return list(subgraphs[sg].tensors or []) if 0 <= sg < len(subgraphs) else []


__all__ = ["BYTE_KINDS", "HOSTILE_TEXTS", "Mutation", "STRUCTURAL_KINDS", "draw_mutations"]
