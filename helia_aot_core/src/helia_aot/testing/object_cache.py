"""Compiled kernel objects shared between builds of modules that carry the same kernel library.

Every module copies the kernels it uses into ``src/kernels/``, with the library's ``hk_`` / ``HK_``
names renamed to its prefix (pipeline/emit.py); compiling them is most of a test build (about four
fifths of a KWS host build under the sanitizers). With ``HELIA_AOT_OBJECT_CACHE`` naming a folder,
:func:`compile_object` keeps each kernel object under the hash of everything that decides its
bytes: the compiler command and the source after preprocessing (so every header it includes counts,
wherever it lives). A build that finds its hash copies the object instead of compiling; anything
else compiles as before. Unset (the default for users), nothing is cached. The test suite sets it
for one run's builds.

Modules linked into one program (and the cross builds' ``m0``, ``m1``, ... prefixes) carry the
same kernel under several prefixes, and the same kernel library was compiled once per prefix. So
the hash is taken of the text with the prefix's renaming undone, where that is exact: the file is
``<prefix>_hk_*.c`` with a plain prefix, the text holds no unrenamed library name, no renamed name
inside a string or character literal and no ``__func__`` (whose text would carry the prefix). Two
such texts differ only in the spelling of the renamed identifiers, so their objects differ only in
symbol names: a hit under another prefix renames the cached object's symbols (``objcopy
--redefine-syms``, the names listed by ``nm``) instead of compiling. Anything else keys on the text as it
is, prefix included.

A hit is only ever an object the same command once produced from the same preprocessed text (up
to that renaming) without a diagnostic (``-Werror`` builds fail otherwise), so a cached build warns
exactly when an uncached one would. Debug information, and the names the sanitizers print in a
report, still name the first build's paths and prefix.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

CACHE_ENV = "HELIA_AOT_OBJECT_CACHE"

Runner = Callable[[list[str]], None]
"""Runs one compiler command, raising the caller's error type when it fails."""

