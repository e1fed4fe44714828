"""Pausing Python's cyclic garbage collector while a conversion builds its objects.

A conversion allocates hundreds of thousands of small objects (the model's tables, AIR tensors,
records, template contexts) and keeps most of them until it ends. Each allocation burst makes the
collector walk every live object again looking for unreachable cycles, of which a conversion makes
few: measured with ``gc.callbacks``, the collections took a tenth of a 1,000-layer model's
conversion (324 of them) and a few percent of KWS's and VWW's. Reference counting still frees
everything that is not part of a cycle while the collector is paused; the cycles left (about
12 MB on the 1,000-layer model) are collected by the next automatic collection once it is
resumed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused(*, keep: bool = False) -> Iterator[None]:
    """Run the block with the cyclic collector off, then restore the state it had (a caller that
    paused it already, or turned it off for good, keeps it that way).

    ``keep=True`` is for a block whose objects live as long as the process (the command's imports:
    modules, classes, functions). They are moved to the collector's permanent generation
    (``gc.freeze``) before it is resumed: otherwise the first allocation after resuming starts a
    collection that walks all of them (measured: 35 ms after the command's imports, more than
    any stage of KWS), and later full collections walk them again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep:
            gc.freeze()
        if was_enabled:
            gc.enable()


def collector_off_for_command() -> bool:
    """Turn the cyclic collector off for the rest of a command's process; returns the previous state.

    A command process ends when its command does, so the cycles it leaves are freed at exit.
    Without this the collector resumed when the conversion ended and, at the summary's first
    allocations, walked everything the conversion had built before the process exited.
    :func:`collector_restored` undoes it for a caller that runs the command in-process.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    return was_enabled


def collector_restored(was_enabled: bool) -> None:
    """Resume the collector turned off by :func:`collector_off_for_command`, without a collection
    over what the command built (frozen first, as ``collector_paused(keep=True)`` does)."""
    if was_enabled:
        gc.freeze()
        gc.enable()


__all__ = ["collector_off_for_command", "collector_paused", "collector_restored"]
