"""The portable C kernel library that built-in operators call.

A *family* ``name`` is the pair ``hk_<name>.h`` / ``hk_<name>.c`` in this folder (a header-only
family has no ``.c``). Its dependencies are the ``#include "hk_*.h"`` lines of its files, so there is
no manifest to keep in sync: :func:`kernel_sources` follows the includes and returns exactly the
files a module needs, which is how only the kernels a module uses get copied into it. The folder is
a ``helia_aot.pack.KernelLibrary``, the same kind a third-party pack ships.
"""

from __future__ import annotations

from pathlib import Path

from helia_aot.pack import KernelLibrary

KERNEL_DIR = Path(__file__).parent
LIBRARY = KernelLibrary(KERNEL_DIR)


def family_files(family: str) -> list[Path]:
    """The files of one family: its header, then its source when it has one."""
    return LIBRARY.family_files(family)


def kernel_sources(*families: str) -> list[Path]:
    """Every file the given families need, dependencies first, each once, in a stable order."""
    return LIBRARY.sources(*families)
