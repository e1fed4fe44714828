"""Export: move the finished module into place atomically, as a directory or an archive.

The module is built in a temporary directory next to the destination, then renamed into place.
An existing module is replaced only with ``force``, and is put back if anything fails, so the
destination is always either as it was or the complete new module.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from helia_aot.errors import InvalidConfigError, OutputExistsError

ARCHIVE_SUFFIXES = (".zip", ".pack")


def destination_of(config: Any) -> Path:
    """The directory ``module.path/module.name``, or the archive ``module.path`` names."""
    path = Path(config.module.path)
    if path.suffix.lower() in ARCHIVE_SUFFIXES:
        return path
    return path / config.module.name


def check_destination(config: Any) -> Path:
    """Reject an unwritable or occupied destination before any work is done."""
    dest = destination_of(config)
    is_archive = dest.suffix.lower() in ARCHIVE_SUFFIXES
    parent = dest.parent
    if dest.is_symlink() and not dest.exists():
        raise InvalidConfigError(f"module.path {dest} is a symbolic link to nothing",
                                 hint="remove the link or point module.path elsewhere")
    if is_archive and dest.is_dir():
        raise InvalidConfigError(f"module.path {dest} names an archive but is a directory",
                                 hint="choose a file name ending in .zip or .pack")
    if not is_archive and Path(config.module.path).is_file():
        raise InvalidConfigError(f"module.path {config.module.path} is a file, not a directory",
                                 hint="choose a directory for module.path")
    probe = parent
    while not probe.exists():
        if probe.is_symlink():
            raise InvalidConfigError(f"module.path goes through a dangling link {probe}")
        probe = probe.parent
    if not probe.is_dir():
        raise InvalidConfigError(f"module.path {dest} lies under the file {probe}",
                                 hint="choose a path under a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InvalidConfigError(f"no permission to write under {probe}",
                                 hint="choose a writable module.path")
    if dest.exists() and not config.force:
        raise OutputExistsError(f"{dest} already exists",
                                hint="pass force: true (--force) to replace it, or choose another path")
    return dest


def _archive(source: Path, target: Path, root_name: str) -> None:
    """Zip ``source`` under ``root_name/`` with fixed timestamps and sorted entries (deterministic)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(source.rglob("*")):
            rel = path.relative_to(source).as_posix()
            info = zipfile.ZipInfo(f"{root_name}/{rel}" + ("/" if path.is_dir() else ""),
                                   date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o40755 << 16) if path.is_dir() else (0o100644 << 16)
            if path.is_dir():
                zf.writestr(info, b"")
            else:
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())


def export_module(built: Path, config: Any) -> Path:
    """Move the module in ``built`` to its destination and return that destination."""
    dest = check_destination(config)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    backup: Path | None = None
    try:
        if dest.suffix.lower() in ARCHIVE_SUFFIXES:
            new = staging / dest.name
            _archive(built, new, root_name=config.module.name)
        else:
            new = staging / "module"
            shutil.copytree(built, new)
        if dest.exists() or dest.is_symlink():
            backup = staging / "previous"
            os.replace(dest, backup)
        os.replace(new, dest)
    except BaseException:
        if backup is not None and not dest.exists():
            os.replace(backup, dest)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest
