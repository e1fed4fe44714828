"""Compiled kernel objects shared between builds of modules that carry the same kernel library.

Every module copies the kernels it uses into ``src/kernels/``; two modules with one prefix get the
same bytes, and compiling them is most of a test build (about four fifths of a KWS host build
under the sanitizers). With ``HELIA_AOT_OBJECT_CACHE`` naming a folder, ``compile_objects`` keeps
each kernel object under the hash of everything that decides its bytes: the compiler command and
the source after preprocessing (so every header it includes counts, wherever it lives). A build
that finds its hash copies the object instead of compiling; anything else compiles as before.
Unset (the default for users), nothing is cached. The test suite sets it for one run's builds.

A hit is only ever an object the same command once produced from the same preprocessed text
without a diagnostic (``-Werror`` builds fail otherwise), so a cached build warns exactly when
an uncached one would. Debug information still names the first build's paths.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

CACHE_ENV = "HELIA_AOT_OBJECT_CACHE"

Runner = Callable[[list[str]], None]
"""Runs one compiler command, raising the caller's error type when it fails."""


def cache_dir() -> Path | None:
    """The folder named by HELIA_AOT_OBJECT_CACHE, or None when caching is off."""
    value = os.environ.get(CACHE_ENV, "")
    return Path(value) if value else None


def _without_include_dirs(compile_cmd: Sequence[str]) -> list[str]:
    """The command without its -I folders: they differ per build, and what they supply is in the
    preprocessed text already."""
    kept: list[str] = []
    skip = False
    for arg in compile_cmd:
        if skip:
            skip = False
        elif arg == "-I":
            skip = True
        elif not arg.startswith("-I"):
            kept.append(arg)
    return kept


def _key(compile_cmd: Sequence[str], source: Path) -> str | None:
    """The hash of the command and the preprocessed source, or None when preprocessing fails
    (the real compile then reports the error)."""
    proc = subprocess.run([*compile_cmd, "-E", "-P", str(source)], capture_output=True, check=False)
    if proc.returncode != 0:
        return None
    digest = hashlib.sha256()
    digest.update("\0".join(_without_include_dirs(compile_cmd)).encode())
    digest.update(b"\0\0")
    digest.update(proc.stdout)
    return digest.hexdigest()


def compile_object(compile_cmd: Sequence[str], source: Path, obj: Path, run: Runner) -> None:
    """Compile ``source`` into ``obj`` with ``compile_cmd`` (compiler and flags, without ``-c``),
    taking the object from the cache when caching is on and the same input was compiled before."""
    command = [*compile_cmd, "-c", str(source), "-o", str(obj)]
    folder = cache_dir()
    key = _key(compile_cmd, source) if folder is not None else None
    if folder is None or key is None:
        run(command)
        return
    cached = folder / key[:2] / f"{key}.o"
    if cached.is_file():
        shutil.copyfile(cached, obj)
        return
    run(command)
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{key}.{os.getpid()}.part")
    shutil.copyfile(obj, partial)
    os.replace(partial, cached)  # atomic: a concurrent build sees the whole object or none


def is_kernel_source(source: Path) -> bool:
    """Kernel library sources (``src/kernels/``) repeat across modules; generated ones do not,
    so only kernels are worth a cache entry."""
    return source.parent.name == "kernels"
