"""Export: move the finished module into place atomically, as a directory or an archive.

The destination is checked before any work is done (:func:`check_destination`, the cases the
``convert()`` reference lists for InvalidConfigError). The module is then staged in a hidden
temporary folder next to the destination, on the same file system, and renamed into place. An
existing module is replaced only with ``force`` and is moved aside, not deleted, until the new one
is in place; it is put back if anything fails, Ctrl-C included. So the destination is always
either exactly as it was (absent, or the previous module) or the complete new module.

``force`` replaces only what helia-aot wrote: a module folder carries a ``.helia-aot`` file listing
every path the export wrote, an archive a fixed zip comment. A folder without the marker, or holding
a path the marker does not list (a user's own file dropped into it), and an archive without the
comment, are refused with ForeignOutputError and left untouched.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath, PurePosixPath
from typing import TYPE_CHECKING, Any

from helia_aot.codegen.files import write_text_file
from helia_aot.errors import (
    ForeignOutputError,
    HeliaAotError,
    InvalidConfigError,
    OutputExistsError,
    PluginError,
)

if TYPE_CHECKING:
    from helia_aot.config.args import ConvertArgs

ARCHIVE_SUFFIXES = (".zip", ".pack")

MARKER_NAME = ".helia-aot"
"""The file in every module folder helia-aot writes: its first line says what wrote it, the rest
lists (one per line, ``/``-separated) every file and folder the export put there."""

MARKER_HEADER = "helia-aot module folder: force may replace exactly the paths listed below"

ARCHIVE_COMMENT = b"helia-aot module archive"
"""The zip comment of every archive helia-aot writes (fixed, so archives stay byte-identical)."""

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_NAME_MAX_DEFAULT = 255


def destination_of(config: ConvertArgs) -> Path:
    """The directory ``module.path/module.name``, or the archive ``module.path`` names."""
    path = Path(config.module.path)
    if is_archive(path):
        return path
    directory: Path = path / config.module.name
    return directory


def is_archive(path: Path) -> bool:
    return path.suffix.lower() in ARCHIVE_SUFFIXES


def _invalid(message: str, hint: str) -> InvalidConfigError:
    return InvalidConfigError(message, hint=hint)


def check_module_name(name: Any) -> str:
    """``module.name`` must be one folder name: it is joined to ``module.path`` and roots archives."""
    text = "" if name is None else str(name)
    if text in ("", ".", "..") or any(ch in text for ch in "/\\\0"):
        raise _invalid(
            f"module.name {text!r} is not a single folder name",
            "choose a name without path separators, such as kws_module",
        )
    return text


def _lstat(path: Path) -> os.stat_result | None:
    """``lstat`` of ``path``, None when it does not exist; an unsearchable parent is an error."""
    try:
        return path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PermissionError:
        raise _invalid(
            f"module.path lies under {path.parent}, a directory that cannot be searched",
            "choose a module.path under directories you can open",
        ) from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise _invalid(
                f"module.path {path} holds a file name too long for the file system",
                "choose a shorter module.path or module.name",
            ) from None
        if exc.errno == errno.ELOOP:
            raise _invalid(
                f"module.path {path} goes through a loop of symbolic links",
                "remove the link loop or point module.path elsewhere",
            ) from None
        raise _invalid(
            f"module.path {path} cannot be examined: {exc.strerror or exc}", "choose another module.path"
        ) from exc


def _target_kind(path: Path, info: os.stat_result) -> str:
    """``dir``, ``file`` or ``dangling`` for an existing entry (a link is followed)."""
    if stat.S_ISLNK(info.st_mode):
        try:
            info = path.stat()
        except OSError:
            return "dangling"
    return "dir" if stat.S_ISDIR(info.st_mode) else "file"


def _check_name_lengths(dest: Path, existing: Path) -> None:
    """Every component still to be created must encode and fit the file system's NAME_MAX."""
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        name_max = _NAME_MAX_DEFAULT
    for part in dest.relative_to(existing).parts:
        try:
            size = len(os.fsencode(part))
        except UnicodeError:
            raise _invalid(
                f"module.path component {part!r} cannot be encoded as a file name",
                "choose a name of printable characters",
            ) from None
        if size > name_max:
            raise _invalid(
                f"the file name {part[:40]!r}... of module.path has {size} bytes, too long for the "
                f"file system (at most {name_max})",
                "choose a shorter module.name or module.path",
            )


