"""Registries: how a conversion finds parsers, operator classes, transforms, planners, exporters
and platforms. :class:`RegistryContext` holds one :class:`Registry` per extension point;
:func:`build_default_registry_context` fills one from the installed plugins.
"""

from helia_aot.registry.build import build_default_registry_context, list_plugins
from helia_aot.registry.context import DEFAULT_TRANSFORM_ORDER, Customizer, RegistryBundle, RegistryContext
from helia_aot.registry.registry import Registry

__all__ = [
    "DEFAULT_TRANSFORM_ORDER",
    "Customizer",
    "Registry",
    "RegistryBundle",
    "RegistryContext",
    "build_default_registry_context",
    "list_plugins",
]
