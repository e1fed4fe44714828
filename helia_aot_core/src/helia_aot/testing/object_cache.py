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
names: a hit under another prefix renames the cached object's symbols and its sections (which
``-ffunction-sections`` names after functions) with ``objcopy`` instead of compiling. Anything else
keys on the text as it is, prefix included.

Preprocessing is itself a third of a hit's cost (a cross build's kernels include ``arm_mve.h``,
680 kB of text), so the key is also remembered by the bytes the text comes from: the source and,
at each of its ``#include`` lines, the file that name finds in the -I folders (see
:func:`inputs_digest`); a kernel whose bytes were seen before in this run is not preprocessed again.

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
import threading
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
    """``objcopy``, ``nm`` or ``objdump`` of the compiler's toolchain (``arm-none-eabi-gcc`` ->
    ``arm-none-eabi-objcopy``), or None where there is none."""
    if not compiler.endswith("gcc"):
        return None
    return shutil.which(compiler[: -len("gcc")] + tool)


def _names(compiler: str, cached: Path) -> list[tuple[str, str]] | None:
    """The (``symbol`` | ``section``, name) pairs of a cached object, from ``nm`` and ``objdump``
    (read once, kept beside it); None where the toolchain lacks either."""
    listing = cached.with_suffix(".names")
    if listing.is_file():
        return [
            (kind, name) for kind, name in (line.split(" ", 1) for line in listing.read_text().splitlines())
        ]
    nm, objdump = _binutil(compiler, "nm"), _binutil(compiler, "objdump")
    if nm is None or objdump is None:
        return None
    symbols = subprocess.run(
        [nm, "-P", "--no-sort", str(cached)], capture_output=True, text=True, check=False
    )
    headers = subprocess.run([objdump, "-h", "-w", str(cached)], capture_output=True, text=True, check=False)
    if symbols.returncode != 0 or headers.returncode != 0:
        return None
    found = {("symbol", line.split(" ", 1)[0]) for line in symbols.stdout.splitlines() if line}
    for line in headers.stdout.splitlines():
        fields = line.split()
        if len(fields) > 1 and fields[0].isdigit():
            found.add(("section", fields[1]))
    names = sorted(found)
    _write_atomically(listing, "".join(f"{kind} {name}\n" for kind, name in names))
    return names


def rename_prefix(compiler: str, cached: Path, old: str, new: str, obj: Path) -> bool:
    """Write ``cached`` (compiled under prefix ``old``) to ``obj`` with its symbols and sections
    (``-ffunction-sections`` names them after functions) renamed to prefix ``new``; False (and
    nothing to rely on in ``obj``) when the toolchain lacks objcopy, nm or objdump, or a name
    would keep ``old``."""
    objcopy = _binutil(compiler, "objcopy")
    names = _names(compiler, cached)
    if objcopy is None or names is None:
        return False
    pattern = _renamed(old)
    lower, upper = f"{new}_hk_".encode(), f"{new.upper()}_HK_".encode()

    def respell(match: re.Match[bytes]) -> bytes:
        return lower if match.group().endswith(b"_hk_") else upper

    renamed = [(kind, name, pattern.sub(respell, name.encode()).decode()) for kind, name in names]
    stale = (f"{old}_hk_", f"{old.upper()}_HK_")
    if any(s in name for _, _, name in renamed for s in stale):
        return False  # a name holds the prefix where the Emit stage did not put it
    table = obj.with_name(f"{obj.name}.redefine")
    table.write_text("".join(f"{a} {b}\n" for kind, a, b in renamed if kind == "symbol" and a != b))
    sections = [f"--rename-section={a}={b}" for kind, a, b in renamed if kind == "section" and a != b]
    proc = subprocess.run(
        [objcopy, f"--redefine-syms={table}", *sections, str(cached), str(obj)],
        capture_output=True,
        check=False,
    )
    table.unlink()
    return proc.returncode == 0


def _partial(path: Path) -> Path:
    """Where to write ``path`` first: a name of this process and thread (cross builds compile in
    threads), replaced onto ``path`` at once, so a concurrent build sees the whole file or none."""
    return path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.part")


