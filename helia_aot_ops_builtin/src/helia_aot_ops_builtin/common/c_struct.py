"""struct_init: a C brace initializer for a kernel's positional params struct.

The activation, softmax and row-normalization operators write their params structs this way.
It sits in its own module so an operator that only needs the initializer (softmax, in most
models) does not import the activation operators' module and its registrations.
"""

from __future__ import annotations

from typing import Any


def struct_init(*fields: Any) -> str:
    """A C brace initializer; nested sequences become nested braces."""

    def one(v: Any) -> str:
        return struct_init(*v) if isinstance(v, (list, tuple)) else str(v)

    return "{" + ", ".join(one(f) for f in fields) + "}"


__all__ = ["struct_init"]
