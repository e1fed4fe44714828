"""The pack's ``helia_aot`` entry point: the two customizers, reused unchanged as the plugin hook.

``pyproject.toml`` declares this module under ``[project.entry-points.helia_aot]``, so installing
the distribution is the whole integration: ``helia-aot convert`` and ``AotConverter`` both load it.
"""

from __future__ import annotations

from helia_aot.pack import hookimpl
from helia_aot.registry import RegistryContext

from helia_aot_example_ops import custom_noop, gain_clip


def customize_registry(context: RegistryContext) -> None:
    """Register both operators; also usable as ``build_default_registry_context(customizers=[...])``."""
    custom_noop.customize_registry(context)
    gain_clip.customize_registry(context)


helia_aot_register = hookimpl(customize_registry)
