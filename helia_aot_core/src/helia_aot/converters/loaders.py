"""Model loaders: the front ends a conversion chooses from by the model file's format.

A front end registers a :class:`ModelLoader` through the ``helia_aot_model_loaders`` hook (the
core's LiteRT reader exactly as the ONNX front end or any other plugin): a small record naming
its format (``litert``, ``onnx``), how to recognise the format from a file's first bytes, and the
``module:attribute`` of the :class:`ModelReader` that does the work. The reader is imported only
when a model of its format is loaded, so registering a front end costs a conversion of another
format nothing (the ONNX front end's ``onnx`` import, LiteRT's 1 MB flatc bindings), and a blocked
plugin's loader is never registered, its module never imported.

The format is detected from the file's bytes (:func:`choose_loader`); ``model.format`` names it
instead when the bytes cannot tell (or to insist on one). Bytes no loader claims go to the one
loader whose suffix the file carries (a truncated ``.tflite`` gets the LiteRT reader's diagnosis
of where it ends); otherwise they are an :class:`~helia_aot.errors.UnknownModelFormatError`
naming the format and the loaders installed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helia_aot.errors import ModelLoadError, PluginError, UnknownModelFormatError

if TYPE_CHECKING:  # annotations only: the context and configuration sit beside or above this module
    from helia_aot.air import AirModel
    from helia_aot.config.args import ConvertArgs
    from helia_aot.registry.context import RegistryContext
    from helia_aot.registry.registry import Registry

HEAD_BYTES = 64
"""How many leading bytes of a file a loader's ``claims`` sees."""


@dataclass(slots=True, eq=False, repr=False)
class LoadCheck:
    """What Load makes of a model file for ``helia-aot check``, node by node.

    ``operators`` lists each node of the file as ``(index, key)`` in file order; ``problems`` the
    reasons, by node index, that Load refuses a node (-1: a problem of no one node);
    ``model`` the AIR of the nodes that load (Transform and Resolve check it further) or None;
    ``complete`` says every node loaded, so ``model`` is exactly what a conversion's Load gives.
    """

    operators: list[tuple[int, str]]
    problems: dict[int, list[str]] = field(default_factory=dict)
    model: AirModel | None = None
    complete: bool = False


class ModelReader:
    """The work of one front end: a file of its format in, a verified AIR model out.

    ``load`` is the Load stage (one UnsupportedModelError naming every node it cannot convert);
    ``check`` is Load for ``helia-aot check`` (:class:`LoadCheck`), and ``notes`` the extra rows
    ``(label, reason)`` the check prints when anything fails; ``reference`` the runtime that
    computes expected outputs for the self test and ``validate``; ``explaining`` wraps Load,
    Transform and Resolve so a front end can restate an error in the file's own terms (LiteRT
    names the dynamic inputs a failure comes from). A model whose inputs or outputs the front end
    laid out differently from the file records it in ``model.metadata["source_layouts"]`` (see
    :mod:`helia_aot.golden`), so golden data in the file's own layout is transposed to the module's.
    """

    def load(self, path: Path, config: ConvertArgs, context: RegistryContext) -> AirModel:
        raise NotImplementedError

    def check(self, path: Path, config: ConvertArgs, context: RegistryContext) -> LoadCheck:
        raise NotImplementedError

    def notes(self, path: Path, config: ConvertArgs) -> list[tuple[str, str]]:
        return []

    def reference(self, path: Path, model: AirModel, *, optimized: bool = False) -> Any:
        """The interpreter golden data and ``helia-aot validate`` take expected outputs from, for a
        model of this format: an object with ``run(inputs) -> outputs`` (one sample, arrays in the
        module's layout and input order), ``operator_names()`` and ``output_producers()``, as
        :class:`helia_aot.interpreters.AirInterpreter` has them; ``optimized`` asks for the
        runtime's optimized kernels beside its reference ones. None: LiteRT's interpreter."""
        return None

    @contextmanager
    def explaining(self, path: Path, config: ConvertArgs) -> Iterator[None]:
        yield


