"""KernelLibrary: folders of ``hk_<family>.h`` / ``.c`` files that operators copy into modules.

A *family* ``name`` is the header ``hk_<name>.h`` in one folder of the search path and its sources
beside it: ``hk_<name>.c``, the portable C that is the reference (a header-only family has none),
and the fast paths that live apart from it, one file per instruction set: ``hk_<name>_mve.c``
(Helium), ``hk_<name>_dsp.c`` (the DSP extension) and ``hk_<name>_scalar.c`` (plain C for cores with
neither), each wrapped in its ``#if`` so the others compile to nothing. Its dependencies are the
``#include "hk_*.h"`` lines of its files, so a pack keeps no manifest in sync:
:meth:`KernelLibrary.sources` follows the includes and returns exactly the files a module needs,
which is how only the kernels a module calls get copied into it. The Emit stage copies each file
once and renames its ``hk_`` / ``HK_`` identifiers to the module prefix, so two modules link into
one image.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar, cast

_INCLUDE = re.compile(r'#\s*include\s+"(hk_[A-Za-z0-9_]+\.h)"')
"""An ``#include "hk_*.h"`` directive once :func:`includes_of` has checked that only white space
comes before its ``#`` on its line. The pattern starts with a literal, so the search jumps from one
``#`` to the next; a ``^`` in multi-line mode is tried at every character, which over the files a
module needs took 6 ms of a KWS conversion's 430 (a tenth of that now)."""
_T = TypeVar("_T")
FAST_PATHS = ("mve", "dsp", "scalar")
"""Suffixes of a family's fast-path sources, ``hk_<name>_<suffix>.c``."""


def includes_of(text: str) -> list[str]:
    """The ``hk_*.h`` names of ``text``'s ``#include "..."`` lines, in order: each ``#`` is the
    first character on its line that is not white space (as ``^\\s*#`` in multi-line mode)."""
    found = []
    for match in _INCLUDE.finditer(text):
        start = match.start()
        line_start = text.rfind("\n", 0, start) + 1
        if line_start == start or text[line_start:start].isspace():
            found.append(match.group(1))
    return found


class KernelLibrary:
    """The kernel families in the folders of a search path; an include of another family pulls it
    in too, wherever on the path that family lives.

    ``KernelLibrary(folder)`` is a library of one folder; ``KernelLibrary(a, b, ...)`` searches its
    folders in order, so a pack can keep each family's files beside the code that calls them (the
    built-in pack keeps one folder per operator family and the headers they share in ``common/``).
    A family's header, reference source and fast paths sit in one folder: the first folder on the
    path holding ``hk_<name>.h``.
    """

    __slots__ = ("search_path",)

    search_path: tuple[Path, ...]

    def __init__(self, *search_path: Path | str) -> None:
        if not search_path:
            raise ValueError("a KernelLibrary needs at least one folder")
        object.__setattr__(self, "search_path", tuple(Path(d) for d in search_path))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"KernelLibrary is immutable (cannot set {name})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KernelLibrary) and other.search_path == self.search_path

    def __hash__(self) -> int:
        return hash(self.search_path)

    def __repr__(self) -> str:
        return f"KernelLibrary({', '.join(repr(str(d)) for d in self.search_path)})"

    def _key(self) -> tuple[str, ...]:
        return tuple(str(d) for d in self.search_path)

    def families(self) -> list[str]:
        """Every family name on the search path, sorted (a name found twice counts once)."""
        return sorted({p.stem[3:] for directory in self.search_path for p in directory.glob("hk_*.h")})

    def family_folder(self, family: str) -> Path:
        """The folder holding ``family``'s files: the first on the search path with its header."""
        for directory in self.search_path:
            if _file_test(directory)(directory / f"hk_{family}.h"):
                return directory
        raise KeyError(f"no kernel family {family!r}; known families: {', '.join(self.families())}")

    def family_files(self, family: str) -> list[Path]:
        """The files of one family: its header, its reference source, then its fast paths."""
        return list(_remembered("family", (self._key(), family), lambda: self._family_files(family)))

    def _family_files(self, family: str) -> list[Path]:
        directory = self.family_folder(family)
        is_file = _file_test(directory)
        header = directory / f"hk_{family}.h"
        sources = [directory / f"hk_{family}.c"]
        sources += [directory / f"hk_{family}_{suffix}.c" for suffix in FAST_PATHS]
        return [header, *(path for path in sources if is_file(path))]

    def sources(self, *families: str) -> list[Path]:
        """Every file the given families need, dependencies first, each once, in a stable order.

        Inside :func:`scan_once` (the Emit stage) each answer is remembered, so a model with a
        thousand convolutions reads the kernel folder once, not once per operator.
        """
        return list(_remembered("sources", (self._key(), families), lambda: self._scan(families)))

    def _scan(self, families: tuple[str, ...]) -> list[Path]:
        ordered: list[Path] = []
        seen: set[str] = set()  # families: a family's header is no other family's file

        def visit(family: str) -> None:
            if family in seen:
                return
            files = self.family_files(family)
            seen.add(family)
            for path in files:
                for include in _includes(path):
                    dependency = include[3:-2]
                    if dependency != family:
                        visit(dependency)
            ordered.extend(files)

        for family in families:
            visit(family)
        return ordered


