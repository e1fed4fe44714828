"""The ``helia_aot`` entry point of the built-in operators: registers every op module's records."""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

from helia_aot.converters.litert import schema_access as sa
from helia_aot.pack import OperatorRecord, hookimpl, register_operator_modules
from helia_aot.registry import RegistryContext

from helia_aot_ops_builtin.families import family_packages
from helia_aot_ops_builtin.transforms import register_transforms

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert


def registrations() -> list[OperatorRecord]:
    """Every ``REGISTRATIONS`` entry of the modules of the family packages, family by family and
    by module name within each (the order ``register_operator_modules`` registers them in)."""
    found: list[OperatorRecord] = []
    for package in family_packages():
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            found.extend(getattr(module, "REGISTRATIONS", ()))
    return found


def aot_operator_classes() -> list[tuple[str, type]]:
    """``(key, operator class)`` of every built-in operator, for ``register_default_aot_operators``."""
    return [(record.key, record.operator) for record in registrations()]


def fuse_rolled_gru(model: litert.ModelT) -> litert.ModelT | None:
    """The ``fuse_rolled_gru`` model hook: :func:`helia_aot_ops_builtin.recurrent.gru_fusion.fuse_rolled_gru`,
    imported only for a model whose operator codes include WHILE (a model without one has no loop
    to fuse, and most models have none; Load has marked the operators' source indices already)."""
    codes = model.operatorCodes or ()
    if not any(sa.builtin_name(sa.builtin_code_of(code)) == "WHILE" for code in codes):
        return None
    from helia_aot_ops_builtin.recurrent.gru_fusion import fuse_rolled_gru as fuse

    return fuse(model)


def resolve_resource_variables(model: litert.ModelT) -> None:
    """The ``resolve_resource_variables`` model hook:
    :func:`helia_aot_ops_builtin.control_flow.resource_variables.resolve_resource_variables`,
    imported only for a model with a VAR_HANDLE or CALL_ONCE operator (its own first check, made
    here first)."""
    keys = [[sa.op_key(model, op) for op in sa.operators_of(sg)] for sg in sa.subgraphs_of(model)]
    if not any("VAR_HANDLE" in k or "CALL_ONCE" in k for k in keys):
        return
    from helia_aot_ops_builtin.control_flow.resource_variables import resolve_resource_variables as resolve

    resolve(model)


@hookimpl
def helia_aot_register(context: RegistryContext) -> None:
    """Register parsers, options classes, operator classes and arities (the input and output
    counts their LiteRT kernels accept) of the built-in operators, and the
    built-in graph transforms and the ``fuse_rolled_gru`` model hook (a WHILE-loop Keras GRU
    becomes one GRU operator). The operator modules are imported when a conversion first looks up
    one of their keys (``register_operator_modules``): most models use a few of them."""
    register_operator_modules(context, *family_packages())
    register_transforms(context)
    context.litert_model_hooks.register("fuse_rolled_gru", fuse_rolled_gru)
    # Resource variables become persistent variable tensors before the model is read into AIR.
    context.litert_model_hooks.register("resolve_resource_variables", resolve_resource_variables)
