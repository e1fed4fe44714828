"""Indented JSON text, the same bytes as ``json.dumps(value, indent=2)``, made faster.

With ``indent`` set, :func:`json.dumps` cannot use its C encoder and walks the value with nested
Python generators, one ``yield`` per token; the plan and report records of a model of a thousand
operators hold hundreds of thousands of tokens, and that walk was a tenth of such a conversion.
Here containers are walked by plain recursion into one list of strings (the commonest leaves,
exact ``str``, ``int``, ``None`` and ``bool``, spelled inside their container's loop rather than by
a call each), and every leaf is spelled by the same functions :mod:`json` uses (its C string
escaper, ``int.__repr__``, ``float.__repr__``), so the text is unchanged byte for byte (a property
test compares the two on random values).
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii
from typing import Any

_INFINITY = float("inf")


def _float_text(value: float) -> str:
    # json's spelling: repr, except the three values JSON has no literal for (allow_nan=True).
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _key_text(key: Any) -> str:
    # The key conversions json.dumps makes (skipkeys=False), in its order: bool before int.
    if isinstance(key, str):
        return encode_basestring_ascii(key)
    if isinstance(key, float):
        return '"' + _float_text(key) + '"'
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return '"' + int.__repr__(key) + '"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _write(value: Any, out: list[str], indent: str, level: int) -> None:
    kind = type(value)
    if kind is dict:
        _write_dict(value, out, indent, level)
    elif kind is list or kind is tuple:
        _write_list(value, out, indent, level)
    elif isinstance(value, str):
        out.append(encode_basestring_ascii(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float_text(value))
    elif isinstance(value, (list, tuple)):
        _write_list(value, out, indent, level)
    elif isinstance(value, dict):
        _write_dict(value, out, indent, level)
    else:
        raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


# The records are dicts and lists of dicts: containers are told by exact type, an item that is one
# is written by a direct call (the isinstance chain cost five calls per container), and each item
# goes out with its separator in one append.


def _write_list(value: list[Any] | tuple[Any, ...], out: list[str], indent: str, level: int) -> None:
    if not value:
        out.append("[]")
        return
    inner = "\n" + indent * (level + 1)
    separator = "," + inner
    lead = "[" + inner
    for item in value:
        kind = type(item)  # the commonest leaves spelled here, without a call each
        if kind is str:
            out.append(lead + encode_basestring_ascii(item))
        elif kind is int:
            out.append(lead + int.__repr__(item))
        else:
            out.append(lead)
            if kind is dict:
                _write_dict(item, out, indent, level + 1)
            else:
                _write(item, out, indent, level + 1)
        lead = separator
    out.append("\n" + indent * level + "]")


def _write_dict(value: dict[Any, Any], out: list[str], indent: str, level: int) -> None:
    if not value:
        out.append("{}")
        return
    inner = "\n" + indent * (level + 1)
    separator = "," + inner
    lead = "{" + inner
    for key, item in value.items():
        key_text = lead + (encode_basestring_ascii(key) if type(key) is str else _key_text(key))
        kind = type(item)
        if kind is str:
            out.append(key_text + ": " + encode_basestring_ascii(item))
        elif kind is int:
            out.append(key_text + ": " + int.__repr__(item))
        elif item is None:
            out.append(key_text + ": null")
        elif kind is bool:
            out.append(key_text + (": true" if item else ": false"))
        else:
            out.append(key_text + ": ")
            if kind is dict:
                _write_dict(item, out, indent, level + 1)
            elif kind is list:
                _write_list(item, out, indent, level + 1)
            else:
                _write(item, out, indent, level + 1)
        lead = separator
    out.append("\n" + indent * level + "}")


def dumps_indented(value: Any, indent: int = 2) -> str:
    """``json.dumps(value, indent=indent)``: the same text (keys in insertion order, ASCII only)."""
    out: list[str] = []
    _write(value, out, " " * indent, 0)
    return "".join(out)


__all__ = ["dumps_indented"]
