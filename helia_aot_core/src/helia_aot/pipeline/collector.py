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
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off, then restore the state it had (a caller that
    paused it already, or turned it off for good, keeps it that way)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


__all__ = ["collector_paused"]