_PLAIN_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9]*")
"""Prefixes whose renaming this cache undoes (the default ``aot`` and the tests' ``h0``, ``m1``, ...)."""
_LIBRARY_NAME = re.compile(rb"(?<!\w)(?:hk|HK)_")
"""A kernel library name the Emit stage would have renamed (``\\bhk_``, ``\\bHK_``)."""
_LITERAL = re.compile(rb"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
"""A character or string literal of preprocessed C (comments are gone by then)."""
_FUNCTION_NAME = re.compile(rb"\b(?:__func__|__FUNCTION__|__PRETTY_FUNCTION__)\b")


def cache_dir() -> Path | None:
    """The folder named by HELIA_AOT_OBJECT_CACHE, or None when caching is off."""
    value = os.environ.get(CACHE_ENV, "")
    return Path(value) if value else None


def _hashed_command(compile_cmd: Sequence[str]) -> list[str]:
    """The command without its -I folders (they differ per build) and its -D / -U macros (a
    module's printf hook names its prefix): what they supply is in the preprocessed text already."""
    kept: list[str] = []
    skip = False
    for arg in compile_cmd:
        if skip:
            skip = False
        elif arg in ("-I", "-D", "-U"):
            skip = True
        elif not arg.startswith(("-I", "-D", "-U")):
            kept.append(arg)
    return kept


def _preprocessed(compile_cmd: Sequence[str], source: Path) -> bytes | None:
    """The source after preprocessing, or None when that fails (the real compile then reports
    the error)."""
    proc = subprocess.run([*compile_cmd, "-E", "-P", str(source)], capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def _renamed(prefix: str) -> re.Pattern[bytes]:
    """``<prefix>_hk_`` and ``<PREFIX>_HK_`` where an identifier starts (the Emit stage's names)."""
    lower, upper = re.escape(f"{prefix}_hk_".encode()), re.escape(f"{prefix.upper()}_HK_".encode())
    return re.compile(rb"(?<!\w)(?:" + lower + rb"|" + upper + rb")")


def kernel_prefix(source: Path, text: bytes) -> str | None:
    """The prefix whose renaming of ``text`` (``source`` preprocessed) can be undone exactly, or
    None: see the module's docstring for when."""
    stem, sep, _ = source.name.partition("_hk_")
    if not sep or not _PLAIN_PREFIX.fullmatch(stem) or _LIBRARY_NAME.search(text):
        return None
    if _FUNCTION_NAME.search(text):
        return None
    renamed = _renamed(stem)
    if any(renamed.search(literal.group()) for literal in _LITERAL.finditer(text)):
        return None
    return stem


def _key(compile_cmd: Sequence[str], text: bytes, prefix: str | None) -> str:
    digest = hashlib.sha256()
    digest.update("\0".join(_hashed_command(compile_cmd)).encode())
    digest.update(b"\0\0")
    if prefix is None:
        digest.update(text)
    else:
        # The library's own names back: the same text for every prefix (exact, kernel_prefix).
        digest.update(b"prefix-neutral\0")
        digest.update(_renamed(prefix).sub(lambda m: m.group()[len(prefix) + 1 :], text))
    return digest.hexdigest()


def _binutil(compiler: str, tool: str) -> str | None:
    """``objcopy`` / ``nm`` of the compiler's toolchain (``arm-none-eabi-gcc`` ->
    ``arm-none-eabi-objcopy``), or None where there is none."""
    if not compiler.endswith("gcc"):
        return None
    return shutil.which(compiler[: -len("gcc")] + tool)


def _symbols(nm: str, cached: Path) -> list[str] | None:
    """The symbol names of a cached object (``nm``, read once and kept beside it)."""
    listing = cached.with_suffix(".symbols")
    if listing.is_file():
        return listing.read_text().split()
    proc = subprocess.run([nm, "-P", "--no-sort", str(cached)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    names = sorted({line.split(" ", 1)[0] for line in proc.stdout.splitlines() if line})
    partial = listing.with_name(f"{listing.name}.{os.getpid()}.part")
    partial.write_text("".join(f"{name}\n" for name in names))
    os.replace(partial, listing)
    return names


def rename_prefix(compiler: str, cached: Path, old: str, new: str, obj: Path) -> bool:
    """Write ``cached`` (compiled under prefix ``old``) to ``obj`` with its symbols renamed to
    prefix ``new``; False (and nothing to rely on in ``obj``) when the toolchain lacks objcopy or
    nm, or a symbol would keep ``old``."""
    objcopy, nm = _binutil(compiler, "objcopy"), _binutil(compiler, "nm")
    if objcopy is None or nm is None:
        return False
    names = _symbols(nm, cached)
    if names is None:
        return False
    pattern = _renamed(old)
    lower, upper = f"{new}_hk_".encode(), f"{new.upper()}_HK_".encode()

    def respell(match: re.Match[bytes]) -> bytes:
        return lower if match.group().endswith(b"_hk_") else upper

    pairs = {name: pattern.sub(respell, name.encode()).decode() for name in names}
    stale = (f"{old}_hk_", f"{old.upper()}_HK_")
    if any(s in name for name in pairs.values() for s in stale):
        return False  # a name holds the prefix where the Emit stage did not put it
    table = obj.with_name(f"{obj.name}.redefine")
    table.write_text("".join(f"{name} {renamed}\n" for name, renamed in pairs.items() if renamed != name))
    proc = subprocess.run(
        [objcopy, f"--redefine-syms={table}", str(cached), str(obj)], capture_output=True, check=False
    )
    table.unlink()
    return proc.returncode == 0


def _store(obj: Path, cached: Path) -> None:
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{cached.name}.{os.getpid()}.part")
    shutil.copyfile(obj, partial)
    os.replace(partial, cached)  # atomic: a concurrent build sees the whole object or none


def compile_object(compile_cmd: Sequence[str], source: Path, obj: Path, run: Runner) -> None:
    """Compile ``source`` into ``obj`` with ``compile_cmd`` (compiler and flags, without ``-c``),
    taking the object from the cache when caching is on and the same input was compiled before
    (under this prefix, or under another one and renamed)."""
    command = [*compile_cmd, "-c", str(source), "-o", str(obj)]
    folder = cache_dir()
    text = _preprocessed(compile_cmd, source) if folder is not None else None
    if folder is None or text is None:
        run(command)
        return
    prefix = kernel_prefix(source, text)
    key = _key(compile_cmd, text, prefix)
    cached = folder / key[:2] / f"{key}-{prefix or ''}.o"
    if cached.is_file():
        shutil.copyfile(cached, obj)
        return
    if prefix is not None:
        # The same kernel under another prefix: rename its symbols rather than compile.
        for other in sorted(cached.parent.glob(f"{key}-*.o")):
            old = other.name[len(key) + 1 : -len(".o")]
            if rename_prefix(compile_cmd[0], other, old, prefix, obj):
                _store(obj, cached)
                return
    run(command)
    _store(obj, cached)


def is_kernel_source(source: Path) -> bool:
    """Kernel library sources (``src/kernels/``) repeat across modules; generated ones do not,
    so only kernels are worth a cache entry."""
    return source.parent.name == "kernels"