@dataclass(frozen=True, slots=True, eq=False)
class ModelLoader:
    """One registered front end (see the module docstring).

    ``format`` is its key in ``context.model_loaders`` and the value of ``model.format`` that
    chooses it; ``claims(head)`` says whether a file starting with ``head`` (its first
    :data:`HEAD_BYTES` bytes) is of this format; ``reader`` is ``"module:attribute"`` of the
    :class:`ModelReader` class or instance, imported on first use; ``description`` and ``suffixes``
    are what ``helia-aot plugins`` and errors show.
    """

    format: str
    claims: Callable[[bytes], bool]
    reader: str
    description: str = ""
    suffixes: tuple[str, ...] = ()

    def open(self) -> ModelReader:
        """The reader, imported now (a reader that fails to import is a PluginError naming it)."""
        module_name, _, attribute = self.reader.partition(":")
        try:
            value: Any = importlib.import_module(module_name)
            for part in attribute.split(".") if attribute else ():
                value = getattr(value, part)
        except Exception as exc:
            raise PluginError(
                f"the {self.format} model loader {self.reader!r} cannot be imported: "
                f"{type(exc).__name__}: {exc}",
                hint="reinstall the distribution that registers it, or block it with plugins.disabled",
            ) from exc
        reader = value() if isinstance(value, type) else value
        if not isinstance(reader, ModelReader):
            raise PluginError(
                f"the {self.format} model loader {self.reader!r} is a {type(reader).__name__}, "
                "not a ModelReader",
                hint="a loader's reader names a helia_aot.converters.loaders.ModelReader subclass",
            )
        return reader


def check_loader(key: str, value: object) -> None:
    """``context.model_loaders`` holds ModelLoader records filed under their own format."""
    if not isinstance(value, ModelLoader):
        raise PluginError(
            f"model loader {key!r} is a {type(value).__name__}, not a ModelLoader",
            hint="return helia_aot.converters.loaders.ModelLoader records from helia_aot_model_loaders()",
        )
    if value.format != key:
        raise PluginError(
            f"model loader {value.format!r} registered under another format, {key!r}",
            hint="register a loader under its own format: context.model_loaders.register(l.format, l)",
        )


def _head(path: Path) -> bytes:
    try:
        with Path(path).open("rb") as handle:
            return handle.read(HEAD_BYTES)
    except FileNotFoundError:
        raise ModelLoadError(f"model file not found: {path}", hint="check model.path") from None
    except IsADirectoryError:
        raise ModelLoadError(
            f"model path is not a regular file: {path}", hint="pass the path of a model file"
        ) from None
    except OSError as exc:
        raise ModelLoadError(f"cannot read model file {path}: {exc.strerror or exc}") from exc


def _installed(loaders: Registry[ModelLoader], blocked: Mapping[str, str]) -> str:
    names = [
        f"{key} ({loader.description})" if loader.description else key for key, loader in loaders.items()
    ]
    text = ", ".join(names) if names else "none"
    if blocked:
        text += f"; installed but blocked plugins: {', '.join(sorted(blocked))}"
    return text


def choose_loader(
    path: Path,
    format: str | None,
    loaders: Registry[ModelLoader],
    blocked: Mapping[str, str] | None = None,
) -> ModelLoader:
    """The loader of ``path``: the one ``format`` names, else the first (in registration order)
    that claims the file's first bytes. ``blocked`` (entry-point name -> distribution) are the
    installed plugins the configuration leaves out, which the error names."""
    blocked = dict(blocked or {})
    if format:
        if format in loaders:
            return loaders.get(format)
        raise UnknownModelFormatError(
            f"model.format {format!r} has no loader; installed loaders: {_installed(loaders, blocked)}",
            hint="set model.format to an installed loader's format (helia-aot plugins lists them), "
            "or install the front end for this format (ONNX: pip install helia-aot-frontend-onnx)",
            details={"format": format, "loaders": list(loaders.keys()), "blocked": blocked},
        )
    head = _head(path)
    for _, loader in loaders.items():
        if loader.claims(head):
            return loader
    suffix = Path(path).suffix.lower()
    named = [key for key, loader in loaders.items() if suffix and suffix in loader.suffixes]
    if len(named) == 1:
        # Named for one loader but not claimed by its bytes (truncated, corrupted, a wrong
        # identifier): that loader's reader says what is wrong and where, better than a guess.
        return loaders.get(named[0])
    guess = suffix.lstrip(".") or "unknown"
    raise UnknownModelFormatError(
        f"{Path(path).name}: no installed model loader recognises the file's format "
        f"({guess}; it starts with {head[:8].hex(' ')}); installed loaders: {_installed(loaders, blocked)}",
        hint="install the front end for this format (ONNX: pip install helia-aot-frontend-onnx), "
        "unblock it, or set model.format",
        details={"format": guess, "loaders": list(loaders.keys()), "blocked": blocked},
    )


def loader_for(path: Path, config: ConvertArgs, context: RegistryContext) -> ModelLoader:
    """:func:`choose_loader` for a conversion's configuration and context."""
    return choose_loader(
        path, config.model.format, context.model_loaders, getattr(context, "blocked_plugins", None)
    )


__all__ = [
    "HEAD_BYTES",
    "LoadCheck",
    "ModelLoader",
    "ModelReader",
    "check_loader",
    "choose_loader",
    "loader_for",
]
