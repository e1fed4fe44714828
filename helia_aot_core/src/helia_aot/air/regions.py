"""Where control-flow regions sit in the schedule.

A model with IF or WHILE keeps one flat operator list: each control-flow operator is followed
directly by the operators of its regions, one region after the other in the order its options name
them, and a nested control-flow operator's regions follow it inside its own region (a pre-order
walk). The layout is computed here from the operators' ``region`` tags, never stored, so a
transform that drops an operator inside a region cannot leave a stale index range behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from helia_aot.air.graph import AirControlFlowOptions, AirModel, AirOperator
from helia_aot.air.types import OpId


@dataclass(frozen=True, slots=True)
class RegionLayout:
    """Index ranges of a model's regions.

    ``regions`` maps a region name to ``(first, end)``, the schedule indices of its operators
    (``end`` exclusive; an empty region has ``first == end``). ``owners`` maps each control-flow
    operator's schedule index to the index one past its last region operator. ``next_index[i]`` is
    the index of the next operator at ``i``'s own level: ``i + 1``, or past its regions for an
    owner. ``loop_owners`` lists the owners whose regions repeat.
    """

    regions: dict[str, tuple[int, int]]
    owners: dict[int, int]
    next_index: tuple[int, ...]
    loop_owners: frozenset[int]


class RegionLayoutError(ValueError):
    """The operators' region tags do not form the nested layout (a bug in a stage or transform)."""


def owned_regions(op: AirOperator) -> tuple[str, ...]:
    """The regions ``op`` runs, in order (empty for every operator but IF/WHILE-like ones)."""
    options = op.options
    return tuple(options.regions) if isinstance(options, AirControlFlowOptions) else ()


def region_layout(model: AirModel) -> RegionLayout:
    """The layout of ``model``'s regions; RegionLayoutError when the tags are out of place."""
    ops = model.operators
    count = len(ops)
    spans: dict[str, tuple[int, int]] = {}
    owners: dict[int, int] = {}
    loops: set[int] = set()
    following = list(range(1, count + 1))

    def walk(position: int, region: str) -> int:
        while position < count and ops[position].region == region:
            owner = position
            op = ops[position]
            position += 1
            names = owned_regions(op)
            for name in names:
                if name in spans:
                    raise RegionLayoutError(f"region {name!r} is run by two operators")
                info = model.regions.get(name)
                if info is None:
                    raise RegionLayoutError(f"operator {op.id} runs region {name!r}, which the model lacks")
                if info.owner != OpId(op.id):
                    raise RegionLayoutError(f"region {name!r} belongs to {info.owner}, not to {op.id}")
                first = position
                position = walk(position, name)
                spans[name] = (first, position)
            if names:
                owners[owner] = position
                following[owner] = position
                if isinstance(op.options, AirControlFlowOptions) and op.options.LOOPS:
                    loops.add(owner)
        return position

    end = walk(0, "")
    if end != count:
        op = ops[end]
        raise RegionLayoutError(
            f"operator {op.id} ({op.op_type}) of region {op.region!r} is not inside its owner's range"
        )
    missing = sorted(set(model.regions) - set(spans))
    if missing:
        raise RegionLayoutError(f"no operator runs the region(s) {', '.join(missing)}")
    return RegionLayout(spans, owners, tuple(following), frozenset(loops))


__all__ = ["RegionLayout", "RegionLayoutError", "owned_regions", "region_layout"]
