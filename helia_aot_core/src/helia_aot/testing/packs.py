"""Converting and running models with an operator pack, for the pack's own tests.

A pack under test is named the way its author has it at hand: the entry-point or distribution name
of an installed pack, its plugin module, or a customizer function. The conversion uses the default
registry (every installed plugin) plus that pack; an installed copy of the same pack is left out so
its keys are not registered twice. :func:`run_golden` then builds the module with the host compiler
(warnings are errors, sanitizers on) and runs its self test against golden data.
"""

from __future__ import annotations

import importlib
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from helia_aot.config.args import ConvertArgs
from helia_aot.converter import AotConverter
from helia_aot.plugins.manager import discover_entry_points
from helia_aot.registry.build import build_default_registry_context
from helia_aot.testing.host import HostRun, build_module, run_module_test_case

PackSource = str | ModuleType | Callable[[Any], None]
"""An installed pack's entry-point or distribution name, its plugin module, or a customizer."""


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _entry_points() -> list[EntryPoint]:
    return discover_entry_points()


def pack_module(pack: PackSource) -> ModuleType | None:
    """The plugin module ``pack`` names, or None for a customizer function.

    A string is matched against installed entry-point names, then distribution names, then
    imported as a module name (a pack used from a source checkout).
    """
    if isinstance(pack, ModuleType):
        return pack
    if not isinstance(pack, str):
        return None
    for ep in _entry_points():
        dist = ep.dist.name if ep.dist else ""
        if pack == ep.name or (dist and _normalized(pack) == _normalized(dist)):
            loaded: ModuleType = ep.load()  # a helia_aot entry point names a module
            return loaded
    try:
        return importlib.import_module(pack)
    except ImportError:
        names = sorted(ep.name for ep in _entry_points())
        raise LookupError(
            f"no installed pack or importable module is called {pack!r}; installed "
            f"plugins: {', '.join(names) or '(none)'}"
        ) from None


def pack_customizer(pack: PackSource) -> Callable[[Any], None]:
    """The function that registers ``pack``: its ``helia_aot_register`` hook, or the customizer itself."""
    module = pack_module(pack)
    if module is None:
        if not callable(pack):
            raise TypeError(f"a pack is a name, a module or a customizer, not {type(pack).__name__}")
        return pack
    hook = getattr(module, "helia_aot_register", None)
    if not callable(hook):
        raise LookupError(f"module {module.__name__} defines no helia_aot_register hook")
    customizer: Callable[[Any], None] = hook
    return customizer


def installed_copies(pack: PackSource) -> list[str]:
    """Entry-point names that load ``pack`` again (to leave out of the defaults).

    A module matches the entry points that load it; a customizer function matches those of its
    top-level package, since an installed pack registers the same keys through its own hook.
    """
    module = pack_module(pack)
    if module is not None:
        return sorted(ep.name for ep in _entry_points() if ep.module == module.__name__)
    package = str(getattr(pack, "__module__", "") or "").split(".")[0]
    return sorted(ep.name for ep in _entry_points() if package and ep.module.split(".")[0] == package)


def plugin_selection(pack: PackSource | None, plugins: Any = None) -> dict[str, Any]:
    """``plugins`` (a mapping or an object with ``enabled``/``disabled``) minus ``pack``'s installed copy."""
    if isinstance(plugins, Mapping):
        enabled, disabled = plugins.get("enabled"), list(plugins.get("disabled") or ())
    else:
        enabled = getattr(plugins, "enabled", None)
        disabled = list(getattr(plugins, "disabled", None) or ())
    if pack is not None:
        disabled += [name for name in installed_copies(pack) if name not in disabled]
    return {"enabled": enabled, "disabled": disabled}


def pack_registry_context(
    pack: PackSource | None = None,
    *,
    customizers: Sequence[Callable[[Any], None]] = (),
    allow_override: bool = False,
    plugins: Any = None,
) -> Any:
    """The default registry context with ``pack`` registered (as a customizer) before ``customizers``."""
    ordered = ([pack_customizer(pack)] if pack is not None else []) + list(customizers)
    return build_default_registry_context(
        customizers=ordered, allow_override=allow_override, plugins=plugin_selection(pack, plugins)
    )


