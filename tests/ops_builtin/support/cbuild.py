"""Build kernel families into a shared library for ctypes-driven kernel tests.

The library is compiled once per set of families and content, with the same warnings the generated
modules must pass (-Wall -Wextra -Werror) plus UBSan with no recovery, so undefined behaviour in a
kernel fails the test that triggers it.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from helia_aot_ops_builtin.families import include_flags, kernel_sources

_CACHE = Path(tempfile.gettempdir()) / f"helia_aot_kernel_tests_{os.getuid()}"
CFLAGS = [
    "-std=c99",
    "-O1",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fPIC",
    "-shared",
    "-fsanitize=undefined",
    "-fno-sanitize-recover=all",
]


@cache
def build_kernels(*families: str) -> ctypes.CDLL:
    """Compile the families (and their dependencies) into one shared object and load it."""
    files = kernel_sources(*families)
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    digest.update(" ".join(CFLAGS).encode())
    _CACHE.mkdir(parents=True, exist_ok=True)
    lib = _CACHE / f"hk_{'_'.join(families)}_{digest.hexdigest()[:16]}.so"
    if not lib.exists():
        sources = [str(p) for p in files if p.suffix == ".c"]
        tmp = lib.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run(
            ["gcc", *CFLAGS, *include_flags(), *sources, "-o", str(tmp), "-lm"],
            check=True,
            capture_output=True,
            text=True,
        )
        os.replace(tmp, lib)
    return ctypes.CDLL(str(lib))
