"""The kernel choice by modeled cycles: which of a layer's kernels the goal takes, by its shape.

Where an int8 layer has several kernels, the choice at conversion reads ``kernel_cycles.json``
(beside this module). ``bench/kernel_cycles.py`` writes it: it converts a one-operator model per
grid shape with each kernel, cross-builds it for the Cortex-M55 and the Cortex-M4 and runs it
under the cycle model (``helia_aot.testing.cycles``, the core's default platform), one row per
family, core, shape and kernel with the modeled cycles and the instructions of one inference.
The decisions it holds (its families):

- ``conv_s8``, ``depthwise_s8``, ``fully_connected_s8``: the ``kernel`` knob's ``specialized``
  fast paths or ``generic`` loop of int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, on both
  cores;
- ``conv_im2col``: on the Cortex-M55, Helium's im2col kernel or the direct fast path for an int8
  CONV_2D over at most 8 input channels (``conv.im2col_packing``: where the kernel applies).

A layer looks its shape up: the grid shape of its family and core nearest to it (the sum of the
distances of the log2 of each dimension, so 8 and 16 channels are as far apart as 32 and 64),
whose rows then stand for the layer. The goal decides from those rows:

- ``latency``: the kernel with the fewest modeled cycles;
- ``balanced``: the same among the kernels whose scratch for this layer is no more than that of
  the kernel balanced took before (the arena bound: the planned arena cannot grow by the choice);
- ``size`` and ``accuracy``: no say here; the knob's ``auto`` table keeps their choices.

A kernel replaces the one the ``auto`` table names only when its modeled cycles are fewer and
its instructions no more, so the cycle model never trades the instruction floors away. A family,
core or shape the table lacks leaves the ``auto`` table's choice: nothing is extrapolated past
the grid's families and cores.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

TABLE_NAME = "kernel_cycles.json"
TABLE_FORMAT_VERSION = 1

CONV_FEATURES = ("height", "width", "in_channels", "out_channels", "kernel_h", "kernel_w", "stride")

FEATURES: Mapping[str, tuple[str, ...]] = {
    "conv_im2col": CONV_FEATURES,
    "conv_s8": CONV_FEATURES,
    "depthwise_s8": ("height", "width", "channels", "kernel_h", "kernel_w", "stride"),
    "fully_connected_s8": ("depth", "units"),
}
"""The shape of a layer of each family, in the order the table writes it."""

IM2COL_VALUES = ("im2col", "direct")
"""The ``conv_im2col`` decision: Helium's im2col kernel for an int8 CONV_2D over few input
channels (``conv.im2col_packing``), or the convolution's direct fast path. Only the Cortex-M55
has rows: no other core runs the im2col kernel."""

_FORCED: dict[str, str] = {}
"""Kernels :func:`forced` imposes by family (the bench's way to convert with each kernel of a
decision no knob selects); empty in every conversion outside it."""

GOALS_DECIDED = ("latency", "balanced")
"""The goals whose choice the table makes (the others keep the knob's ``auto`` table)."""


@dataclass(frozen=True, slots=True)
class KernelCycles:
    """One family, core, grid shape and kernel: one inference's modeled cycles and instructions."""

    family: str
    cpu: str
    shape: tuple[int, ...]
    value: str
    cycles: int
    instructions: int

    def record(self) -> dict[str, Any]:
        """The table's JSON form of this row."""
        return {
            "family": self.family,
            "cpu": self.cpu,
            "shape": list(self.shape),
            "value": self.value,
            "cycles": self.cycles,
            "instructions": self.instructions,
        }

    def key(self) -> tuple[str, str, tuple[int, ...], str]:
        """The row's place in the table (its sort key; unique)."""
        return (self.family, self.cpu, self.shape, self.value)


def table_text(rows: Sequence[KernelCycles], generated_by: str) -> str:
    """The table file for ``rows``: sorted by family, core, shape and kernel, one row a line, so
    the same measurements always write the same bytes and a regeneration diffs row by row."""
    ordered = sorted(rows, key=KernelCycles.key)
    lines = ",\n".join("    " + json.dumps(row.record(), sort_keys=True) for row in ordered)
    features = json.dumps({name: list(names) for name, names in sorted(FEATURES.items())}, sort_keys=True)
    return (
        "{\n"
        f'  "format_version": {TABLE_FORMAT_VERSION},\n'
        f'  "generated_by": {json.dumps(generated_by)},\n'
        f'  "features": {features},\n'
        f'  "entries": [\n{lines}\n  ]\n'
        "}\n"
    )


def parse_table(text: str) -> tuple[KernelCycles, ...]:
    """The rows of a table file; a format or feature list this module does not know is refused
    with ValueError (a table from another version of the pack)."""
    data: Any = json.loads(text)
    if data.get("format_version") != TABLE_FORMAT_VERSION:
        raise ValueError(f"unsupported {TABLE_NAME} format {data.get('format_version')!r}")
    if data.get("features") != {name: list(names) for name, names in FEATURES.items()}:
        raise ValueError(f"{TABLE_NAME} describes shapes by other features than this pack")
    rows = []
    for entry in data["entries"]:
        row = KernelCycles(
            str(entry["family"]),
            str(entry["cpu"]),
            tuple(int(d) for d in entry["shape"]),
            str(entry["value"]),
            int(entry["cycles"]),
            int(entry["instructions"]),
        )
        if len(row.shape) != len(FEATURES.get(row.family, ())):
            raise ValueError(f"{TABLE_NAME}: {row.family} row with shape {list(row.shape)}")
        rows.append(row)
    return tuple(rows)


@lru_cache(maxsize=1)
def kernel_cycles_table() -> tuple[KernelCycles, ...]:
    """The packaged table, read once."""
    return parse_table(resources.files(__package__).joinpath(TABLE_NAME).read_text(encoding="utf-8"))


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return sum(abs(math.log2(max(x, 1)) - math.log2(max(y, 1))) for x, y in zip(a, b))


_NEAREST: tuple[object, dict[tuple[object, ...], dict[str, KernelCycles]]] = ((), {})
"""The last table :func:`nearest_rows` read and its answers by (family, cpu, shape, values): a
conversion asks once per layer and layers repeat shapes, and the scan over every row was a third
of a convolution's conversion work (tests/core/test_conversion_scaling.py). Another table (a test's,
or a regenerated one) starts a new memo."""


def nearest_rows(
    family: str, cpu: str, shape: tuple[int, ...], values: Sequence[str], rows: Sequence[KernelCycles] = ()
) -> dict[str, KernelCycles]:
    """The rows of the grid shape nearest ``shape`` among those measured with every one of
    ``values`` (ties: the smaller shape), by kernel; empty when the family or core has none."""
    global _NEAREST
    table = rows or kernel_cycles_table()
    if _NEAREST[0] is not table:
        _NEAREST = (table, {})
    memo = _NEAREST[1]
    key = (family, cpu, tuple(shape), tuple(values))
    if key not in memo:
        memo[key] = _nearest(table, family, cpu, tuple(shape), tuple(values))
    return dict(memo[key])


def _nearest(
    table: Sequence[KernelCycles], family: str, cpu: str, shape: tuple[int, ...], values: tuple[str, ...]
) -> dict[str, KernelCycles]:
    by_shape: dict[tuple[int, ...], dict[str, KernelCycles]] = {}
    for row in table:
        if row.family == family and row.cpu == cpu and len(row.shape) == len(shape):
            by_shape.setdefault(row.shape, {})[row.value] = row
    complete = [s for s, found in by_shape.items() if all(v in found for v in values)]
    if not complete:
        return {}
    best = min(complete, key=lambda s: (_distance(s, shape), s))
    return {v: by_shape[best][v] for v in values}


def modeled_choice(
    family: str,
    cpu: str,
    shape: tuple[int, ...],
    goal: str,
    offered: Sequence[str],
    today: str,
    scratch: Mapping[str, int] | None = None,
    rows: Sequence[KernelCycles] = (),
) -> str | None:
    """The kernel ``goal`` takes for a layer of ``family`` and ``shape`` on ``cpu``, or None (no
    say: another goal, a single kernel, or no rows). ``today`` is the ``auto`` table's choice,
    kept unless a kernel has fewer modeled cycles and no more instructions; under ``balanced`` a
    kernel needing more scratch than ``today`` (by ``scratch``, bytes per kernel) is not taken."""
    imposed = _FORCED.get(family)
    if imposed is not None:
        return imposed if imposed in offered else None
    if goal not in GOALS_DECIDED or today not in offered or len(offered) < 2:
        return None
    found = nearest_rows(family, cpu, shape, tuple(offered), rows)
    if not found:
        return None
    base = found[today]
    best = base
    for value in offered:
        row = found[value]
        if goal == "balanced" and scratch is not None and scratch.get(value, 0) > scratch.get(today, 0):
            continue
        if row.cycles < best.cycles and row.instructions <= base.instructions:
            best = row
    return best.value


@contextmanager
def forced(family: str, value: str) -> Iterator[None]:
    """Within the block, every choice of ``family`` takes ``value`` (where it is offered),
    whatever the goal and the table: bench/kernel_cycles.py measures each kernel of a decision
    that no knob selects this way."""
    before = _FORCED.get(family)
    _FORCED[family] = value
    try:
        yield
    finally:
        if before is None:
            _FORCED.pop(family, None)
        else:
            _FORCED[family] = before


def layer_choice(op: Any, knob: str, goal: str, offered: tuple[str, ...], today: str) -> str | None:
    """:func:`modeled_choice` for one operator of the pack (its ``modeled_knob_choice``): its
    ``KNOB_FAMILY``, its platform's core, its ``kernel_shape()`` and, under ``balanced``, the
    scratch each kernel asks for this layer (``kernel_variants``)."""
    family = op.KNOB_FAMILY
    if knob != "kernel" or family not in FEATURES or goal not in GOALS_DECIDED:
        return None
    shape = op.kernel_shape()
    if shape is None:
        return None
    cpu = str(op.platform.cpu)
    unbound = modeled_choice(family, cpu, shape, goal, offered, today)
    if goal != "balanced" or unbound is None or unbound == today:
        # The scratch bound only ever keeps today's kernel, so it need not be asked for (the
        # variants' scratch is computed before the knobs are fixed, uncached: conversion work).
        return unbound
    scratch = {v.value: int(v.scratch_bytes) for v in op.kernel_variants() if v.knob == knob}
    return modeled_choice(family, cpu, shape, goal, offered, today, scratch)


__all__ = [
    "CONV_FEATURES",
    "FEATURES",
    "IM2COL_VALUES",
    "GOALS_DECIDED",
    "TABLE_FORMAT_VERSION",
    "TABLE_NAME",
    "KernelCycles",
    "forced",
    "kernel_cycles_table",
    "layer_choice",
    "modeled_choice",
    "nearest_rows",
    "parse_table",
    "table_text",
]
