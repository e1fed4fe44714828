"""KernelLibrary: a folder of ``hk_<family>.h`` / ``.c`` files that operators copy into modules.

A *family* ``name`` is the header ``hk_<name>.h`` in the folder and its sources: ``hk_<name>.c``,
the portable C that is the reference (a header-only family has none), and the fast paths that live
apart from it, one file per instruction set: ``hk_<name>_mve.c`` (Helium), ``hk_<name>_dsp.c`` (the
DSP extension) and ``hk_<name>_scalar.c`` (plain C for cores with neither), each wrapped in its
``#if`` so the others compile to nothing. Its dependencies are the ``#include "hk_*.h"`` lines
of its files, so a pack keeps no manifest in sync: :meth:`KernelLibrary.sources` follows the
includes and returns exactly the files a module needs, which is how only the kernels a module
calls get copied into it. The Emit stage copies each file once and renames its ``hk_`` / ``HK_``
identifiers to the module prefix, so two modules link into one image.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s+"(hk_[A-Za-z0-9_]+\.h)"', re.MULTILINE)
FAST_PATHS = ("mve", "dsp", "scalar")
"""Suffixes of a family's fast-path sources, ``hk_<name>_<suffix>.c``."""


@dataclass(frozen=True, slots=True)
class KernelLibrary:
    """The kernel families in ``directory``; an include of another family pulls it in too."""

    directory: Path

    def families(self) -> list[str]:
        """Every family name in the folder, sorted."""
        return sorted(p.stem[3:] for p in Path(self.directory).glob("hk_*.h"))

    def family_files(self, family: str) -> list[Path]:
        """The files of one family: its header, its reference source, then its fast paths."""
        directory = Path(self.directory)
        header = directory / f"hk_{family}.h"
        if not header.is_file():
            raise KeyError(f"no kernel family {family!r}; known families: {', '.join(self.families())}")
        sources = [directory / f"hk_{family}.c"]
        sources += [directory / f"hk_{family}_{suffix}.c" for suffix in FAST_PATHS]
        return [header, *(path for path in sources if path.is_file())]

    def sources(self, *families: str) -> list[Path]:
        """Every file the given families need, dependencies first, each once, in a stable order.

        Inside :func:`scan_once` (the Emit stage) each answer is remembered, so a model with a
        thousand convolutions reads the kernel folder once, not once per operator.
        """
        cache = _SCANS.get()
        if cache is None:
            return self._scan(families)
        key = (str(self.directory), families)
        if key not in cache:
            cache[key] = self._scan(families)
        return list(cache[key])

    def _scan(self, families: tuple[str, ...]) -> list[Path]:
        ordered: list[Path] = []
        seen: set[Path] = set()

        def visit(family: str) -> None:
            files = self.family_files(family)
            if files[0] in seen:
                return
            seen.update(files)
            for path in files:
                for include in _INCLUDE.findall(path.read_text(encoding="utf-8")):
                    dependency = include[3:-2]
                    if dependency != family:
                        visit(dependency)
            ordered.extend(files)

        for family in families:
            visit(family)
        return ordered


_SCANS: ContextVar[dict[tuple[str, tuple[str, ...]], list[Path]] | None] = ContextVar(
    "helia_aot_kernel_scans", default=None
)


@contextmanager
def scan_once() -> Iterator[None]:
    """Remember :meth:`KernelLibrary.sources` answers until the block ends.

    The files do not change while one module is emitted; outside the block every call reads the
    folder again, so an author editing kernels between conversions sees the change.
    """
    token = _SCANS.set({})
    try:
        yield
    finally:
        _SCANS.reset(token)
