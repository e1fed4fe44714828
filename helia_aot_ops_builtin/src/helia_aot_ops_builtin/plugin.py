"""The ``helia_aot`` entry point of the built-in operators: registers every op module's lowerings."""

from __future__ import annotations

import importlib
import pkgutil

from helia_aot.plugins import hookimpl

from helia_aot_ops_builtin import ops
from helia_aot_ops_builtin.base import OpRegistration


def registrations() -> list[OpRegistration]:
    """Every ``REGISTRATIONS`` entry of the modules in ``helia_aot_ops_builtin.ops``, by module name."""
    found: list[OpRegistration] = []
    for info in sorted(pkgutil.iter_modules(ops.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{ops.__name__}.{info.name}")
        found.extend(getattr(module, "REGISTRATIONS", ()))
    return found


@hookimpl
def helia_aot_register(context) -> None:
    """Register parsers, options classes and operator classes of the built-in operators."""
    for reg in registrations():
        for key in reg.litert_keys:
            context.litert_parsers.register(key, reg.parser)
        if reg.options is not None:
            context.air_options.register(reg.key, reg.options)
        context.aot_operator_classes.register(reg.key, reg.operator)
