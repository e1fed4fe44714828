"""C literals that round-trip exactly: what Python computed is what the C compiler sees."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

_FLT_MAX = float(np.finfo(np.float32).max)


def c_float(value: float) -> str:
    """A float32 literal that parses back to exactly ``np.float32(value)``.

    Infinities become ``±FLT_MAX`` style literals (activation clamps use them), NaN is rejected.
    """
    v = np.float32(value)
    if np.isnan(v):
        raise ValueError("NaN has no C literal here")
    if np.isinf(v):
        v = np.float32(_FLT_MAX if v > 0 else -_FLT_MAX)
    text = (
        np.format_float_positional(v, unique=True, trim="0")
        if abs(v) >= 1e-4 or v == 0
        else (np.format_float_scientific(v, unique=True, trim="0"))
    )
    if "." not in text and "e" not in text:
        text += ".0"
    if text.endswith("."):
        text += "0"
    return f"{text}f"


def c_bool(value: bool) -> str:
    return "true" if value else "false"


def c_int_list(values: Iterable[int], per_line: int = 16) -> str:
    """Comma-separated integers, wrapped for readability (no trailing comma)."""
    items = [str(int(v)) for v in values]
    if not items:
        return "0"
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return ",\n    ".join(lines)


def c_float_list(values: Iterable[float], per_line: int = 8) -> str:
    items = [c_float(v) for v in values]
    if not items:
        return "0.0f"
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return ",\n    ".join(lines)


_HEX_ITEMS = tuple(f"0x{b:02x}" for b in range(256))
"""``0x00`` .. ``0xff``: a table lookup per byte, for data that is not a bytes object."""


def c_hex_bytes(data: bytes, per_line: int = 20) -> str:
    """Bytes as ``0x..`` items, ``per_line`` to a line; the bulk format of constant arenas.

    Constants are most of a module's text, so a bytes object is formatted by whole-buffer calls
    rather than an item per byte (four times faster): ``bytes.hex`` with a separator gives every
    item and a ``, `` after it, all six characters wide, so the line breaks are one slice
    assignment at every ``per_line``-th separator.
    """
    if not data:
        return "0x00"
    if type(data) not in (bytes, bytearray) or per_line < 1:
        hexes = list(map(_HEX_ITEMS.__getitem__, data))
        return ",\n".join(", ".join(hexes[i : i + per_line]) for i in range(0, len(hexes), per_line))
    text = bytearray(b"0x" + data.hex(" ").encode("ascii").replace(b" ", b", 0x"))
    stride = 6 * per_line  # "0x??, " per item; the last item has no separator
    text[stride - 1 :: stride] = b"\n" * len(range(stride - 1, len(text), stride))
    return text.decode("ascii")
