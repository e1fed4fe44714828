"""helia-aot: compile LiteRT models into self-contained C inference modules for Ambiq Apollo MCUs.

The public facade: :class:`ConvertArgs` (the configuration), :class:`AotConverter` (the six-stage
pipeline), :class:`ConversionResult` (what a conversion wrote) and :func:`sweep` (one conversion
per combination of settings, one table row each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from helia_aot.version import __version__

if TYPE_CHECKING:  # the real names for type checkers; at run time __getattr__ imports them on use
    from helia_aot.config import ConvertArgs
    from helia_aot.converter import AotConverter, ConversionResult
    from helia_aot.sweeps import sweep

__all__ = ["AotConverter", "ConversionResult", "ConvertArgs", "__version__", "sweep"]


def __getattr__(name: str) -> object:
    # The facade is the top layer and the one place an import waits for first use (PEP 562): every
    # `import helia_aot.<module>` runs this file first, so eager imports here would load the whole
    # pipeline (pydantic, mako, numpy) for a plugin that only wants helia_aot.plugins.hookimpl.
    if name in ("AotConverter", "ConversionResult"):
        from helia_aot import converter

        return getattr(converter, name)
    if name == "ConvertArgs":
        from helia_aot.config import ConvertArgs

        return ConvertArgs
    if name == "sweep":
        from helia_aot.sweeps import sweep

        return sweep
    raise AttributeError(f"module 'helia_aot' has no attribute {name!r}")
