"""Replacing a built-in operator class on purpose: a customizer, not part of the plugin hook.

``stamp_fully_connected`` swaps the built-in FULLY_CONNECTED class for a subclass of it. The subclass
inherits the built-in's validation, constants and kernel choice and changes one thing: every
operator source it writes starts with a provenance line, so a reviewer can see which lowering
produced it. Built-ins are protected, so the context must be built with ``allow_override=True``::

    build_default_registry_context(customizers=[stamp_fully_connected], allow_override=True)

Without it, context construction fails with a DuplicateRegistrationError that says so. The pack's
plugin hook does not register this: an installed pack must never change a built-in silently.
"""

from __future__ import annotations

from pathlib import Path

from helia_aot.registry import RegistryContext

TARGET_KEY = "FULLY_CONNECTED"
STAMP = "/* lowered by helia-aot-example-ops: stamped FULLY_CONNECTED */\n"


def stamp_fully_connected(context: RegistryContext) -> None:
    """Register a stamped subclass of the built-in FULLY_CONNECTED class over the built-in."""
    builtin = context.aot_operator_classes.get(TARGET_KEY)

    class StampedFullyConnected(builtin):
        """The built-in lowering, with a provenance line on top of each operator source."""

        def emit(self, save_path: Path) -> None:
            super().emit(save_path)
            source = save_path / "src" / f"{self.prefix}_{self.name}.c"
            source.write_text(STAMP + source.read_text(encoding="utf-8"), encoding="utf-8", newline="\n")

    context.aot_operator_classes.register(TARGET_KEY, StampedFullyConnected, overwrite=True)
