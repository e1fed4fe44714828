"""Registering a package of operator modules without importing the ones a conversion does not use.

A pack's operator modules each end with ``REGISTRATIONS`` (a list of :class:`OperatorRecord`), and
reading them meant importing every module: for the 41 built-in modules that was 55-105 ms of every
command, against 30-45 ms for the five a KWS conversion uses. :func:`register_operator_modules`
therefore keeps an index of the keys each module registers, and gives the registries a deferred
entry per key (:meth:`helia_aot.registry.Registry.defer`): the first lookup of any key of a module
imports that module and fills in all its entries. The index keeps each record's arity too, so Load
checks every node against its operator's counts without importing the operator's module. A
conversion sees the same registries either way: the same keys in the same order with the same
providers, the same values on lookup, and a listing (``items()``) loads every module.

The index is one small JSON file per set of module sources, kept in
``$XDG_CACHE_HOME/helia_aot/operator_index`` (``HELIA_AOT_OPERATOR_INDEX`` names another folder,
``off`` disables it) and named by a digest of the modules' names and contents and the core
version, so an edited module never meets an index written for another version of it. Without an
index (the first run, after an edit, no writable folder) every module is imported and registered at
once, as :func:`register_operators` does, and the index is written for the next run.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import pkgutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from helia_aot.converters.litert.view import Arity
from helia_aot.errors import PluginError
from helia_aot.pack.record import OperatorRecord, check_arity, declare_arity, register_operators
from helia_aot.registry import RegistryContext
from helia_aot.registry.registry import DeferredEntry
from helia_aot.user_cache import cache_folder
from helia_aot.version import __version__

INDEX_ENV = "HELIA_AOT_OPERATOR_INDEX"
"""A folder for the operator indexes, or ``off`` to import every operator module each run."""

INDEX_FORMAT = 3
"""Changes when the index file's layout does, so an older file is never read as a newer one (2: each
record's arity; 3: modules by qualified name, so one index covers several packages)."""

Entry = tuple[str, tuple[str, ...], bool, Arity | None]
"""What the index keeps of one record: its key, its LiteRT keys, whether it has an options class,
its arity."""


def index_dir() -> Path | None:
    """Where indexes are kept, or None when they are off or no folder is writable."""
    return cache_folder(INDEX_ENV, "operator_index")


def entries_of(records: Sequence[OperatorRecord]) -> list[Entry]:
    """The index's view of a module's records (what the registries need before it is imported)."""
    return [(r.key, tuple(r.litert_keys), r.options is not None, r.arity) for r in records]


def _arity_row(arity: Arity | None) -> list[object] | None:
    if arity is None:
        return None
    return [arity.min_inputs, arity.max_inputs, arity.min_outputs, arity.max_outputs, list(arity.optional)]


def _arity_of(row: Any) -> Arity | None:
    """The Arity an index row (decoded JSON) holds, None for null; TypeError or ValueError when
    the row is malformed (the index is then rebuilt)."""
    if row is None:
        return None
    min_inputs, max_inputs, min_outputs, max_outputs, optional = row
    return Arity(
        int(min_inputs),
        None if max_inputs is None else int(max_inputs),
        int(min_outputs),
        None if max_outputs is None else int(max_outputs),
        tuple(int(p) for p in optional),
    )


def _module_files(packages: Sequence[ModuleType]) -> list[tuple[str, Path]] | None:
    """``(qualified name, file)`` of each module of ``packages``, package by package, in name order
    within each; None when one is not a plain ``.py`` file next to its package's ``__init__`` (a
    namespace package, a sub-package, a zip): such packages are always registered at once."""
    found = []
    for package in packages:
        paths = list(getattr(package, "__path__", ()))
        if len(paths) != 1:
            return None
        folder = Path(paths[0])
        for info in sorted(pkgutil.iter_modules(paths), key=lambda m: m.name):
            source = folder / f"{info.name}.py"
            if info.ispkg or not source.is_file():
                return None
            found.append((f"{package.__name__}.{info.name}", source))
    return found


