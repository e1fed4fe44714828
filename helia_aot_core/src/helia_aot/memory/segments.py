"""Placement across memories: one offset space cut into consecutive segments, one per memory.

When the tensors do not fit the fastest memory, planning each memory's arena on its own sizes each
one at the peak of the tensors it got; those peaks add up to far more than the model's peak (a
face detector needed 1.75x its live bytes across DTCM, SRAM and PSRAM). Laying every tensor out in
one offset space instead, the first memory's free bytes first, then the next memory's, and so on,
keeps the sum of the regions near the one peak: at any operator the live tensors sit at distinct
offsets of one space whose segments are the memories. A buffer never straddles two segments (a
tensor lives in one memory): first-fit moves one that would on to the next segment's start.

Which tensors the fastest segment holds decides what the accesses cost: :func:`hot_first` gives it
the peak's tensors in turn where the bound asks, then the tensors read most per byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from helia_aot.memory.placement import Placer, inplace_pairs


def _align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) & -alignment


def segment_starts(caps: Sequence[int | None], alignment: int) -> list[int]:
    """Where each segment starts: each cap (None: no end) rounded down to ``alignment`` so every
    segment starts aligned, after the ones before it."""
    starts, at = [], 0
    for cap in caps:
        starts.append(at)
        at += (cap or 0) // alignment * alignment
    return starts


def place_in_segments(
    placer: Placer,
    order: Sequence[int],
    caps: Sequence[int | None],
    allowed: Mapping[int, int] | None = None,
) -> tuple[list[int], list[int]] | None:
    """First-fit ``order`` into consecutive segments of ``caps`` bytes (None: unbounded, last only).

    Returns each buffer's offset in the one space and its segment index, or None when a buffer
    finds no room. ``allowed`` pins buffers (by request index) to one segment. A buffer tries its
    in-place partner's offset first, as :meth:`Placer.place` does; otherwise it takes the lowest
    aligned offset clear of every placed buffer it conflicts with that keeps it inside one segment.
    """
    alignment = max(placer.align, default=1)
    starts = segment_starts(caps, alignment)
    ends = [None if cap is None else start + cap // alignment * alignment for start, cap in zip(starts, caps)]
    pinned = allowed or {}
    offsets = [-1] * len(placer.buffers)
    segment = [-1] * len(placer.buffers)

    def segment_of(at: int) -> int:
        k = 0
        while k + 1 < len(starts) and starts[k + 1] <= at:
            k += 1
        return k

    def fits(i: int, at: int) -> bool:
        k = segment_of(at)
        end = ends[k]
        return (end is None or at + placer.size[i] <= end) and pinned.get(i, k) == k

    for i in order:
        size, align = placer.size[i], placer.align[i]
        placed = sorted((j for j in placer.conflicts[i] if offsets[j] >= 0), key=offsets.__getitem__)
        chosen = -1
        for p in placer.partners[i]:
            at = offsets[p]
            if at >= 0 and at % align == 0 and fits(i, at) and placer._clear(i, at, placed, offsets):
                chosen = at
                break
        at = starts[pinned[i]] if i in pinned else 0
        while chosen < 0:
            for j in placed:
                start = offsets[j]
                if start + placer.size[j] <= at:
                    continue
                if start >= at + size:
                    break
                at = max(at, _align_up(start + placer.size[j], align))
            k = segment_of(at)
            if fits(i, at):
                chosen = at
            elif k + 1 < len(starts) and (i not in pinned or pinned[i] > k):
                at = starts[k + 1]
            else:
                return None
        offsets[i], segment[i] = chosen, segment_of(chosen)
    return offsets, segment


def hot_first(
    placer: Placer,
    heat: Sequence[float],
    room: int,
    budget: int,
    pinned: Mapping[int, int] | None = None,
) -> tuple[list[int], int] | None:
    """The buffers the first segment (the fastest memory, ``room`` bytes) takes so that it holds
    the buffers read most per byte while the split stays within ``budget``, and the bytes they use
    there.

    Cut from one arena's layout, the first segment holds whatever sits at its offsets, however
    rarely it is read. Here the segment's bytes ``room`` count in full against ``budget`` (the sum
    of all memories' bytes allowed), so the other memories may hold at most ``budget - room`` at
    any operator. First, while some operator leaves them more than that, the largest buffer live
    there joins the segment (first-fit inside ``room``); this gives the segment the tensors of the
    peak, in turns where their lifetimes allow. Then every other buffer, read most per byte first
    (``heat``: bytes accessed per byte stored, ties in request order), joins where first-fit
    finds it an offset inside ``room``: it can only lower what the others hold. ``pinned`` buffers
    (request index -> segment) of segment 0 join first, those of other segments never. None when
    the pinned ones or the peak do not fit. Returns the order they were placed in (first-fit in
    that order gives their offsets again) and the segment's used bytes.
    """
    pins = pinned or {}
    alignment = max(placer.align, default=1)
    end = room // alignment * alignment
    offsets = [-1] * len(placer.buffers)
    taken: list[int] = []
    rest = set(range(len(placer.buffers)))
    index = {b.id: i for i, b in enumerate(placer.buffers)}
    pairs = [(index[c], index[p]) for c, p in inplace_pairs(placer.buffers).items()]

    def profile(held: set[int]) -> dict[int, int]:
        """Bytes of ``held`` live at each operator where that changes, a pair in place counted once."""
        delta: dict[int, int] = {}
        for j in held:
            b = placer.buffers[j]
            delta[b.first] = delta.get(b.first, 0) + b.size
            delta[b.last + 1] = delta.get(b.last + 1, 0) - b.size
        for c, p in pairs:
            if c in held and p in held:
                shared, at = min(placer.size[c], placer.size[p]), placer.buffers[c].first
                delta[at] -= shared
                delta[at + 1] = delta.get(at + 1, 0) + shared
        live, steps = 0, {}
        for t in sorted(delta):
            live += delta[t]
            steps[t] = live
        return steps

    def first_fit(i: int) -> int:
        size, align = placer.size[i], placer.align[i]
        placed = sorted((j for j in placer.conflicts[i] if offsets[j] >= 0), key=offsets.__getitem__)
        for p in placer.partners[i]:
            at = offsets[p]
            if at >= 0 and at % align == 0 and placer._clear(i, at, placed, offsets):
                return at
        at = 0
        for j in placed:
            start = offsets[j]
            if start + placer.size[j] <= at:
                continue
            if start >= at + size:
                break
            at = _align_up(start + placer.size[j], align)
        return at

    def join(i: int) -> bool:
        at = first_fit(i)
        if at + placer.size[i] > end:
            return False
        offsets[i] = at
        taken.append(i)
        rest.discard(i)
        return True

    for i in sorted(i for i, k in pins.items() if k == 0):
        if not join(i):
            return None
    free = [i for i in range(len(placer.buffers)) if i not in pins]
    while True:
        steps = profile(rest)
        step = max(steps, key=lambda t: (steps[t], -t), default=0)
        if steps.get(step, 0) <= budget - end:
            break
        live = [i for i in free if i in rest and placer.buffers[i].first <= step <= placer.buffers[i].last]
        if not any(join(i) for i in sorted(live, key=lambda i: (-placer.size[i], i))):
            return None
    for i in sorted((i for i in free if i in rest), key=lambda i: (-heat[i], i)):
        join(i)
    used = max((offsets[i] + placer.size[i] for i in taken), default=0)
    return taken, used


__all__ = ["hot_first", "place_in_segments", "segment_starts"]
