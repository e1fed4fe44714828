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
from typing import Any

from helia_aot.air import AirTensor, AirTensorType
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

    def resolve(self) -> None:
        """As ``AotOperator.resolve``, then the int4 constants the code reads get their unpacked
        copies (``int4_weights.unpack_int4_reads``)."""
        super().resolve()
        if self.touches_int4():
            from helia_aot_ops_builtin.common.int4_weights import unpack_int4_reads  # int4 models only

            unpack_int4_reads(self)

    def touches_int4(self) -> bool:
        """Whether any tensor of the operator is int4 (only then is ``int4_weights`` imported)."""
        return any(t.dtype is AirTensorType.INT4 for t in self.model.tensors_of(self.op))

    def ptr(self, tensor: AirTensor, *, const: bool = False, ctype: str | None = None) -> str:
        """As ``TemplateOperator.ptr``; an int4 constant points at the int8 buffer the run
        unpacks it into, or, read packed, is typed ``uint8_t`` (see ``int4_weights``)."""
        if tensor.dtype is AirTensorType.INT4:
            from helia_aot_ops_builtin.common.int4_weights import unpacked_copy

            copy = unpacked_copy(self, tensor)
            if copy is not None:
                return super().ptr(copy, const=const, ctype=ctype)
            return super().ptr(tensor, const=const, ctype="uint8_t")
        return super().ptr(tensor, const=const, ctype=ctype)

    def _raw_ptr(self, tensor: AirTensor, ctype: str, const: bool) -> str:
        return TemplateOperator.ptr(self, tensor, const=const, ctype=ctype)

    def _unpack_calls(self) -> list[tuple[str, str, int]]:
        if not self.touches_int4():
            return []
        from helia_aot_ops_builtin.common.int4_weights import unpack_calls

        return unpack_calls(self, self._raw_ptr)

    def kernel_sources(self) -> list[Path]:
        """The families' files, and the int4 unpacker's when the run unpacks weights."""
        sources = super().kernel_sources()
        if self._unpack_calls():
            sources += [p for p in families.kernel_sources("int4") if p not in sources]
        return sources

    def template_values(self) -> dict[str, Any]:
        """Adds ``int4_unpacks``: (packed, int8 copy, count) to unpack first in the run."""
        values = super().template_values()
        unpacks = self._unpack_calls()
        values.setdefault("int4_unpacks", unpacks)
        if unpacks:
            values["kernel_headers"] = [*values["kernel_headers"], f"{self.prefix}_hk_int4.h"]
        return values
