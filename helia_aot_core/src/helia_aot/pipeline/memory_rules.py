"""What the memory configuration asks of the planner: per-tensor placement and per-memory budgets.

``memory.tensors[]`` rules are matched against the model here, once, so the planner sees a plain
record per tensor (where it must live, where a constant is staged to, its alignment) and every
mistake in a rule is reported before any arena is laid out. ``memory.constraints[]`` and the
platform together give the :class:`MemoryBudget`: which read-write memories data may fill, in
which order, and how many bytes of each are still free.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel, AirTensorKind, TensorId
from helia_aot.config.rules import rule_ids
from helia_aot.config.sections import check_alignment
from helia_aot.errors import InvalidConfigError

if TYPE_CHECKING:
    from helia_aot.config.rules import MemoryConstraint, TensorRule
    from helia_aot.platforms.model import SocPlatform

READ_ONLY_MEMORIES = ("MRAM", "FLASH")
"""Memories the module cannot write at run time: they hold constants only."""


def memory_name(value: Any) -> str:
    """The upper-case spelling the generated C and the reports use (``dtcm`` -> ``DTCM``)."""
    return str(getattr(value, "value", value)).upper()


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class TensorPlacement:
    """What the ``memory.tensors[]`` rules reaching one tensor set (later rules win per field).

    ``memory`` is where the tensor lives (for a staged constant: where its bytes are stored),
    ``destination`` the memory a constant is copied into at init, ``rules`` the indices of the
    rules that reached the tensor, for messages.
    """

    memory: str | None = None
    destination: str | None = None
    alignment: int | None = None
    rules: list[int] = field(default_factory=list)


def _reaches(rule: TensorRule, kind: AirTensorKind) -> bool:
    selector = str(rule.type.value)
    return selector == "*" or selector == kind.value


def tensor_placements(model: AirModel, rules: Iterable[TensorRule]) -> dict[TensorId, TensorPlacement]:
    """Merge the ``memory.tensors[]`` rules into one :class:`TensorPlacement` per reached tensor.

    Raises InvalidConfigError for a rule naming a tensor id the model does not have (naming the
    nearest ids) or a tensor whose kind the rule's ``type`` excludes: a rule that silently
    reaches nothing would leave the user believing a placement happened.
    """
    result: dict[TensorId, TensorPlacement] = {}
    for index, rule in enumerate(rules):
        where = f"memory.tensors[{index}]"
        ids = rule_ids(rule.id)
        if ids:
            targets = []
            for rid in ids:
                tensor = model.tensors.get(TensorId(str(rid)))
                if tensor is None:
                    close = difflib.get_close_matches(str(rid), list(model.tensors), n=3, cutoff=0.5)
                    hint = (
                        f"did you mean {', '.join(repr(c) for c in close)}?"
                        if close
                        else "tensor ids are listed in the residency report (memory.dump_residency_json)"
                    )
                    raise InvalidConfigError(
                        f"{where} names tensor id {rid!r}, which the model does not have", hint=hint
                    )
                if not _reaches(rule, tensor.kind):
                    raise InvalidConfigError(
                        f"{where} is for {rule.type} tensors, but tensor {rid!r} is a {tensor.kind} tensor",
                        hint=f"set type: {tensor.kind} or type: '*' in that rule",
                    )
                targets.append(tensor)
        else:
            targets = [t for t in model.tensors.values() if _reaches(rule, t.kind)]
        attrs = rule.attributes
        for tensor in targets:
            entry = result.setdefault(tensor.id, TensorPlacement())
            entry.rules.append(index)
            if attrs.memory is not None:
                entry.memory = memory_name(attrs.memory)
            if attrs.constant_destination_memory is not None and tensor.kind is AirTensorKind.CONSTANT:
                entry.destination = memory_name(attrs.constant_destination_memory)
            if attrs.alignment is not None:
                # Checked again: a value assigned after validation would reach the planner unchecked.
                entry.alignment = check_alignment(attrs.alignment, f"{where}.attributes.alignment")
    return result


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class MemoryBudget:
    """The memories a module may use, their caps, and what the plan has taken so far.

    ``order`` lists the read-write memories automatic placement fills, fastest first; ``caps`` the
    bytes of each memory the module may use (None: no known limit); ``constrained`` says the caps
    and order come from ``memory.constraints`` rather than the platform; ``alignments`` the
    ``arena_alignment`` floor of each memory that sets one (the arena's base and every slot in it);
    ``listed`` every memory in the order the platform prefers or the constraints list them,
    read-only ones included (the order constants fill).
    """

    order: list[str]
    caps: dict[str, int | None]
    constrained: bool
    listed: list[str] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=dict)
    alignments: dict[str, int] = field(default_factory=dict)

    def alignment(self, memory: str, floor: int) -> int:
        """The alignment of an arena in ``memory``: ``floor`` raised to its ``arena_alignment``."""
        return max(floor, self.alignments.get(memory, 1))

    def free(self, memory: str) -> int | None:
        cap = self.caps.get(memory)
        return None if cap is None else cap - self.used.get(memory, 0)

    def fits(self, memory: str, nbytes: int) -> bool:
        free = self.free(memory)
        return free is None or nbytes <= free

    def take(self, memory: str, nbytes: int) -> None:
        self.used[memory] = self.used.get(memory, 0) + nbytes

    def describe(self, memory: str) -> str:
        """``DTCM (cap 507904 B, 1024 B free)`` for error messages."""
        cap, free = self.caps.get(memory), self.free(memory)
        if cap is None:
            return f"{memory} (no cap)"
        return f"{memory} (cap {cap} B, {max(free or 0, 0)} B free)"


def _platform_budgets(platform: SocPlatform) -> dict[str, int]:
    return {memory_name(m): size for m, size in platform.memories}


def memory_budget(platform: SocPlatform, constraints: Iterable[MemoryConstraint] | None) -> MemoryBudget:
    """The budget a plan works against: ``memory.constraints`` when given, else the platform's.

    With constraints, read-write data fills only the memories they list, in their order, and each
    cap is the smaller of ``max_size`` (none: no cap) and the platform's size (a cap cannot create memory). A
    read-only memory they do not list still holds the constants, within the platform's size.
    """
    budgets = _platform_budgets(platform)
    constraints = list(constraints or ())
    if not constraints:
        listed = [memory_name(m) for m in platform.preferred_order]
        order = [m for m in listed if m not in READ_ONLY_MEMORIES] or ["SRAM"]
        caps: dict[str, int | None] = {m: size for m, size in budgets.items()}
        return MemoryBudget(order=order, caps=caps, constrained=False, listed=listed)
    caps = {m: size for m, size in budgets.items() if m in READ_ONLY_MEMORIES}
    order = []
    listed = []
    alignments: dict[str, int] = {}
    for index, constraint in enumerate(constraints):
        memory = memory_name(constraint.name)
        if budgets and memory not in budgets:
            raise InvalidConfigError(
                f"memory.constraints[{index}] caps {memory}, which platform {platform.name!r} does not have",
                hint="the platform has: " + ", ".join(budgets),
            )
        size = budgets.get(memory)
        wanted = None if constraint.max_size is None else int(constraint.max_size)
        if wanted is not None and size is not None and wanted > size:
            raise InvalidConfigError(
                f"memory.constraints max_size {wanted} for {memory.lower()} is outside the {size} bytes "
                f"target {platform.name} has.",
                hint=f"give a max_size of at most {size}, or leave max_size out to use all of it",
            )
        caps[memory] = size if wanted is None else wanted
        if constraint.arena_alignment is not None:
            alignments[memory] = check_alignment(
                constraint.arena_alignment, f"memory.constraints[{index}].arena_alignment"
            )
        listed.append(memory)
        if memory not in READ_ONLY_MEMORIES:
            order.append(memory)
    if not order:
        raise InvalidConfigError(
            "memory.constraints lists no read-write memory for activations",
            hint="add a constraint for dtcm, sram or another RAM",
        )
    return MemoryBudget(order=order, caps=caps, constrained=True, alignments=alignments, listed=listed)


def constant_home(platform: SocPlatform, budget: MemoryBudget) -> str:
    """Where constants are stored when nothing else holds them, and where a staging rule without
    ``memory`` keeps its source bytes: MRAM, else FLASH, else the slowest RAM."""
    names = set(_platform_budgets(platform))
    for candidate in READ_ONLY_MEMORIES:
        if candidate in names:
            return candidate
    return budget.order[-1]


def constant_order(platform: SocPlatform, budget: MemoryBudget) -> list[str]:
    """The memories constants are read in place from, in the order they fill: the platform's
    preferred order (DTCM, SRAM, MRAM, ... on an Apollo510) or the constraints' list, read-only
    memories included, then :func:`constant_home` when the list leaves it out (as heliaAOT 1.1
    does: constants share the fast memories with the arenas and take their bytes first)."""
    home = constant_home(platform, budget)
    listed = list(dict.fromkeys(budget.listed or budget.order))
    return listed if home in listed else [*listed, home]


def check_rule_memory(
    placement: TensorPlacement, kind: AirTensorKind, budget: MemoryBudget, platform: SocPlatform
) -> None:
    """Reject a rule that places a tensor where it cannot live, naming the rule."""
    where = "memory.tensors[" + "], [".join(str(i) for i in placement.rules) + "]"
    known = set(budget.caps)
    for memory, what in (
        (placement.memory, "memory"),
        (placement.destination, "constant_destination_memory"),
    ):
        if memory is None:
            continue
        if known and memory not in known:
            allowed = ", ".join(m.lower() for m in budget.caps)
            reason = (
                "memory.constraints does not list it"
                if budget.constrained
                else (f"platform {platform.name!r} does not have it")
            )
            raise InvalidConfigError(
                f"{where} sets {what}: {memory.lower()}, but {reason}", hint=f"choose one of: {allowed}"
            )
        writable = what == "constant_destination_memory" or kind is not AirTensorKind.CONSTANT
        if writable and memory in READ_ONLY_MEMORIES:
            target = (
                "constants are copied into"
                if what == "constant_destination_memory"
                else (f"{kind} tensors are written at run time and cannot live in")
            )
            raise InvalidConfigError(
                f"{where} sets {what}: {memory.lower()}, which is read-only; {target} it",
                hint="choose a RAM such as dtcm or sram",
            )


__all__ = [
    "READ_ONLY_MEMORIES",
    "MemoryBudget",
    "TensorPlacement",
    "check_rule_memory",
    "constant_home",
    "constant_order",
    "memory_budget",
    "memory_name",
    "tensor_placements",
]
