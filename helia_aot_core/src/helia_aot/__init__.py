"""helia-aot: compile LiteRT models into self-contained C inference modules for Ambiq Apollo MCUs.

The public facade: :class:`ConvertArgs` (the configuration), :class:`AotConverter` (the six-stage
pipeline), :class:`ConversionResult` (what a conversion wrote) and :func:`sweep` (one conversion
per combination of settings, one table row each) and :func:`validate` (the module against LiteRT
on a dataset, with error metrics per output).
"""

from __future__ import annotations

from helia_aot.command_start import quiet_interrupts_while_starting

quiet_interrupts_while_starting()  # first: Ctrl-C during the command's start-up says "interrupted"

from typing import TYPE_CHECKING  # noqa: E402 - after the start-up handler

from helia_aot.lazy_names import lazy_names  # noqa: E402
from helia_aot.version import __version__  # noqa: E402

if TYPE_CHECKING:  # the real names for type checkers; at run time __getattr__ imports them on use
    from helia_aot.config import ConvertArgs
    from helia_aot.converter import AotConverter, ConversionResult
    from helia_aot.sweeps import sweep
    from helia_aot.validation import validate

__all__ = ["AotConverter", "ConversionResult", "ConvertArgs", "__version__", "sweep", "validate"]


# The facade is the top layer: every `import helia_aot.<module>` runs this file first, so eager
# imports here would load the whole pipeline (pydantic, mako, numpy) for a plugin that only wants
# helia_aot.plugins.hookimpl.
__getattr__, __dir__ = lazy_names(
    "helia_aot",
    {
        "AotConverter": ("helia_aot.converter", "AotConverter"),
        "ConversionResult": ("helia_aot.converter", "ConversionResult"),
        "ConvertArgs": ("helia_aot.config", "ConvertArgs"),
        "sweep": ("helia_aot.sweeps", "sweep"),
        "validate": ("helia_aot.validation", "validate"),
    },
    globals(),
)
