"""Platform tables for people: the Markdown the docs show and reports print.

The table is generated from the platform records so the documentation cannot drift from what a
conversion actually assumes; a test compares the docs against this output.
"""

from __future__ import annotations

from collections.abc import Iterable

from helia_aot.platforms.model import MemoryType, SocPlatform
from helia_aot.platforms.sizes import format_byte_size


def format_platform_table(platforms: Iterable[SocPlatform]) -> str:
    """A Markdown table of ``platforms`` sorted by name, one column per memory any of them has.

    Sizes are exact (``4,032 KiB`` rather than a rounded ``3.9 MiB``): budgets are compared against
    byte counts, and a reader checking a linker script needs the same number.
    """
    rows = sorted(platforms, key=lambda p: p.name)
    memories = [m for m in MemoryType if any(p.has_memory(m) for p in rows)]
    header = ["Platform", "CPU", "Capabilities", *(m.value.upper() for m in memories), "Fill order", "Align"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for p in rows:
        info = p.to_dict()
        cells = [
            f"`{p.name}`",
            p.cpu,
            ", ".join(info["capabilities"]),
            *(format_byte_size(p.budget(m)) if p.has_memory(m) else "-" for m in memories),
            ", ".join(info["preferred_order"]),
            str(p.alignment),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


__all__ = ["format_platform_table"]