def check_destination(config: ConvertArgs) -> Path:
    """The destination (as :func:`destination_of` gives it), after rejecting an unwritable,
    invalid or occupied one before any work is done.

    InvalidConfigError for a ``module.path`` that names a file where a directory is needed, an
    archive path that is a directory, a symbolic link to nothing (at the destination or on the
    way to it), a path under a file or under a directory that cannot be searched, a location
    without write permission, or a file name the file system cannot hold; OutputExistsError for
    an existing module without ``force``.
    """
    check_module_name(config.module.name)
    if "\0" in str(config.module.path):
        raise _invalid("module.path contains a NUL character", "choose a plain path")
    dest = Path(os.path.abspath(destination_of(config)))
    archive = is_archive(dest)
    info = _lstat(dest)
    if info is not None:
        kind = _target_kind(dest, info)
        if kind == "dangling":
            raise _invalid(
                f"module.path {dest} is a symbolic link to nothing",
                "remove the link or point module.path elsewhere",
            )
        if archive and kind == "dir":
            raise _invalid(
                f"module.path {dest} names an archive but is a directory",
                "choose a file name ending in .zip or .pack",
            )
        if not archive and kind == "file":
            raise _invalid(
                f"{dest} is a file, not a module directory", "choose another module.name or module.path"
            )
    probe = dest.parent
    while True:
        probe_info = _lstat(probe)
        if probe_info is not None:
            kind = _target_kind(probe, probe_info)
            if kind == "dangling":
                raise _invalid(
                    f"module.path goes through {probe}, a symbolic link to nothing",
                    "remove the link or point module.path elsewhere",
                )
            if kind == "file":
                if probe == dest.parent and not archive:
                    message = f"module.path {probe} is a file, not a directory"
                else:
                    message = f"module.path {dest} lies under the file {probe}"
                raise _invalid(message, "choose a directory for module.path")
            break
        if probe.parent == probe:
            break
        probe = probe.parent
    if not os.access(probe, os.W_OK | os.X_OK):
        raise _invalid(f"no permission to write under {probe}", "choose a writable module.path")
    _check_name_lengths(dest, probe)
    if info is not None and not config.force:
        raise OutputExistsError(
            f"{dest} already exists", hint="pass force: true (--force) to replace it, or choose another path"
        )
    if info is not None:
        check_replaceable(dest)
    return destination_of(config)


def _marker_text(entries: list[str]) -> str:
    return "\n".join([MARKER_HEADER, *entries]) + "\n"


def _foreign(dest: Path, why: str) -> ForeignOutputError:
    return ForeignOutputError(
        f"{dest} {why}, so force will not replace it",
        hint="move your files out of it or choose another module.path / module.name; "
        "force replaces only a module helia-aot wrote",
        details={"path": str(dest)},
    )


def _relative_prefix(folder: str, root: str | Path) -> str:
    """``folder`` (one of ``os.walk(root)``'s) relative to ``root``, ``/``-separated, ending in
    ``/`` ("" for ``root`` itself): made once per folder, not once per file in it."""
    rel = PurePath(os.path.relpath(folder, root)).as_posix()
    return "" if rel == "." else rel + "/"


