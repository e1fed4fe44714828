"""The arm-none-eabi-gcc flags that select a platform's core: what a build of a module must use.

A generated module is compiled by the application's build, so it must get the same ``-mcpu``, FPU
and float-ABI flags as the rest of the firmware (hard- and soft-float objects do not link, and the
Helium kernels exist only when ``-mcpu=cortex-m55`` is given). The module README and
``helia-aot platforms show`` print them from this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

CPU_COMPILER_FLAGS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        # The M4F has a single-precision FPU that gcc does not enable from -mcpu alone.
        "cortex-m4": ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb"),
        # -mcpu=cortex-m55 already implies MVE-F and the FPv5 FPU (-mfpu=auto).
        "cortex-m55": ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"),
    }
)
"""arm-none-eabi-gcc core selection flags per CPU (hard-float ABI, as Ambiq's SDK builds use)."""


def cpu_compiler_flags(cpu: str) -> tuple[str, ...]:
    """The flags for ``cpu`` (``cortex-m55``...), or ``()`` for a CPU this table does not know."""
    return CPU_COMPILER_FLAGS.get(str(cpu).strip().lower(), ())


__all__ = ["CPU_COMPILER_FLAGS", "cpu_compiler_flags"]
