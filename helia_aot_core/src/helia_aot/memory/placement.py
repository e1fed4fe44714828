"""First-fit placement of buffers in one arena, the in-place rules, and the lower bound on its size.

Every planner is "choose an order, then place each buffer at the lowest aligned offset that is free
for its whole lifetime"; they differ only in how they choose the order. :class:`Placer` holds what
all of those placements share (who conflicts with whom, who may share whose offset) so a search can
re-place thousands of orders cheaply.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

from helia_aot.memory.types import BufferRequest


def check_requests(buffers: Sequence[BufferRequest]) -> None:
    """Raise ValueError for a request set no plan can describe: repeated or unknown ids."""
    ids: set[str] = set()
    for b in buffers:
        if not isinstance(b, BufferRequest):
            raise ValueError(f"expected BufferRequest, got {type(b).__name__}")
        if b.id in ids:
            raise ValueError(f"buffer id {b.id!r} is requested twice")
        ids.add(b.id)
    for b in buffers:
        if b.inplace_of is not None and b.inplace_of not in ids:
            raise ValueError(f"buffer {b.id!r} is in place of {b.inplace_of!r}, which is not requested")


def inplace_pairs(buffers: Sequence[BufferRequest]) -> dict[str, str]:
    """The ``inplace_of`` requests the planners honour, as child id -> partner id.

    A request is honoured when the partner is another buffer that ends exactly where the child
    begins and is at least as large (so the child fits inside the bytes the partner frees), or
    when the child ``grows`` (it starts at the partner's offset and runs on past its end). So that
    sharing stays a relation between two buffers, each buffer takes part in at most one honoured
    pair at any operator index: a partner keeps only its first claimant (by ``first``, then id),
    and a one-operator buffer cannot both replace one buffer and be replaced by another at that
    operator. Requests that break these rules are ignored, not errors: they are hints.
    """
    by_id = {b.id: b for b in buffers}
    busy: dict[str, set[int]] = {}  # buffer id -> operator indices at which it is already paired
    pairs: dict[str, str] = {}
    claimants = sorted((b for b in buffers if b.inplace_of is not None), key=lambda b: (b.first, b.id))
    for child in claimants:
        partner = by_id.get(child.inplace_of)  # type: ignore[arg-type]
        if partner is None or partner.id == child.id:
            continue
        if partner.last != child.first or (child.size > partner.size and not child.grows):
            continue
        t = child.first
        if t in busy.get(partner.id, ()) or t in busy.get(child.id, ()):
            continue
        pairs[child.id] = partner.id
        busy.setdefault(partner.id, set()).add(t)
        busy.setdefault(child.id, set()).add(t)
    return pairs


def peak_live(buffers: Sequence[BufferRequest]) -> int:
    """The largest number of bytes needed at once: a lower bound on any plan's ``used``.

    At each operator index, sum the sizes of the buffers live there; a buffer honoured as in place
    of a partner that dies at that index is not counted again (a growing one only past the
    partner's size), since it occupies the partner's bytes. No plan can use less, because
    buffers live at the same index may only share bytes through such a pair.
    """
    check_requests(buffers)
    delta: dict[int, int] = {}
    for b in buffers:
        delta[b.first] = delta.get(b.first, 0) + b.size
        delta[b.last + 1] = delta.get(b.last + 1, 0) - b.size
    by_id = {b.id: b for b in buffers}
    shared: dict[int, int] = {}
    for child_id, partner_id in inplace_pairs(buffers).items():
        child = by_id[child_id]
        shared[child.first] = shared.get(child.first, 0) + min(child.size, by_id[partner_id].size)
    best = live = 0
    for t in sorted(delta):
        live += delta[t]
        best = max(best, live - shared.get(t, 0))
    return best


def live_by_step(buffers: Sequence[BufferRequest], steps: Iterable[int]) -> dict[int, list[BufferRequest]]:
    """For each of ``steps``, the buffers live there (``first <= step <= last``), in request order.

    One sweep over the buffers sorted by ``first``, the steps in increasing order, keeping the live
    set in a heap by ``last``: the work is the buffers plus the live sets returned, where asking
    each step of every buffer separately scanned all of them per step (quadratic in the model).
    """
    order = sorted(range(len(buffers)), key=lambda i: buffers[i].first)
    live: dict[int, BufferRequest] = {}
    ends: list[tuple[int, int]] = []
    found: dict[int, list[BufferRequest]] = {}
    cursor = 0
    for step in sorted(set(steps)):
        while cursor < len(order) and buffers[order[cursor]].first <= step:
            index = order[cursor]
            live[index] = buffers[index]
            heapq.heappush(ends, (buffers[index].last, index))
            cursor += 1
        while ends and ends[0][0] < step:
            live.pop(heapq.heappop(ends)[1])
        found[step] = [live[i] for i in sorted(live)]
    return found


def _align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) & -alignment


class Placer:
    """First-fit placement of one request set in any order.

    Buffers are addressed by their index in the request sequence; conflict lists (buffers whose
    lifetimes intersect) are computed once, so placing an order costs about ``n * d`` steps where
    ``d`` is the typical number of simultaneously live buffers.
    """

    __slots__ = ("buffers", "size", "align", "conflicts", "partners")

    def __init__(self, buffers: Sequence[BufferRequest]) -> None:
        check_requests(buffers)
        self.buffers = list(buffers)
        self.size = [b.size for b in self.buffers]
        self.align = [b.alignment for b in self.buffers]
        index = {b.id: i for i, b in enumerate(self.buffers)}
        self.conflicts: list[list[int]] = [[] for _ in self.buffers]
        # Sweep by start so only overlapping pairs are visited, not all n^2 of them.
        by_first = sorted(range(len(self.buffers)), key=lambda i: (self.buffers[i].first, i))
        open_: list[int] = []
        for i in by_first:
            start = self.buffers[i].first
            open_ = [j for j in open_ if self.buffers[j].last >= start]
            for j in open_:
                self.conflicts[i].append(j)
                self.conflicts[j].append(i)
            open_.append(i)
        # partners[i]: buffers that may sit at exactly i's offset (its honoured partner and child).
        self.partners: list[tuple[int, ...]] = [() for _ in self.buffers]
        for child_id, partner_id in inplace_pairs(self.buffers).items():
            c, p = index[child_id], index[partner_id]
            self.partners[c] += (p,)
            self.partners[p] += (c,)

    def __len__(self) -> int:
        return len(self.buffers)

    def place(self, order: Sequence[int]) -> tuple[list[int], int]:
        """Place buffers in ``order``; return offsets (by request index) and the arena size used.

        A buffer whose in-place partner is already placed first tries the partner's offset, then
        falls back to the lowest aligned offset clear of every placed buffer it conflicts with.
        """
        offsets = [-1] * len(self.buffers)
        used = 0
        for i in order:
            size, align = self.size[i], self.align[i]
            placed = [j for j in self.conflicts[i] if offsets[j] >= 0]
            chosen = -1
            for p in self.partners[i]:
                at = offsets[p]
                if at >= 0 and at % align == 0 and self._clear(i, at, placed, offsets):
                    chosen = at
                    break
            if chosen < 0:
                chosen = 0
                for j in sorted(placed, key=offsets.__getitem__):
                    start = offsets[j]
                    if start + self.size[j] <= chosen:
                        continue
                    if start >= chosen + size:
                        break
                    chosen = _align_up(start + self.size[j], align)
            offsets[i] = chosen
            used = max(used, chosen + size)
        return offsets, used

    def _clear(self, i: int, at: int, placed: list[int], offsets: list[int]) -> bool:
        """Whether ``i`` at ``at`` overlaps no placed conflicting buffer but a partner at ``at``."""
        end = at + self.size[i]
        for j in placed:
            start = offsets[j]
            if start < end and at < start + self.size[j]:
                if not (start == at and j in self.partners[i]):
                    return False
        return True