def check_replaceable(dest: Path) -> None:
    """Raise ForeignOutputError unless ``dest`` is a module helia-aot wrote and nothing else.

    A folder must hold the ``.helia-aot`` marker and no path the marker does not list (an empty
    folder holds nothing to lose and is accepted); an archive must carry helia-aot's zip comment.
    Links are not followed: a link in the folder that the marker does not list is foreign.
    """
    if is_archive(dest):
        try:
            with zipfile.ZipFile(dest) as archive:
                comment = archive.comment
        except (OSError, zipfile.BadZipFile):
            raise _foreign(dest, "is not an archive helia-aot wrote") from None
        if comment != ARCHIVE_COMMENT:
            raise _foreign(dest, "is not an archive helia-aot wrote (it lacks helia-aot's zip comment)")
        return
    present: list[str] = []

    def unreadable(error: OSError) -> None:
        raise _foreign(dest, f"holds {error.filename}, which cannot be read") from None

    for folder, dirs, files in os.walk(dest, onerror=unreadable):  # never follows links
        prefix = _relative_prefix(folder, dest)
        present.extend(prefix + name for name in dirs + files)
    if not present:
        return
    marker = dest / MARKER_NAME
    try:
        lines = marker.read_text(encoding="utf-8").splitlines() if marker.is_file() else []
    except (OSError, UnicodeError):
        lines = []
    if not lines or lines[0] != MARKER_HEADER:
        raise _foreign(dest, f"was not written by helia-aot (it has no {MARKER_NAME} marker)")
    listed = {*lines[1:], MARKER_NAME}
    foreign = sorted(rel for rel in present if rel not in listed)
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise _foreign(dest, f"holds files helia-aot did not write ({shown})")


def _member_name(root_name: str, rel: PurePosixPath, is_dir: bool) -> str:
    """A zip member name: relative, ``/``-separated, no ``..``, under the module's own folder."""
    name = PurePosixPath(root_name, rel)
    if name.is_absolute() or ".." in name.parts or name.parts[0] != root_name:
        raise PluginError(f"the module holds a path {rel} that would leave its archive folder")
    return name.as_posix() + ("/" if is_dir else "")


def _tree(source: Path) -> list[tuple[str, str, bool]]:
    """``(path, relative path, is a folder)`` of every entry under ``source``, sorted as
    :func:`module_entries` sorts them; links and special files are refused.

    The walk visits folders and their entries in ``os.walk``'s order (so the first refused entry is
    the one it would meet first) but takes each entry's type from its directory entry rather than
    an ``lstat`` per file, and keeps the paths as strings: over the 2,000 files of a thousand
    operators' module that was most of Export.
    """
    found: list[tuple[str, str, bool]] = []

    def walk(folder: str, prefix: str) -> None:
        try:
            with os.scandir(folder) as scanned:
                entries = list(scanned)
        except OSError:
            return  # as os.walk, which reports an unreadable folder to no one
        dirs: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # os.walk's split: a link to a folder is listed with folders
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(entry)
        for entry in dirs + files:
            if entry.is_dir(follow_symlinks=False):
                found.append((entry.path, prefix + entry.name, True))
            elif entry.is_file(follow_symlinks=False):
                found.append((entry.path, prefix + entry.name, False))
            else:
                raise PluginError(
                    f"the generated module holds {Path(entry.path).relative_to(source)}, which is "
                    "not a regular file or folder",
                    hint="a module may hold only files and folders",
                )
        for entry in dirs:
            walk(entry.path, f"{prefix}{entry.name}/")

    walk(os.fspath(source), "")
    found.sort(key=lambda entry: entry[1].split("/"))
    return found


def module_entries(source: Path) -> list[tuple[Path, PurePosixPath]]:
    """Every file and folder of the built module, sorted; links and special files are refused.

    Only emitters and exporters write the tree, so a link (which could point anywhere, and whose
    target would be copied or archived) can only come from a plugin.
    """
    return [(Path(path), PurePosixPath(rel)) for path, rel, _ in _tree(source)]