def convert_model(
    model: str | Path,
    out_dir: str | Path,
    *,
    pack: PackSource | None = None,
    registry: Any = None,
    customizers: Sequence[Callable[[Any], None]] = (),
    allow_override: bool = False,
    operators: Sequence[Mapping[str, Any]] = (),
    golden_data: str | Path | None = None,
    tolerance: float = 0.0,
    prefix: str = "aot",
    name: str | None = None,
    config: Mapping[str, Any] | None = None,
) -> Any:
    """Convert ``model`` into ``out_dir``/``name`` and return the ConversionResult.

    ``registry`` is used as given; otherwise the context is :func:`pack_registry_context` of
    ``pack`` and ``customizers``. ``operators`` are ``operators[]`` rules (how required attributes
    are set); ``golden_data`` (an ``.npz`` of ``input_<i>`` / ``output_<j>``) enables the module's
    self test. ``config`` holds any other ConvertArgs keys, as nested mappings.
    """
    data: dict[str, Any] = {
        key: dict(value) if isinstance(value, Mapping) else value for key, value in (config or {}).items()
    }
    data["model"] = {**data.get("model", {}), "path": str(model)}
    data["module"] = {
        **data.get("module", {}),
        "path": str(out_dir),
        "prefix": prefix,
        **({"name": name} if name else {}),
    }
    data["plugins"] = plugin_selection(pack, data.get("plugins"))
    if operators:
        data["operators"] = [*data.get("operators", []), *operators]
    if golden_data is not None:
        data["test"] = {
            **data.get("test", {}),
            "enabled": True,
            "golden_data": str(golden_data),
            "tolerance": tolerance,
        }
    data.setdefault("force", True)
    data.setdefault("verbose", 0)
    args = ConvertArgs.model_validate(data)
    if registry is None:
        registry = pack_registry_context(
            pack, customizers=customizers, allow_override=allow_override, plugins=data["plugins"]
        )
    return AotConverter(args, registry_context=registry).convert()


@dataclass(slots=True)
class GoldenRun:
    """A converted module and the outcome of its self test on the host."""

    result: Any
    host: HostRun

    @property
    def passed(self) -> bool:
        return self.host.passed

    def assert_passed(self) -> None:
        """Fail with the self test's output when any output differs from the golden data."""
        if not self.passed:
            raise AssertionError(
                f"module {self.result.output} failed its golden self test "
                f"(exit {self.host.returncode}):\n{self.host.stdout[-3000:]}"
                f"\n{self.host.stderr[-3000:]}"
            )


def run_golden(
    model: str | Path,
    golden_data: str | Path,
    work_dir: str | Path,
    *,
    sanitize: bool = True,
    **convert_options: Any,
) -> GoldenRun:
    """Convert ``model`` with its self test on ``golden_data``, build it on the host and run it.

    ``convert_options`` are those of :func:`convert_model` (``pack``, ``registry``, ``operators``,
    ``prefix``, ...). A module that does not compile raises CalledProcessError with gcc's output.
    """
    work_dir = Path(work_dir)
    result = convert_model(model, work_dir / "out", golden_data=golden_data, **convert_options)
    host = run_module_test_case(result.output, work_dir / "build", prefix=result.prefix, sanitize=sanitize)
    return GoldenRun(result, host)


def write_golden(path: str | Path, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> Path:
    """Write golden data as ``input_<i>`` / ``output_<j>`` (one sample, or samples on axis 0)."""
    path = Path(path)
    # Any, not ndarray: np.savez's keywords include allow_pickle (a bool), so the stubs reject a
    # mapping of arrays spread into them.
    arrays: dict[str, Any] = {f"input_{i}": np.asarray(a) for i, a in enumerate(inputs)}
    arrays.update({f"output_{j}": np.asarray(a) for j, a in enumerate(outputs)})
    np.savez(path, **arrays)
    return path


def compile_module(module_dir: str | Path, build_dir: str | Path, *, prefix: str = "aot") -> None:
    """Compile and link every source of a module (no self test needed); raise AssertionError on failure.

    Linking all objects checks the emitted C contract: each function the dispatch table names
    must be declared and defined exactly as called.
    """
    try:
        build_module(
            Path(module_dir),
            Path(build_dir),
            prefix=prefix,
            sanitize=False,
            main_source="int main(void)\n{\n    return 0;\n}\n",
        )
    except subprocess.CalledProcessError as exc:
        raise AssertionError(f"module {module_dir} does not compile:\n{exc.stderr[-3000:]}") from exc
