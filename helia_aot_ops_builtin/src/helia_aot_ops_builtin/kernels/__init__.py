"""The portable C kernel library that built-in operators call.

A *family* ``name`` is the header ``hk_<name>.h`` in this folder and its sources: ``hk_<name>.c``,
the portable C that is the reference (a header-only family has none), and the fast paths that live
apart from it, one file per instruction set: ``hk_<name>_mve.c`` (Helium), ``hk_<name>_dsp.c`` (the
DSP extension) and ``hk_<name>_scalar.c`` (plain C for cores with neither). ``hk_isa.h`` decides
which set the compiler targets; every fast-path file is wrapped in its ``#if``, so the others compile
to nothing. A family's dependencies are the ``#include "hk_*.h"`` lines of its files, so there is no
manifest to keep in sync: :func:`kernel_sources` follows the includes and returns exactly the files
a module needs, which is how only the kernels a module uses get copied into it.
"""

from __future__ import annotations

import re
from pathlib import Path

KERNEL_DIR = Path(__file__).parent
_INCLUDE = re.compile(r'^\s*#\s*include\s+"(hk_[A-Za-z0-9_]+\.h)"', re.MULTILINE)
FAST_PATHS = ("mve", "dsp", "scalar")
"""Suffixes of a family's fast-path sources, ``hk_<name>_<suffix>.c``."""


def family_files(family: str) -> list[Path]:
    """The files of one family: its header, its reference source, then its fast paths."""
    header = KERNEL_DIR / f"hk_{family}.h"
    if not header.is_file():
        known = sorted(p.stem[3:] for p in KERNEL_DIR.glob("hk_*.h"))
        raise KeyError(f"no kernel family {family!r}; known families: {', '.join(known)}")
    sources = [KERNEL_DIR / f"hk_{family}.c"]
    sources += [KERNEL_DIR / f"hk_{family}_{suffix}.c" for suffix in FAST_PATHS]
    return [header, *(path for path in sources if path.is_file())]


def kernel_sources(*families: str) -> list[Path]:
    """Every file the given families need, dependencies first, each once, in a stable order."""
    ordered: list[Path] = []
    seen: set[Path] = set()

    def visit(family: str) -> None:
        files = family_files(family)
        if files[0] in seen:
            return
        seen.update(files)
        for path in files:
            for include in _INCLUDE.findall(path.read_text(encoding="utf-8")):
                dep = include[3:-2]
                if dep != family:
                    visit(dep)
        ordered.extend(files)

    for family in families:
        visit(family)
    return ordered
