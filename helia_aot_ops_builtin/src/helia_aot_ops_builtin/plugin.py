"""The ``helia_aot`` entry point of the built-in operators: registers every op module's records."""

from __future__ import annotations

import importlib
import pkgutil

from helia_aot.pack import OperatorRecord, hookimpl, register_operators
from helia_aot.registry import RegistryContext

from helia_aot_ops_builtin import ops
from helia_aot_ops_builtin.transforms.static_shapes import FoldStaticShapeExpressions

TRANSFORMS: tuple[type, ...] = (FoldStaticShapeExpressions,)
"""The graph transforms the pack registers (each runs by its ``ORDER``)."""


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
    """Register parsers, options classes and operator classes of the built-in operators, and
    the pack's transforms."""
    register_operators(context, registrations())
    for transform in TRANSFORMS:
        context.transforms.register(transform.NAME, transform)
