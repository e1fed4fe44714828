"""Registries: how a conversion finds parsers, operator classes, transforms and planners."""

from helia_aot.registry.context import RegistryContext, build_default_registry_context
from helia_aot.registry.registry import Registry

__all__ = ["Registry", "RegistryContext", "build_default_registry_context"]
