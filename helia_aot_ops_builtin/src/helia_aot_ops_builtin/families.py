"""The family folders of the built-in pack: where its operators, templates and kernels are found.

The pack is laid out by operator family (``conv/``, ``fully_connected/``, ``elementwise/``, ...):
each folder is a Python package holding the family's operator modules, their helpers, their Mako
templates and their C kernels, and ``common/`` holds what several families share (the operator
base class, the C headers every kernel includes). ``scripts/family_layout.py`` keeps the table of
which file belongs to which family and says where a new file goes.

The folders are found, not listed: every sub-package of this package but ``transforms`` is a
family. The kernel library searches every folder holding ``hk_*.h`` headers, the template lookup
every folder holding ``.mako`` files, and the plugin registers the operator modules of every
family package; a new family is a new folder, nothing here changes.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

from helia_aot.pack import KernelLibrary

PACKAGE_DIR = Path(__file__).resolve().parent
NOT_FAMILIES = frozenset({"transforms"})
"""Sub-packages that are no operator family (graph transforms run before any operator exists)."""


def _folders() -> list[tuple[str, frozenset[str]]]:
    """``(name, file names)`` of every family folder, by name."""
    found = []
    with os.scandir(PACKAGE_DIR) as entries:
        for entry in entries:
            if entry.is_dir() and entry.name not in NOT_FAMILIES and entry.name[0] not in "_.":
                with os.scandir(entry.path) as files:
                    found.append((entry.name, frozenset(f.name for f in files if f.is_file())))
    return sorted(found)


_FOLDERS = _folders()
FAMILY_PACKAGES = tuple(name for name, files in _FOLDERS if "__init__.py" in files)
"""The families' package names (``helia_aot_ops_builtin.<name>``), sorted."""
KERNEL_PATH = tuple(
    PACKAGE_DIR / name
    for name, files in _FOLDERS
    if any(f.startswith("hk_") and f.endswith(".h") for f in files)
)
"""The folders the kernel library searches, in order (every folder holding an ``hk_*.h``)."""
TEMPLATE_DIRS = tuple(
    PACKAGE_DIR / name for name, files in _FOLDERS if any(f.endswith(".mako") for f in files)
)
"""The folders the built-in operators' templates are looked up in, before the core's."""
LIBRARY = KernelLibrary(*KERNEL_PATH)
"""The built-in kernel library: a ``helia_aot.pack.KernelLibrary`` over :data:`KERNEL_PATH` (the
same kind a third-party pack ships), which follows the ``#include`` lines, so only the kernels a
module uses get copied into it."""


def family_packages() -> list[ModuleType]:
    """The family packages, imported (their ``__init__`` modules only), in name order."""
    return [importlib.import_module(f"{__package__}.{name}") for name in FAMILY_PACKAGES]


def include_flags() -> list[str]:
    """``-I <folder>`` for every folder of the kernel library, for a compiler building kernels
    from where they are installed (tests and benches; a module gets its own copies)."""
    return [flag for folder in KERNEL_PATH for flag in ("-I", str(folder))]


def family_files(family: str) -> list[Path]:
    """The files of one kernel family: its header, its reference source, then its fast paths."""
    return LIBRARY.family_files(family)


def kernel_sources(*families: str) -> list[Path]:
    """Every file the given kernel families need, dependencies first, each once, in a stable order."""
    return LIBRARY.sources(*families)


def kernel_file(name: str) -> Path:
    """The kernel file called ``name`` (``hk_conv.c``), in whichever folder of the search path."""
    for folder in KERNEL_PATH:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no kernel file {name} in {', '.join(str(f) for f in KERNEL_PATH)}")
