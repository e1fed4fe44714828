"""What occupies each scratch arena at each operator: the facts behind the memory picture and hints.

Every tensor placed in a scratch region is listed with its own lifetime (an alias of a reshape's
input or an in-place output gets its own span at its root's offset), so a reader sees each name
the model uses. Live bytes at an operator are the union of the byte ranges live there, which
counts storage shared by an alias or an in-place output once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from helia_aot.air import AirModel
from helia_aot.memory import compute_lifetimes
from helia_aot.pipeline.plan_records import MemoryPlan


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class LiveTensor:
    """One scratch tensor: its bytes in the region and the operator indices that need them."""

    id: str
    name: str
    offset: int
    size: int
    first: int
    last: int


@dataclass(slots=True)
class RegionOccupancy:
    """One scratch region over the schedule: its tensors and the bytes live at each operator.

    ``capacity`` is the cap of its memory (shared with every other region there; None: no known
    cap) and ``wait_states`` what one access there adds (the platform's figure), so a picture of
    several regions says which memory each is and what reading from it costs."""

    region: int
    memory: str
    used: int
    tensors: list[LiveTensor] = field(default_factory=list)
    live: list[int] = field(default_factory=list)
    capacity: int | None = None
    wait_states: int = 0
    name: str | None = None
    """The region's ``<prefix>_arena_region_t`` enumerator, when the caller knows the prefix."""

    @property
    def peak_index(self) -> int | None:
        """The first operator index with the most live bytes (None for an empty schedule)."""
        if not self.live:
            return None
        return max(range(len(self.live)), key=lambda i: (self.live[i], -i))

    @property
    def peak_bytes(self) -> int:
        return max(self.live, default=0)

    def live_at(self, index: int) -> list[LiveTensor]:
        """Tensors live at operator ``index``, by offset."""
        return sorted((t for t in self.tensors if t.first <= index <= t.last), key=lambda t: (t.offset, t.id))


def _union_bytes(ranges: list[tuple[int, int]]) -> int:
    total, end = 0, None
    for start, stop in sorted(ranges):
        if end is None or start >= end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def scratch_occupancy(
    model: AirModel,
    plan: MemoryPlan,
    num_operators: int,
    wait_states: Callable[[str], int] | None = None,
    names: Mapping[int, str] | None = None,
) -> list[RegionOccupancy]:
    """One RegionOccupancy per scratch region of ``plan``, in region order; ``wait_states`` gives
    each memory's wait states (the platform's ``wait_states_of``; 0 for all without it) and
    ``names`` each region's enumerator by plan region id."""
    lifetimes = compute_lifetimes(model)
    end = max(num_operators - 1, 0)
    regions = {
        r.id: RegionOccupancy(
            r.id,
            r.memory,
            r.used,
            capacity=r.capacity,
            wait_states=wait_states(r.memory) if wait_states else 0,
            name=(names or {}).get(r.id),
        )
        for r in plan.regions
        if r.role == "scratch"
    }
    for tid, tensor in model.tensors.items():
        placement = plan.placements.get(tid)
        if placement is None or placement.region not in regions:
            continue
        # A tensor the schedule never touches still holds its bytes for the whole run. A model
        # output lives past the last operator (the caller reads it); the picture ends at that one.
        first, last = lifetimes.get(tid, (0, end))
        last = min(last, end)
        regions[placement.region].tensors.append(
            LiveTensor(str(tid), tensor.name, placement.offset, placement.size, first, last)
        )
    for occupancy in regions.values():
        # Each tensor is filed under the steps it lives in (in tensor order, as a scan per step
        # would list them): work in proportion to the lifetimes, not steps times tensors.
        spans: list[list[tuple[int, int]]] = [[] for _ in range(num_operators)]
        for t in occupancy.tensors:
            for i in range(max(t.first, 0), min(t.last, num_operators - 1) + 1):
                spans[i].append((t.offset, t.offset + t.size))
        occupancy.live = [_union_bytes(step) for step in spans]
    return list(regions.values())


__all__ = ["LiveTensor", "RegionOccupancy", "scratch_occupancy"]
