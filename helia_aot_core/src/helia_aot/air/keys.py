"""Canonical operator keys: the one string shared by a parser, an AIR op_type and an operator class."""

from __future__ import annotations

import enum


def custom_code_to_op_key(custom_code: str) -> str:
    """Derive the canonical operator key from a LiteRT ``customCode``.

    Hyphens and spaces become underscores first, then surrounding whitespace is trimmed and the
    result upper-cased. Because spaces are replaced before the trim, a leading or trailing space
    becomes an underscore: ``' custom-noop '`` gives ``'_CUSTOM_NOOP_'``. Nothing else is rewritten.
    """
    return custom_code.replace("-", "_").replace(" ", "_").strip().upper()


def canonical_op_key(op: object) -> str:
    """Return the canonical key of a builtin name, an enum member, or a custom code.

    Enum members give their value (``AirOpType.CONV_2D`` -> ``'CONV_2D'``); strings go through
    :func:`custom_code_to_op_key`, which leaves builtin names such as ``'CONV_2D'`` unchanged.
    """
    if isinstance(op, enum.Enum):
        op = op.value
    if not isinstance(op, str):
        raise TypeError(f"an operator key must be a string or an enum member, not {type(op).__name__}")
    return custom_code_to_op_key(op)
