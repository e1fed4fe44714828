"""Conversion-time geometry of the layout operators, as calls of the N-d strided copy kernel.

SLICE, STRIDED_SLICE, TRANSPOSE, CONCATENATION, SPLIT, PACK, UNPACK and PAD's interior never look
at element values: each is one or more walks over an N-d box with a start offset and per-dimension
strides on both sides. Working those out here, once, leaves the C with a table of
``hk_strided_copy`` parameters and no index arithmetic of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

MAX_RANK = 6
"""``HK_COPY_MAX_RANK``: dimensions one ``hk_strided_copy`` call can walk."""

_INT32_MAX = 2**31 - 1


class StridedCopyFields(TypedDict):
    """``hk_strided_copy_params_t`` in bytes, as :meth:`StridedCopy.byte_fields` gives it."""

    rank: int
    elem_size: int
    src_offset: int
    dst_offset: int
    counts: list[int]
    src_strides: list[int]
    dst_strides: list[int]


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    """Element strides of a row-major (C order) array of ``shape``."""
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * int(shape[k + 1])
    return strides


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` in ``[-rank, rank)`` as a non-negative index; ValueError naming ``what`` otherwise."""
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def product(values: Sequence[int]) -> int:
    n = 1
    for v in values:
        n *= int(v)
    return n


@dataclass(slots=True)
class StridedCopy:
    """One ``hk_strided_copy`` call, in elements: element ``i`` of the box goes from
    ``src_offset + sum(i_k * src_strides[k])`` to ``dst_offset + sum(i_k * dst_strides[k])``."""

    counts: tuple[int, ...]
    src_strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    src_offset: int = 0
    dst_offset: int = 0

    @property
    def elements(self) -> int:
        return product(self.counts)

    def simplified(self) -> StridedCopy:
        """The same walk with unit dimensions dropped and mergeable neighbours fused, so the
        innermost run is as long as possible (one memcpy per row) and the rank is minimal."""
        if self.elements == 0:
            return StridedCopy((0,), (1,), (1,), self.src_offset, self.dst_offset)
        dims = [(c, s, d) for c, s, d in zip(self.counts, self.src_strides, self.dst_strides) if c != 1]
        merged: list[tuple[int, int, int]] = []
        for count, src, dst in dims:
            if merged:
                outer_count, outer_src, outer_dst = merged[-1]
                if outer_src == src * count and outer_dst == dst * count:
                    merged[-1] = (outer_count * count, src, dst)
                    continue
            merged.append((count, src, dst))
        if not merged:
            merged = [(1, 1, 1)]
        counts, srcs, dsts = zip(*merged)
        return StridedCopy(tuple(counts), tuple(srcs), tuple(dsts), self.src_offset, self.dst_offset)

    def byte_fields(self, elem_size: int) -> StridedCopyFields:
        """The kernel's parameter fields in bytes; ValueError when the walk needs more than
        ``MAX_RANK`` dimensions or an offset or stride does not fit an int32."""
        walk = self.simplified()
        rank = len(walk.counts)
        if rank > MAX_RANK:
            raise ValueError(
                f"the copy needs {rank} dimensions after merging; at most {MAX_RANK} are supported"
            )
        fields: StridedCopyFields = {
            "rank": rank,
            "elem_size": int(elem_size),
            "src_offset": walk.src_offset * elem_size,
            "dst_offset": walk.dst_offset * elem_size,
            "counts": list(walk.counts),
            "src_strides": [s * elem_size for s in walk.src_strides],
            "dst_strides": [d * elem_size for d in walk.dst_strides],
        }
        reach = (
            abs(walk.src_offset)
            + abs(walk.dst_offset)
            + sum(c * (abs(s) + abs(d)) for c, s, d in zip(walk.counts, walk.src_strides, walk.dst_strides))
        ) * elem_size
        if reach > _INT32_MAX:
            raise ValueError("the copy spans more than 2 GiB, beyond the kernel's int32 offsets")
        return fields

    def c_initializer(self, elem_size: int) -> str:
        """A C initializer of ``hk_strided_copy_params_t`` (unused dimensions zero)."""
        f = self.byte_fields(elem_size)

        def padded(values: Sequence[int]) -> str:
            items = list(values) + [0] * (MAX_RANK - len(values))
            return "{" + ", ".join(str(int(v)) for v in items) + "}"

        return (
            f"{{{f['rank']}, {f['elem_size']}, {f['src_offset']}, {f['dst_offset']}, "
            f"{padded(f['counts'])}, {padded(f['src_strides'])}, {padded(f['dst_strides'])}}}"
        )


def transpose_copy(shape: Sequence[int], perm: Sequence[int]) -> StridedCopy:
    """Output dimension ``k`` walks input dimension ``perm[k]`` (LiteRT Transpose)."""
    in_strides = contiguous_strides(shape)
    out_shape = [int(shape[p]) for p in perm]
    return StridedCopy(
        tuple(out_shape), tuple(in_strides[p] for p in perm), tuple(contiguous_strides(out_shape))
    )


