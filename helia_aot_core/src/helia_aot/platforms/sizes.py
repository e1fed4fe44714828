"""Byte sizes as people write them in configuration files and read them in reports.

Memory budgets are stored as plain byte counts, but a YAML file is easier to review when it says
``3MiB`` than ``3145728``; these helpers convert both ways without losing a byte.
"""

from __future__ import annotations

import re

from helia_aot.errors import InvalidConfigError

_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}
_SIZE_RE = re.compile(r"^\s*(\d[\d_,]*)\s*([A-Za-z]*)\s*$")


def parse_byte_size(value: object, *, what: str = "size") -> int:
    """Read a byte count given as an int or as text such as ``"496KiB"``, ``"3 MiB"`` or ``"2,048,000"``.

    Only binary suffixes (``B``, ``KiB``, ``MiB``, ``GiB``) are accepted: ``KB``/``MB`` mean 1000 to
    some readers and 1024 to others, and a budget that is off by 2.4 % fails only on the board.
    """
    if isinstance(value, bool):  # bool is an int subclass; True bytes is never meant
        raise InvalidConfigError(f"{what} must be a byte count, not {value!r}.")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = _SIZE_RE.match(value)
        if match:
            digits, unit = match.groups()
            factor = _UNITS.get(unit.lower())
            if factor is not None:
                return int(digits.replace("_", "").replace(",", "")) * factor
        raise InvalidConfigError(
            f"{what} {value!r} is not a byte size.",
            hint="Write a whole number of bytes, optionally with a binary unit: 2048000, 496KiB, 3MiB, 1GiB.",
        )
    raise InvalidConfigError(f"{what} must be a byte count, not {type(value).__name__} {value!r}.")


def format_byte_size(nbytes: int) -> str:
    """The exact size in the largest binary unit that divides it (``3 MiB``, ``4,032 KiB``, ``100 B``)."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor:,} {unit}"
    return f"{nbytes:,} B"


__all__ = ["format_byte_size", "parse_byte_size"]
