"""The ``helia-aot`` command line: a thin layer over ConvertArgs and AotConverter.

``from helia_aot.cli import app`` is the typer app and ``main`` the console script. The app is
imported on first use of the name: a plain ``convert`` command line runs without it
(:mod:`helia_aot.cli.direct`).
"""

import os
import sys
import types
from typing import Any

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")
"""The command's BLAS thread count unless the environment sets one. A conversion does no large
linear algebra, yet numpy's OpenBLAS starts a worker thread per core while it is imported; on a
small machine that was a visible part of a conversion's start-up. Set here, before the command's
imports reach numpy; a process that imported numpy already keeps what it has."""

PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")
"""Pydantic's plugins off for the command unless the environment names its own choice (an empty
value turns them all back on). Pydantic looks for plugins when it builds its first model by reading
the entry points of every installed distribution (measured: 20 ms of a KWS conversion); they are
observability hooks on validation, and the command validates only its own configuration."""

if "numpy" not in sys.modules:
    os.environ.setdefault(*BLAS_THREADS)
if "pydantic" not in sys.modules:
    os.environ.setdefault(*PYDANTIC_PLUGINS)

from helia_aot.cli.launch import main, typer_app  # noqa: E402 - after the environment is set
from helia_aot.lazy_names import lazy_names  # noqa: E402

run = main
"""The product's name for the console-script entry point."""

# The product's names for the configuration models, imported on first use so a plain command line
# does not load pydantic for them: each is ours under the product's name (a superset of its fields).
__getattr__, __dir__ = lazy_names(
    "helia_aot.cli",
    {
        "ConvertArgs": ("helia_aot.config.args", "ConvertArgs"),
        "ModelArgs": ("helia_aot.config.sections", "ModelConfig"),
        "ModuleArgs": ("helia_aot.config.sections", "ModuleConfig"),
        "PlatformArgs": ("helia_aot.config.sections", "PlatformConfig"),
        "TestArgs": ("helia_aot.config.sections", "TestConfig"),
        "OptimizationArgs": ("helia_aot.config.sections", "OptimizationConfig"),
        "DocumentationArgs": ("helia_aot.config.sections", "DocumentationConfig"),
        "MemoryArgs": ("helia_aot.config.rules", "MemoryConfig"),
        "OperatorRuleset": ("helia_aot.config.rules", "OperatorRule"),
        "OperatorOptimization": ("helia_aot.config.rules", "OperatorOptimization"),
    },
    globals(),
)


class _CommandPackage(types.ModuleType):
    """This package, whose ``app`` and ``core_version`` are looked up in :mod:`helia_aot.cli.app`
    when first asked for.

    ``app`` is a property rather than a module ``__getattr__`` because importing the submodule
    ``helia_aot.cli.app`` binds the submodule to the package's ``app`` attribute; the setter keeps
    the name meaning the typer app, as it always has.
    """

    @property
    def app(self) -> Any:
        return typer_app()

    @app.setter
    def app(self, value: Any) -> None:
        # The import system binding the submodule; the typer app stays the name's meaning.
        pass

    @property
    def core_version(self) -> Any:
        typer_app()
        return sys.modules["helia_aot.cli.app"].core_version


sys.modules[__name__].__class__ = _CommandPackage

__all__ = [  # noqa: F822 - properties and lazy names
    "BLAS_THREADS",
    "PYDANTIC_PLUGINS",
    "ConvertArgs",
    "DocumentationArgs",
    "MemoryArgs",
    "ModelArgs",
    "ModuleArgs",
    "OperatorOptimization",
    "OperatorRuleset",
    "OptimizationArgs",
    "PlatformArgs",
    "TestArgs",
    "app",
    "core_version",
    "main",
    "run",
]
