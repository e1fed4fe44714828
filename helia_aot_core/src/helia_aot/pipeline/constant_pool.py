"""Constant arenas: which bytes each memory stores, and which are copied into RAM at init.

A cold constant is read in place from the memory that stores it. Without a rule, that is the
first memory of the constant order (DTCM, SRAM, MRAM, ... on an Apollo510) with room for it,
the constants read most per byte (:mod:`helia_aot.pipeline.access_cost`) claiming the fast
memory first; the arenas then share what the constants leave. A staged constant (a
``memory.tensors[]`` rule with ``constant_destination_memory``) is stored in its source memory
too, in one contiguous chunk per destination, and the module copies that chunk into a RAM arena
at init, so the kernels read it from the faster memory. Identical contents share one copy within
an arena, which is why derived tables that several operators intern cost nothing twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from helia_aot.air import AirModel, AirTensor, AirTensorType, TensorId, pack_int4
from helia_aot.errors import UnsupportedModelError
from helia_aot.pipeline.memory_rules import MemoryBudget, TensorPlacement


def tensors_read(model: AirModel, operators: list[Any]) -> set[TensorId]:
    """Tensors some operator's C reads, plus the model outputs: the constants worth storing."""
    read: set[TensorId] = set(model.outputs)
    for aot_op in operators:
        read.update(t for i, t in enumerate(aot_op.op.input_ids) if t and aot_op.reads_input(i))
        read.update(aot_op.op.named_tensors.values())
    for region in model.regions.values():  # a control-flow operator copies these (IF, WHILE)
        read.update(region.inputs)
        read.update(region.outputs)
    return read


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class ConstantBlob:
    """The bytes of one constant arena, deduplicated by content."""

    alignment: int
    data: bytearray = field(default_factory=bytearray)
    offsets: dict[TensorId, int] = field(default_factory=dict)
    _seen: dict[bytes, int] = field(default_factory=dict)

    @staticmethod
    def payload(tensor: AirTensor) -> tuple[bytes, bytes]:
        """The tensor's bytes and the key identical contents share."""
        if tensor.data is None:
            raise UnsupportedModelError(
                f"constant tensor {tensor.name!r} has no data",
                hint="the model file stores no buffer for it; re-export the model",
            )
        if tensor.dtype is AirTensorType.INT4:  # kept packed: half the bytes of int8
            payload = pack_int4(tensor.data)
        else:
            payload = tensor.data.astype(tensor.dtype.numpy, copy=False).tobytes(order="C")
        return payload, hashlib.sha256(payload).digest() + len(payload).to_bytes(8, "little")

    def size_with(self, content: tuple[bytes, bytes], alignment: int) -> int:
        """The arena's size were ``content`` (a :meth:`payload`) added (unchanged when it is in)."""
        payload, key = content
        if key in self._seen:
            return self.size
        end = _align(len(self.data), alignment) + len(payload)
        whole = max(self.alignment, alignment)
        return max(whole, _align(end, whole))

    def add(self, tensor: AirTensor, alignment: int, content: tuple[bytes, bytes] | None = None) -> None:
        payload, key = content or self.payload(tensor)
        if key not in self._seen:
            offset = _align(len(self.data), alignment)
            self.data.extend(b"\0" * (offset - len(self.data)))
            self.data.extend(payload)
            self._seen[key] = offset
        self.offsets[tensor.id] = self._seen[key]
        self.alignment = max(self.alignment, alignment)

    @property
    def size(self) -> int:
        return max(self.alignment, _align(len(self.data), self.alignment))


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class FillOrder:
    """Where the constants no rule places may go: ``order`` the memories, first choice first,
    against ``budget`` (nothing taken from it yet); ``accessed`` the bytes read of each per
    inference; ``by_cost`` ranks them by bytes read per byte stored (else model order);
    ``contents`` caches each tensor's bytes and key between pools; ``scratch`` below."""

    order: list[str]
    budget: MemoryBudget
    accessed: dict[TensorId, int]
    by_cost: bool = True
    contents: dict[TensorId, tuple[bytes, bytes]] = field(default_factory=dict)
    scratch: tuple[tuple[str, ...], int | None, float] | None = None
    """The scratch arena as one more claimant (at goal latency, or when it spills from the first
    memory): (memories, bytes, bytes read per byte); the constants read less per byte than it
    leave it that room in the first of those memories (bytes None: all the room they have not
    taken yet in each of them)."""
    limits: dict[str, int] = field(default_factory=dict)
    """The most bytes the constants may take in each memory named (a module of a shared image:
    its share of the set's constants, ``memory.shared_arena.constants``)."""


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class ConstantArena:
    """One constant arena as the plan will list it.

    ``source_memory`` is set for a staged arena, whose bytes sit ``source_offset`` bytes into the
    cold arena of that memory.
    """

    memory: str
    used: int
    alignment: int
    offsets: dict[TensorId, int]
    blob: bytes | None = None
    source_memory: str | None = None
    source_offset: int = 0