def window_copy(
    shape: Sequence[int], starts: Sequence[int], counts: Sequence[int], steps: Sequence[int]
) -> StridedCopy:
    """Gather a (possibly reversed, strided) window of an input of ``shape`` into a contiguous
    output: along axis ``k`` it reads indices ``starts[k] + i * steps[k]``, ``i < counts[k]``."""
    in_strides = contiguous_strides(shape)
    offset = sum(int(s) * st for s, st in zip(starts, in_strides))
    return StridedCopy(
        tuple(int(c) for c in counts),
        tuple(int(step) * st for step, st in zip(steps, in_strides)),
        tuple(contiguous_strides(counts)),
        src_offset=offset,
    )


def embed_copy(inner_shape: Sequence[int], outer_shape: Sequence[int], starts: Sequence[int]) -> StridedCopy:
    """Write a contiguous array of ``inner_shape`` into an array of ``outer_shape`` at
    ``starts`` (PAD's interior)."""
    out_strides = contiguous_strides(outer_shape)
    offset = sum(int(s) * st for s, st in zip(starts, out_strides))
    return StridedCopy(
        tuple(int(c) for c in inner_shape),
        tuple(contiguous_strides(inner_shape)),
        tuple(out_strides),
        dst_offset=offset,
    )


def band_copies(outer: int, inner: int, widths: Sequence[int], *, into_whole: bool) -> list[StridedCopy]:
    """Copies between parts and a whole viewed as ``[outer, sum(widths), inner]``.

    Part ``i`` is ``[outer, widths[i], inner]`` and fills rows ``sum(widths[:i])`` onwards of the
    middle axis. ``into_whole`` writes parts into the whole (CONCATENATION, PACK); otherwise the
    whole is cut into the parts (SPLIT, SPLIT_V, UNPACK).
    """
    total = sum(int(w) for w in widths)
    copies = []
    start = 0
    for width in widths:
        part = (int(outer), int(width) * int(inner))
        part_strides = (int(width) * int(inner), 1)
        whole_strides = (total * int(inner), 1)
        offset = start * int(inner)
        if into_whole:
            copies.append(StridedCopy(part, part_strides, whole_strides, dst_offset=offset))
        else:
            copies.append(StridedCopy(part, whole_strides, part_strides, src_offset=offset))
        start += int(width)
    return copies


MAX_COPIES = 4096
"""Most ``hk_strided_copy`` calls one operator may expand to (each is a row of a const table)."""


def fit_rank(walk: StridedCopy, limit: int = MAX_COPIES) -> list[StridedCopy]:
    """``walk`` as copies of at most ``MAX_RANK`` dimensions each.

    A walk that still needs more dimensions after merging (TILE and BROADCAST_TO interleave a
    repeat dimension with every input dimension) is cut along its outermost dimension into one
    copy per index; ValueError when that needs more than ``limit`` copies.
    """
    walk = walk.simplified()
    if len(walk.counts) <= MAX_RANK:
        return [walk]
    parts: list[StridedCopy] = []
    for i in range(walk.counts[0]):
        inner = StridedCopy(
            walk.counts[1:],
            walk.src_strides[1:],
            walk.dst_strides[1:],
            walk.src_offset + i * walk.src_strides[0],
            walk.dst_offset + i * walk.dst_strides[0],
        )
        parts.extend(fit_rank(inner, limit))
        if len(parts) > limit:
            raise ValueError(f"the copy needs more than {limit} strided copies of {MAX_RANK} dimensions")
    return parts


def broadcast_copy(shape: Sequence[int], out_shape: Sequence[int]) -> StridedCopy:
    """Repeat an input of ``shape`` along its size-1 (or missing leading) dimensions up to
    ``out_shape``: a walk over the output whose source stride is 0 on repeated dimensions
    (LiteRT BroadcastTo); ValueError when the shapes are not broadcast-compatible."""
    rank = len(out_shape)
    if len(shape) > rank:
        raise ValueError(f"the input shape {tuple(shape)} has more dimensions than {tuple(out_shape)}")
    padded = [1] * (rank - len(shape)) + [int(d) for d in shape]
    strides = contiguous_strides(padded)
    src = []
    for d, o, s in zip(padded, out_shape, strides):
        if d == int(o):
            src.append(s if d != 1 else 0)
        elif d == 1:
            src.append(0)
        else:
            raise ValueError(f"the input shape {tuple(shape)} does not broadcast to {tuple(out_shape)}")
    return StridedCopy(tuple(int(o) for o in out_shape), tuple(src), tuple(contiguous_strides(out_shape)))


def tile_copy(shape: Sequence[int], multiples: Sequence[int]) -> StridedCopy:
    """LiteRT Tile: output index ``t * n + i`` of each dimension holds input index ``i``. The walk
    interleaves a repeat dimension (source stride 0) before every input dimension."""
    out_shape = [int(n) * int(m) for n, m in zip(shape, multiples)]
    in_strides, out_strides = contiguous_strides(shape), contiguous_strides(out_shape)
    counts, src, dst = [], [], []
    for n, m, s, o in zip(shape, multiples, in_strides, out_strides):
        counts += [int(m), int(n)]
        src += [0, s]
        dst += [int(n) * o, o]
    return StridedCopy(tuple(counts), tuple(src), tuple(dst))