def _digest(packages: Sequence[ModuleType], files: list[tuple[str, Path]]) -> str:
    names = "\0".join(package.__name__ for package in packages)
    digest = hashlib.sha256(f"{INDEX_FORMAT}\0{__version__}\0{names}\0".encode())
    for name, source in files:
        digest.update(name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _read_index(path: Path, names: list[str]) -> dict[str, list[Entry]] | None:
    """The index at ``path`` when it exists and covers exactly ``names``; None otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        modules = data["modules"]
        if data.get("format") != INDEX_FORMAT or list(modules) != names:
            return None
        return {
            name: [
                (str(key), tuple(str(k) for k in litert), bool(options), _arity_of(arity))
                for key, litert, options, arity in rows
            ]
            for name, rows in modules.items()
        }
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_index(path: Path, modules: dict[str, list[Entry]]) -> None:
    """Write the index atomically (parallel conversions may write the same file); a failure only
    means the next run imports every module again."""
    rows = {
        name: [[key, list(litert), options, _arity_row(arity)] for key, litert, options, arity in entries]
        for name, entries in modules.items()
    }
    text = json.dumps({"format": INDEX_FORMAT, "modules": rows}, indent=1)
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError:
        return


class DeferredOperatorModule(DeferredEntry):
    """The deferred entries of one operator module: loading imports it and fills every registry
    entry its records own, checked as :func:`register_operators` checks them."""

    def __init__(self, context: RegistryContext, module: str, entries: list[Entry], provider: str | None):
        self.context = context
        self.module = module
        self.entries = entries
        self.provider = provider
        self.loaded = False

    def load(self) -> None:
        if self.loaded:
            return
        try:
            module = importlib.import_module(self.module)
        except Exception as error:
            raise PluginError(
                f"{self.provider or 'a pack'}: importing operator module {self.module} failed: "
                f"{type(error).__name__}: {error}",
                hint="reinstall the operator pack, or fix the module",
            ) from error
        records = list(getattr(module, "REGISTRATIONS", ()))
        if entries_of(records) != self.entries:
            raise PluginError(
                f"the operator index of {self.module} does not match its records",
                hint=f"set {INDEX_ENV}=off, or remove the folder {index_dir()}",
            )
        for record in records:
            problems = record.problems()
            if problems:
                raise PluginError(
                    f"{self.provider or 'a pack'} registers an inconsistent operator record: "
                    + "; ".join(problems),
                    hint="the record's key, the operator class's TYPE and the op_type the parser writes "
                    "must be one and the same name",
                    details={"key": str(record.key), "problems": problems},
                )
        context = self.context
        for record in records:
            for litert_key in record.litert_keys:
                context.litert_parsers.fill(litert_key, self, record.parser)
            if record.options is not None:
                context.air_options.fill(record.key, self, record.options)
            context.aot_operator_classes.fill(record.key, self, record.operator)
        self.loaded = True


def register_operator_modules(context: RegistryContext, *packages: ModuleType) -> None:
    """Register the ``REGISTRATIONS`` of every module of ``packages`` (package by package, in module
    name order within each), each module imported only when a key of it is first looked up (see
    the module docstring). A pack laid out by operator family passes one package per family.

    Call it from a pack's ``helia_aot_register`` hook, as ``register_operators`` is called. The
    keys, their order and their providers are those ``register_operators`` gives the records of
    every module in that order; so are the errors for a duplicate or protected key (raised here)
    and for an inconsistent record (raised when its module loads).
    """
    files = _module_files(packages)
    folder = index_dir() if files is not None else None
    if files is None or folder is None:
        register_operators(context, [record for package in packages for record in _every_record(package)])
        return
    path = folder / f"{_digest(packages, files)}.json"
    names = [name for name, _ in files]
    index = _read_index(path, names)
    if index is None:
        modules = {name: _records(name) for name in names}
        register_operators(context, [record for records in modules.values() for record in records])
        _write_index(path, {name: entries_of(records) for name, records in modules.items()})
        return
    provider = context.aot_operator_classes.active_provider
    for name, entries in index.items():
        deferred = DeferredOperatorModule(context, name, entries, provider)
        for key, litert_keys, has_options, arity in entries:
            for litert_key in litert_keys:
                check_arity(context, litert_key, arity)
            for litert_key in litert_keys:
                context.litert_parsers.defer(litert_key, deferred)
                declare_arity(context, litert_key, arity)
            if has_options:
                context.air_options.defer(key, deferred)
            context.aot_operator_classes.defer(key, deferred)


def _records(module: str) -> list[OperatorRecord]:
    return list(getattr(importlib.import_module(module), "REGISTRATIONS", ()))


def _every_record(package: ModuleType) -> list[OperatorRecord]:
    found: list[OperatorRecord] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        found.extend(_records(f"{package.__name__}.{info.name}"))
    return found


__all__ = ["INDEX_ENV", "DeferredOperatorModule", "entries_of", "index_dir", "register_operator_modules"]