class ConstantPool:
    """Sorts the constants the module stores into cold and staged arenas."""

    def __init__(
        self,
        model: AirModel,
        constants: list[AirTensor],
        rules: dict[TensorId, TensorPlacement],
        home: str,
        alignment: int,
        floors: dict[str, int] | None = None,
        fill: FillOrder | None = None,
    ) -> None:
        """``home`` stores what no memory of ``fill`` holds and a staging rule's source bytes when
        the rule names no ``memory``; ``fill`` (None: every constant in ``home``) says where the
        constants no rule places are read from."""
        self.model = model
        floors = floors or {}

        def base(memory: str) -> int:
            # memory.constraints[].arena_alignment raises the arena base and every slot in it.
            return max(alignment, floors.get(memory, 1))

        def wanted(tensor: AirTensor, memory: str) -> int:
            rule = rules.get(tensor.id)
            own = max(alignment, tensor.alignment or 1, (rule.alignment if rule else None) or 1)
            return max(own, base(memory))

        self.cold: dict[str, ConstantBlob] = {}
        self.staged: dict[tuple[str, str], ConstantBlob] = {}
        free: list[AirTensor] = []
        for tensor in constants:
            rule = rules.get(tensor.id)
            if fill is not None and (rule is None or (rule.memory is None and rule.destination is None)):
                free.append(tensor)
                continue
            source = (rule.memory if rule else None) or home
            if rule is not None and rule.destination is not None:
                home_memory = rule.destination
                blob = self.staged.setdefault((home_memory, source), ConstantBlob(base(home_memory)))
            else:
                home_memory = source
                blob = self.cold.setdefault(source, ConstantBlob(base(source)))
            blob.add(tensor, wanted(tensor, home_memory))
        if fill is not None:
            self._fill(free, fill, home, base, wanted)
        for _, source in self.staged:
            self.cold.setdefault(source, ConstantBlob(base(source)))
        self._chunks: dict[tuple[str, str], int] = {}
        for source, blob in self.cold.items():
            for key, staged in sorted(self.staged.items()):
                if key[1] != source:
                    continue
                offset = _align(len(blob.data), staged.alignment)
                blob.data.extend(b"\0" * (offset - len(blob.data)))
                blob.data.extend(staged.data)
                blob.alignment = max(blob.alignment, staged.alignment)
                self._chunks[key] = offset

    def _fill(
        self,
        tensors: list[AirTensor],
        fill: FillOrder,
        home: str,
        base: Any,
        wanted: Any,
    ) -> None:
        """Each constant no rule places goes to the first memory of ``fill.order`` with room for
        it, the ones read most per byte first (``tensors`` come in model order)."""
        # What the rule-placed and staged arenas already take from each memory (staged bytes in
        # their destination and, as a chunk of its cold arena, in their source).
        taken: dict[str, int] = {m: b.size for m, b in self.cold.items()}
        for (destination, source), blob in self.staged.items():
            taken[destination] = taken.get(destination, 0) + blob.size
            taken[source] = taken.get(source, 0) + blob.size
        room = {m: fill.budget.free(m) for m in fill.order}
        for memory, limit in fill.limits.items():
            if memory in room:
                free = room[memory]
                room[memory] = limit if free is None else min(free, limit)
        if fill.by_cost:
            # Read most per byte first; ties keep model order (the sort is stable).
            density = {t.id: fill.accessed.get(t.id, 0) / max(t.nbytes, 1) for t in tensors}
            tensors = sorted(tensors, key=lambda t: -density[t.id])
        claim = fill.scratch if fill.by_cost else None
        for tensor in tensors:
            if claim is not None and fill.accessed.get(tensor.id, 0) / max(tensor.nbytes, 1) < claim[2]:
                memories, nbytes, _ = claim
                if nbytes is None:
                    for memory in memories:
                        taken[memory] = max(taken.get(memory, 0), room.get(memory) or 0)
                else:
                    memory, free = memories[0], room.get(memories[0])
                    if free is None or taken.get(memory, 0) + nbytes <= free:
                        taken[memory] = taken.get(memory, 0) + nbytes
                claim = None
            content = fill.contents.get(tensor.id)
            if content is None:
                content = fill.contents[tensor.id] = ConstantBlob.payload(tensor)
            chosen, grown = home, None
            for memory in fill.order:
                held = self.cold.get(memory)
                had = 0 if held is None else held.size
                size = (held or ConstantBlob(base(memory))).size_with(content, wanted(tensor, memory))
                free = room[memory]
                if free is None or taken.get(memory, 0) + size - had <= free:
                    chosen, grown = memory, size - had
                    break
            blob = self.cold.setdefault(chosen, ConstantBlob(base(chosen)))
            blob.add(tensor, wanted(tensor, chosen), content)
            taken[chosen] = taken.get(chosen, 0) + (grown or 0)

    def reserve(self, budget: MemoryBudget) -> None:
        """Take the constant arenas' bytes from the budget; staged ones are explicit, so they must fit."""
        for source, blob in self.cold.items():
            if not budget.fits(source, blob.size):
                raise self._no_room(source, list(blob.offsets), budget)
            budget.take(source, blob.size)
        for (destination, _), blob in self.staged.items():
            if not budget.fits(destination, blob.size):
                raise self._no_room(destination, list(blob.offsets), budget, staged=True)
            budget.take(destination, blob.size)

    def _no_room(
        self, memory: str, ids: list[TensorId], budget: MemoryBudget, *, staged: bool = False
    ) -> UnsupportedModelError:
        tensors = sorted((self.model.tensors[t] for t in ids), key=lambda t: -t.nbytes)
        names = ", ".join(f"{t.id} {t.name} ({t.nbytes} B)" for t in tensors[:8])
        more = f" and {len(tensors) - 8} more" if len(tensors) > 8 else ""
        what = "staged constants copied into" if staged else "constants stored in"
        return UnsupportedModelError(
            f"model {self.model.name!r} does not fit: the {what} {memory} need "
            f"{sum(t.nbytes for t in tensors)} B: {names}{more}; tried {budget.describe(memory)}",
            hint="stage fewer constants, raise the cap in memory.constraints, or choose a larger memory",
            details={
                "role": "constant",
                "tensors": [t.id for t in tensors],
                "tried": [budget.describe(memory)],
            },
        )

    def arenas(self, rank: dict[str, int]) -> list[ConstantArena]:
        """Cold arenas by memory rank, then staged arenas by destination rank."""
        result = [
            ConstantArena(memory, len(blob.data), blob.alignment, dict(blob.offsets), bytes(blob.data))
            for memory, blob in sorted(self.cold.items(), key=lambda kv: rank.get(kv[0], 99))
        ]
        for (destination, source), blob in sorted(
            self.staged.items(), key=lambda kv: (rank.get(kv[0][0], 99), kv[0][1])
        ):
            result.append(
                ConstantArena(
                    destination,
                    len(blob.data),
                    blob.alignment,
                    dict(blob.offsets),
                    source_memory=source,
                    source_offset=self._chunks[(destination, source)],
                )
            )
        return result


__all__ = ["ConstantArena", "ConstantBlob", "ConstantPool", "FillOrder", "tensors_read"]