_SCANS: ContextVar[dict[tuple[str, Hashable], Any] | None] = ContextVar(
    "helia_aot_kernel_scans", default=None
)
"""What one :func:`scan_once` block has learnt about kernel folders, by (kind, key): the answers
per set of families, and below them what those answers are made of: each family's files (VWW's
answers visit its 27 families 190 times), the regular files of each folder (one listing instead of
a ``stat`` per possible file of every family), each file's text and includes (``hk_common.h`` is
read once, not once per family that pulls it in; Emit copies the text it already holds). Most
families a module needs share their dependencies: a KWS conversion read 80 files and made 750
``stat`` calls for 45 files."""


def _remembered(kind: str, key: Hashable, compute: Callable[[], _T]) -> _T:
    """``compute()``; inside :func:`scan_once` once per ``kind`` and ``key`` for the block."""
    memo = _SCANS.get()
    if memo is None:
        return compute()
    slot = (kind, key)
    if slot not in memo:
        memo[slot] = compute()
    return cast(_T, memo[slot])


def _regular_files(directory: Path) -> frozenset[str]:
    try:
        with os.scandir(directory) as entries:
            return frozenset(entry.name for entry in entries if entry.is_file())
    except OSError:
        return frozenset()


def _file_test(directory: Path) -> Callable[[Path], bool]:
    """``Path.is_file`` for files of ``directory``; inside :func:`scan_once` an answer from one
    listing of the folder (links followed, as ``is_file`` follows them)."""
    if _SCANS.get() is None:
        return Path.is_file
    listed = _remembered("listing", directory, lambda: _regular_files(directory))
    return lambda path: path.name in listed


def kernel_text(path: Path) -> str:
    """The text of a kernel file (UTF-8, universal newlines, as ``Path.read_text`` gives it): inside
    :func:`scan_once` read once however many families include it and whoever asks."""
    return _remembered("text", path, lambda: path.read_text(encoding="utf-8"))


def _includes(path: Path) -> list[str]:
    return _remembered("includes", path, lambda: includes_of(kernel_text(path)))


@contextmanager
def scan_once() -> Iterator[None]:
    """Remember :meth:`KernelLibrary.sources` answers, the folders' listings and the files' texts
    until the block ends.

    The files do not change while one module is emitted; outside the block every call reads the
    folder again, so an author editing kernels between conversions sees the change.
    """
    token = _SCANS.set({})
    try:
        yield
    finally:
        _SCANS.reset(token)
