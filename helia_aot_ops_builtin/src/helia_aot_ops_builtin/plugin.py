"""The ``helia_aot`` entry point of the built-in operators: registers every op module's records."""

from __future__ import annotations

import importlib
import pkgutil

from helia_aot.pack import OperatorRecord, hookimpl, register_operator_modules
from helia_aot.registry import RegistryContext

from helia_aot_ops_builtin import ops
from helia_aot_ops_builtin.gru_fusion import fuse_rolled_gru
from helia_aot_ops_builtin.resource_variables import resolve_resource_variables
from helia_aot_ops_builtin.transforms import register_transforms


def registrations() -> list[OperatorRecord]:
    """Every ``REGISTRATIONS`` entry of the modules in ``helia_aot_ops_builtin.ops``, by module name."""
    found: list[OperatorRecord] = []
    for info in sorted(pkgutil.iter_modules(ops.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{ops.__name__}.{info.name}")
        found.extend(getattr(module, "REGISTRATIONS", ()))
    return found


def aot_operator_classes() -> list[tuple[str, type]]:
    """``(key, operator class)`` of every built-in operator, for ``register_default_aot_operators``."""
    return [(record.key, record.operator) for record in registrations()]


@hookimpl
def helia_aot_register(context: RegistryContext) -> None:
    """Register parsers, options classes and operator classes of the built-in operators, and the
    built-in graph transforms and the ``fuse_rolled_gru`` model hook (a WHILE-loop Keras GRU
    becomes one GRU operator). The operator modules are imported when a conversion first looks up
    one of their keys (``register_operator_modules``): most models use a few of them."""
    register_operator_modules(context, ops)
    register_transforms(context)
    context.litert_model_hooks.register("fuse_rolled_gru", fuse_rolled_gru)
    # Resource variables become persistent variable tensors before the model is read into AIR.
    context.litert_model_hooks.register("resolve_resource_variables", resolve_resource_variables)