def _write_atomically(path: Path, text: str) -> None:
    partial = _partial(path)
    partial.write_text(text)
    os.replace(partial, path)


def _store(obj: Path, cached: Path) -> None:
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial(cached)
    shutil.copyfile(obj, partial)
    os.replace(partial, cached)


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(?:include|import)", re.MULTILINE)
_VARYING = re.compile(rb"__(?:FILE|BASE_FILE|DATE|TIME|TIMESTAMP)__|__has_include|\bassert\b")
"""What makes preprocessed text depend on more than the files' bytes (the path, the clock, the
headers present, the path again through ``assert``): such a source is always preprocessed."""


def _split_include_dirs(compile_cmd: Sequence[str]) -> tuple[list[str], list[Path]]:
    """The command without its -I folders, and the folders in order."""
    kept: list[str] = []
    dirs: list[Path] = []
    skip = False
    for arg, following in zip(compile_cmd, [*compile_cmd[1:], ""], strict=True):
        if skip:
            skip = False
        elif arg == "-I":
            dirs.append(Path(following))
            skip = True
        elif arg.startswith("-I"):
            dirs.append(Path(arg[2:]))
        else:
            kept.append(arg)
    return kept, dirs


def inputs_digest(compile_cmd: Sequence[str], source: Path) -> str | None:
    """The hash of the command (its -I folders aside) and of the source with, at each of its
    ``#include`` lines (taken or not), the bytes of the file that name finds in the including
    file's folder or the -I folders, recursively; or None when that is not all the preprocessed
    text depends on (``_VARYING``, a computed ``#include``, a flag that pulls a file in
    otherwise). Headers found elsewhere are the compiler's own, the same for one run of the suite
    (the cache's lifetime)."""
    if any(
        arg.startswith(("-include", "-imacros", "-iquote", "-isystem", "-idirafter")) for arg in compile_cmd
    ):
        return None
    command, dirs = _split_include_dirs(compile_cmd)
    hashed: dict[Path, bytes] = {}

    def file_hash(path: Path) -> bytes:
        if path not in hashed:
            hashed[path] = b"being read"  # an include cycle (guarded headers): its bytes count once
            text = path.read_bytes()
            if _VARYING.search(text) or len(_DIRECTIVE.findall(text)) != len(_INCLUDE.findall(text)):
                raise LookupError(path)
            digest = hashlib.sha256(text)
            for quote, name in _INCLUDE.findall(text):
                folders = [path.parent, *dirs] if quote == b'"' else dirs
                found = next((f / name.decode() for f in folders if (f / name.decode()).is_file()), None)
                inner = file_hash(found) if found is not None else b"the compiler's own"
                digest.update(b"\0" + quote + name + b"\0" + inner)
            hashed[path] = digest.digest()
        return hashed[path]

    try:
        top = file_hash(source)
    except LookupError:
        return None
    return hashlib.sha256("\0".join(command).encode() + b"\0\0" + top).hexdigest()


def compile_object(compile_cmd: Sequence[str], source: Path, obj: Path, run: Runner) -> None:
    """Compile ``source`` into ``obj`` with ``compile_cmd`` (compiler and flags, without ``-c``),
    taking the object from the cache when caching is on and the same input was compiled before
    (under this prefix, or under another one and renamed)."""
    command = [*compile_cmd, "-c", str(source), "-o", str(obj)]
    folder = cache_dir()
    if folder is None:
        run(command)
        return
    # The preprocessed text's key, remembered by the bytes it came from (the module's docstring).
    inputs = inputs_digest(compile_cmd, source)
    known = folder / "inputs" / f"{inputs}.key" if inputs is not None else None
    if known is not None and known.is_file():
        key, _, found = known.read_text().partition(" ")
        prefix = found or None
    else:
        text = _preprocessed(compile_cmd, source)
        if text is None:
            run(command)
            return
        prefix = kernel_prefix(source, text)
        key = _key(compile_cmd, text, prefix)
        if known is not None:
            known.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(known, f"{key} {prefix or ''}")
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
