"""The portable C kernel library that built-in operators call.

A family ``name`` is ``hk_<name>.h`` with its reference source ``hk_<name>.c`` and its fast paths
``hk_<name>_{mve,dsp,scalar}.c``; ``hk_isa.h`` decides which instruction set the compiler targets.
The folder is a ``helia_aot.pack.KernelLibrary`` (the same kind a third-party pack ships), which
follows the ``#include`` lines, so only the kernels a module uses get copied into it.
"""

from __future__ import annotations

from pathlib import Path

from helia_aot.pack import KernelLibrary

KERNEL_DIR = Path(__file__).parent
LIBRARY = KernelLibrary(KERNEL_DIR)


def family_files(family: str) -> list[Path]:
    """The files of one family: its header, its reference source, then its fast paths."""
    return LIBRARY.family_files(family)


def kernel_sources(*families: str) -> list[Path]:
    """Every file the given families need, dependencies first, each once, in a stable order."""
    return LIBRARY.sources(*families)
