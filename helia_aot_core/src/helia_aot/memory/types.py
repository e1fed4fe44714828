"""Records the arena planner reads and writes."""

from __future__ import annotations

import operator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BufferRequest:
    """One buffer that needs arena bytes during an inclusive range of operator indices.

    ``first`` is the index of the first operator that needs the buffer (model inputs use 0) and
    ``last`` the index of the last one (model outputs use one past the last operator, for the
    caller's read after the run, so no buffer can be placed in place of them). ``inplace_of`` names
    a buffer whose exact offset this one may reuse: an elementwise operator can write its output over
    an input that dies at that operator, which is what lets a chain of such operators run in the
    memory of one tensor. The planner honours it only when the partner ends exactly at this
    buffer's ``first`` and is at least as large (see :func:`helia_aot.memory.placement.inplace_pairs`),
    or, with ``grows``, is smaller: then this buffer starts at the partner's offset and runs on past
    its end (a convolution that adds channels writes its rows last first over its input).

    Construction raises ValueError for a request no planner could satisfy, so a bad request is
    reported where it is made rather than deep inside a search.
    """

    id: str
    size: int
    first: int
    last: int
    alignment: int = 16
    inplace_of: str | None = None
    grows: bool = False

    def __post_init__(self) -> None:
        for name in ("size", "first", "last", "alignment"):
            value = getattr(self, name)
            if isinstance(value, bool):  # True is an int, but never a byte count or an index
                raise ValueError(f"buffer {self.id!r}: {name} must be an integer, not {value!r}")
            try:
                object.__setattr__(self, name, operator.index(value))
            except TypeError:
                raise ValueError(f"buffer {self.id!r}: {name} must be an integer, not {value!r}") from None
        if self.size <= 0:
            raise ValueError(f"buffer {self.id!r}: size must be positive, got {self.size}")
        if self.first < 0:
            raise ValueError(f"buffer {self.id!r}: first must be >= 0, got {self.first}")
        if self.first > self.last:
            raise ValueError(f"buffer {self.id!r}: first ({self.first}) is after last ({self.last})")
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise ValueError(f"buffer {self.id!r}: alignment must be a power of two, got {self.alignment}")

    def overlaps_in_time(self, other: BufferRequest) -> bool:
        """Whether both buffers are needed by at least one common operator."""
        return self.first <= other.last and other.first <= self.last


@dataclass(frozen=True, slots=True)
class ArenaPlan:
    """Where each buffer lives in one arena, and how close that is to the best possible.

    ``used`` is the arena size the plan needs (the largest ``offset + size``); ``peak_live`` is a
    lower bound no plan can beat (see :func:`helia_aot.memory.placement.peak_live`), so
    ``used / peak_live`` says how much a better planner could still save.
    """

    offsets: dict[str, int]
    used: int
    peak_live: int
    planner: str
