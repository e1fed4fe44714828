"""Sanitizing names that come from a model file before they reach C, paths or comments.

A model file is untrusted input: a tensor called ``x */ #include "evil.h"`` must not become code.
Everything from a model goes through one of these functions before emission.
"""

from __future__ import annotations

import re
from functools import lru_cache

# C99 keywords plus names the generated code and common toolchains reserve.
_RESERVED = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef union
    unsigned void volatile while _Bool _Complex _Imaginary bool true false NULL main asm""".split()
)

_NOT_IDENT = re.compile(r"[^A-Za-z0-9_]+")


_PLAIN_IDENT = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
"""Text ``c_identifier`` returns unchanged (when short enough and not reserved): lower case, single
underscores between letters and digits, a letter first. Most names asked for are already so."""


# Pure, and asked for the same names many times per operator: each text is worked out once (a
# model of a thousand operators asks for some ten thousand names).
@lru_cache(maxsize=1 << 15)
def c_identifier(text: str, *, max_length: int = 48, fallback: str = "t") -> str:
    """Turn arbitrary text into a lower-case C identifier fragment.

    Runs of characters outside ``[A-Za-z0-9_]`` become one underscore, the result is lower-cased and
    cut to ``max_length``; a leading digit, an empty result or a reserved word gets a prefix. The
    result is safe both as part of a C identifier and as a file name.
    """
    if len(text) <= max_length and _PLAIN_IDENT.fullmatch(text) and text not in _RESERVED:
        return text
    name = _NOT_IDENT.sub("_", text.encode("ascii", "ignore").decode("ascii")).strip("_").lower()
    name = re.sub(r"_+", "_", name)[:max_length].rstrip("_")
    if not name:
        name = fallback
    if name[0].isdigit() or name in _RESERVED:
        name = f"{fallback}_{name}"
    return name


# Pure, and asked for the same comments many times per operator: each text is worked out once.
@lru_cache(maxsize=4096)
def c_comment(text: str, *, max_length: int = 120) -> str:
    """Make text safe inside a ``/* ... */`` comment on one line.

    Non-printable and non-ASCII characters become ``?``; ``*/``, ``/*``, ``//``, backslashes and
    ``??`` trigraph starts are broken up so the comment cannot end early, splice lines or change
    meaning under trigraph translation.
    """
    if not (text.isascii() and text.isprintable()):  # printable ASCII is exactly 32..126
        text = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)
    text = text.replace("\\", "/").replace("*/", "* /").replace("/*", "/ *").replace("//", "/ /")
    while "??" in text:
        text = text.replace("??", "? ?")
    if len(text) > max_length:
        text = text[: max_length - 3] + "..."
    return text


def c_string(text: str) -> str:
    """A C string literal (with quotes) holding ``text`` with every risky byte escaped."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?' or byte < 32 or byte >= 127:
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
