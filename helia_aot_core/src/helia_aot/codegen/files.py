"""Writing a generated text file in one system call sequence: open, one write, close.

``Path.write_text(text, encoding="utf-8", newline="\\n")`` builds a text-mode wrapper (an encoder
and a newline translator) around each file; a module of a thousand operators writes two thousand
files, and those wrappers were a tenth of Emit. The bytes are the same: the text is encoded once
as UTF-8 and written with no newline translation (what ``newline="\\n"`` asks for).
"""

from __future__ import annotations

import os


def write_text_file(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, newlines untranslated (replacing any existing file)."""
    with open(path, "wb") as handle:
        handle.write(text.encode("utf-8"))


__all__ = ["write_text_file"]