def write_archive(source: Path, target: Path, root_name: str) -> None:
    """Zip ``source`` under ``root_name/``: sorted entries, fixed times and modes (deterministic)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.comment = ARCHIVE_COMMENT
        for path, rel in module_entries(source):
            is_dir = path.is_dir()
            info = zipfile.ZipInfo(_member_name(root_name, rel, is_dir), date_time=_ZIP_TIME)
            info.create_system = 3  # Unix, on every host, so the bytes do not depend on it
            info.external_attr = (0o40755 << 16) if is_dir else (0o100644 << 16)
            if is_dir:
                zf.writestr(info, b"")
            else:
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())


def _copy_tree(source: Path, target: Path, *, move: bool = False) -> None:
    """Copy the module and add the marker listing what was copied (see :func:`check_replaceable`).

    With ``move`` the caller no longer needs ``source``: on the same file system the whole tree is
    renamed into place (one system call instead of a copy of every file, which is most of Export
    for a model of a thousand operators); across devices it is copied as without ``move``.
    """
    entries = _tree(source)  # checks every entry (no links) whether moved or copied
    written = [rel for _, rel, _ in entries if rel != MARKER_NAME]
    moved = False
    if move:
        try:
            os.rename(source, target)
            moved = True
        except OSError:
            moved = False  # another device (or a rename refused): copy instead
    if not moved:
        target.mkdir()
        for path, rel, is_dir in entries:
            if rel == MARKER_NAME:
                continue  # a marker in the built tree is replaced by the one listing this copy
            if is_dir:
                (target / rel).mkdir()
            else:
                shutil.copyfile(path, target / rel)
    write_text_file(target / MARKER_NAME, _marker_text(written))


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) back for a few statements that must run together, then deliver it to
    whatever handler was installed (KeyboardInterrupt under Python's default one)."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if in_main else None
    if previous is None:  # not the main thread, or a handler Python did not install: cannot hold
        yield
        return
    received: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        signal.raise_signal(signal.SIGINT)


def _make_parents(path: Path) -> list[Path]:
    """Create ``path`` and missing parents; return the folders this call created, deepest first.

    Conversions running side by side (a sweep in threads or processes) may create the same
    parent at the same moment: a folder another one made first is used, and not counted as
    ours, so a failure here never removes a folder someone else's module lives in."""
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    created = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue
        created.append(folder)
    return created[::-1]


def export_module(built: Path, config: ConvertArgs, *, move: bool = False) -> Path:
    """Move the module in ``built`` to its destination and return that destination.

    ``move``: ``built`` is a throwaway staging tree the caller removes afterwards, so it may be
    renamed into place rather than copied (a folder destination on the same file system).

    A failure while writing (a full disk, a permission change, Ctrl-C) leaves the destination as
    it was and removes the staging folder and any parent folders this call created; an OSError
    is reported as InvalidConfigError naming the destination.
    """
    output = check_destination(config)
    dest = Path(os.path.abspath(output))
    created: list[Path] = []
    staging: Path | None = None
    backup: Path | None = None
    swapped = False
    try:
        created = _make_parents(dest.parent)
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name[:64]}.", suffix=".tmp", dir=dest.parent))
        new = staging / ("module" if not is_archive(dest) else dest.name)
        if is_archive(dest):
            write_archive(built, new, root_name=config.module.name)
        else:
            _copy_tree(built, new, move=move)
        with _interrupts_deferred():
            if os.path.lexists(dest):
                backup = staging / "previous"
                os.replace(dest, backup)
            os.replace(new, dest)
            swapped = True
    except BaseException as exc:
        with _interrupts_deferred():
            if backup is not None and not swapped and not os.path.lexists(dest):
                os.replace(backup, dest)  # the previous module goes back where it was
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
                staging = None
            for folder in created:
                try:
                    folder.rmdir()
                except OSError:
                    break
        if isinstance(exc, OSError) and not isinstance(exc, HeliaAotError):
            raise InvalidConfigError(
                f"cannot write the module to {dest}: {exc.strerror or exc}",
                hint="free space on that device, fix its permissions, or choose another module.path",
                details={"errno": exc.errno, "path": str(dest)},
            ) from exc
        raise
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return output


__all__ = [
    "ARCHIVE_COMMENT",
    "ARCHIVE_SUFFIXES",
    "MARKER_HEADER",
    "MARKER_NAME",
    "check_destination",
    "check_replaceable",
    "check_module_name",
    "destination_of",
    "export_module",
    "is_archive",
    "module_entries",
    "write_archive",
]
