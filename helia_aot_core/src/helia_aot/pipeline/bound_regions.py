"""Which arena regions the application provides, and the shared scratch buffer a module states.

A module defines every arena itself by default. ``memory.allocate_arenas: false`` leaves every
region to the application; ``memory.shared_arena.enabled`` only the scratch regions, so that
several modules of one image can be bound to one scratch buffer while each keeps its constants
and state. Emit, the records and the result views ask :func:`is_bound` per region, so the three
agree on which regions have a C object of the module's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from helia_aot.config.args import ConvertArgs


def is_bound(config: ConvertArgs | None, role: str) -> bool:
    """Whether the application binds a region of ``role`` (``<prefix>_bind_arena``) rather than the
    module defining its buffer."""
    if config is None:
        return False
    memory = config.memory
    return not memory.allocate_arenas or (memory.shared_arena.enabled and role == "scratch")


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class SharedScratch:
    """The shared buffer in one memory: its bytes, this module's own need, who sets the size."""

    memory: str
    size: int
    own: int
    set_by: str

    @property
    def record(self) -> dict[str, Any]:
        return {"memory": self.memory, "size": self.size, "own": self.own, "set_by": self.set_by}


def shared_scratch(config: ConvertArgs, own: dict[str, int]) -> list[SharedScratch]:
    """One row per memory holding this module's scratch (``own``: memory -> bytes its region
    needs) or named by ``memory.shared_arena.size``: the shared size (the set's, or this module's
    own need when the module was not planned with others) and which module sets it."""
    shared = config.memory.shared_arena
    if not shared.enabled:
        return []
    rows = []
    for memory in sorted(set(own) | set(shared.size)):
        need = own.get(memory, 0)
        size = max(shared.size.get(memory, 0), need)
        setter = shared.set_by.get(memory) if shared.size.get(memory, 0) >= need else None
        rows.append(SharedScratch(memory, size, need, setter or config.module.name))
    return rows


def shared_arena_record(config: ConvertArgs, own: dict[str, int]) -> dict[str, Any] | None:
    """The report's ``shared_arena`` section, or None when the module shares no scratch."""
    if not config.memory.shared_arena.enabled:
        return None
    shared = config.memory.shared_arena
    record: dict[str, Any] = {
        "modules": list(shared.modules) or [config.module.name],
        "regions": [row.record for row in shared_scratch(config, own)],
    }
    if shared.reserved or shared.constants:
        record["reserved"], record["constants"] = dict(shared.reserved), dict(shared.constants)
    return record


__all__ = ["SharedScratch", "is_bound", "shared_arena_record", "shared_scratch"]
