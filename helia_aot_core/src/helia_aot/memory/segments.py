"""Placement across memories: one offset space cut into consecutive segments, one per memory.

When the tensors do not fit the fastest memory, planning each memory's arena on its own sizes each
one at the peak of the tensors it got; those peaks add up to far more than the model's peak (a
face detector needed 1.75x its live bytes across DTCM, SRAM and PSRAM). Laying every tensor out in
one offset space instead, the first memory's free bytes first, then the next memory's, and so on,
keeps the sum of the regions near the one peak: at any operator the live tensors sit at distinct
offsets of one space whose segments are the memories. A buffer never straddles two segments (a
tensor lives in one memory): first-fit moves one that would on to the next segment's start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from helia_aot.memory.placement import Placer


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


__all__ = ["place_in_segments", "segment_starts"]
