"""Canonical operator keys: the one string shared by a parser, an AIR op_type and an operator class."""

from __future__ import annotations

import enum
import re

from helia_aot.errors import UnsupportedModelError

_ALLOWED = re.compile(r"[A-Za-z0-9 _-]*")
_KEY_HINT = (
    "a customCode may hold only ASCII letters, digits, '-', '_' and spaces, with at least one "
    "letter or digit; rename the custom operator in the model (and in the plugin that handles it)"
)


def custom_code_to_op_key(custom_code: str | bytes | bytearray) -> str:
    """Derive the canonical operator key from a LiteRT ``customCode`` (text or its raw bytes).

    Hyphens and spaces become underscores first, then surrounding whitespace is trimmed and the
    result upper-cased. Because spaces are replaced before the trim, a leading or trailing space
    becomes an underscore: ``' custom-noop '`` gives ``'_CUSTOM_NOOP_'``.

    A key has to be a C identifier fragment and a registry key at once, so a code that cannot
    become one is refused here, where its origin is known, rather than emitted into C: bytes that
    are not UTF-8, any character other than an ASCII letter, digit, hyphen, space or underscore,
    and a code without a single letter or digit all raise UnsupportedModelError (the rules of the
    product this compiler replaces, so a model and plugin that work there work here).
    """
    if isinstance(custom_code, (bytes, bytearray)):
        raw = bytes(custom_code)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UnsupportedModelError(f"customCode {raw!r} is not UTF-8 text.", hint=_KEY_HINT) from None
    elif isinstance(custom_code, str):
        text = custom_code
    else:
        raise TypeError(f"a customCode is str or bytes, not {type(custom_code).__name__}")
    if not _ALLOWED.fullmatch(text):
        bad = next(ch for ch in text if not _ALLOWED.fullmatch(ch))
        raise UnsupportedModelError(
            f"customCode {text!r} holds the character {bad!r}, which no operator key may contain.",
            hint=_KEY_HINT,
        )
    if not any(ch.isalnum() for ch in text):
        raise UnsupportedModelError(f"customCode {text!r} has no letter or digit.", hint=_KEY_HINT)
    return text.replace("-", "_").replace(" ", "_").strip().upper()


def canonical_op_key(op: object) -> str:
    """Return the canonical key of a builtin name, an enum member, or a custom code.

    Enum members give their value (``AirOpType.CONV_2D`` -> ``'CONV_2D'``). A string that is a
    valid custom code goes through :func:`custom_code_to_op_key` (builtin names such as
    ``'CONV_2D'`` come out unchanged, and an ``operators[].type`` may name a custom operator by its
    code); any other string is only upper-cased, as the product does, so a lookup with it simply
    finds nothing instead of failing.
    """
    if isinstance(op, enum.Enum):
        op = op.value
    if not isinstance(op, str):
        raise TypeError(f"an operator key must be a string or an enum member, not {type(op).__name__}")
    try:
        return custom_code_to_op_key(op)
    except UnsupportedModelError:
        return op.upper()
