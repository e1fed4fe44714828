"""BuiltinOperator: the core's TemplateOperator bound to this package's templates and kernels.

A built-in operator declares the kernel families it calls (``KERNELS``, ``hk_<name>.h`` in one of
the family folders the kernel library searches) and the template of its ``.c`` file
(``TEMPLATE``, in a family folder too; see ``helia_aot_ops_builtin.families``); the template
inherits the core's ``_operator.c.mako`` and the operator's ``compute_values`` supplies the
numbers. Emission itself is ``helia_aot.pack.TemplateOperator``'s, the same a third-party pack
uses. Operator modules end with ``REGISTRATIONS``, a list of ``helia_aot.pack.OperatorRecord``,
which the plugin registers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType

from helia_aot.air import AirTensor
from helia_aot.pack import KernelLibrary, TemplateOperator

from helia_aot_ops_builtin import families

KERNEL_STATUS_BASE = 0
"""A kernel's nonzero status n becomes the module status ``-(KERNEL_STATUS_BASE + n)``: negative
statuses are kernel failures, as in the product's C API, so they never meet the module's own
positive codes (1-999) or the custom-operator range (1000-1999). Defined beside the base class,
and imported from here by every operator, so one that only needs the number does not import the
data movers."""


def label(tensor: AirTensor) -> str:
    """How every built-in operator names a tensor in a message: its name in the model file."""
    return repr(tensor.source_name or tensor.name)


class BuiltinOperator(TemplateOperator):
    """Base of every built-in operator: template emission over the shared kernel library."""

    TEMPLATE_DIRS: Sequence[Path] = families.TEMPLATE_DIRS
    KERNEL_LIBRARY: KernelLibrary | None = families.LIBRARY
    # The float16 kernels compute in _Float16, which only FP16 cores (Cortex-M55) have: Resolve
    # refuses a non-constant float16 operand elsewhere, naming the platforms that have FP16.
    DTYPE_PLATFORM_CAPABILITIES = MappingProxyType({"float16": "fp16"})
