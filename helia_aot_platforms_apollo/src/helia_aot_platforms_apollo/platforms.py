"""The Ambiq Apollo evaluation boards helia-aot can target, and the compiler flags of their cores.

Budgets are the full capacity of each memory in bytes, as the SoC datasheets give it; a project that
keeps part of a memory for itself lowers the budget in its config (``platform.memories``). Data
fills DTCM first because it is single-cycle, then SRAM, then MRAM, and PSRAM last where a board has
it. Cortex-M55 parts align arenas to 16 bytes for MVE vector loads; Cortex-M4 parts need only 4.

Each family also declares the clock its cycle figures are stated at and the wait states one data
access to each memory adds at that clock (``clock_mhz``, ``wait_states``; read by the cycle model,
``helia_aot.testing.cycles``, never by the compiler). TCMs are zero-wait by construction (the
Cortex-M4 and M55 TRMs). The others are one access's wait states at the declared clock: on the
Cortex-M55 they price the data cache's line fills (a hit costs nothing), on the Cortex-M4 every
access; the model rescales them to another clock as a fixed access time (``platform_at_clock``).
docs/cycles.md shows them checked against Apollo510 silicon at 96 and 250 MHz.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from helia_aot.errors import InvalidConfigError
from helia_aot.platforms import MemoryType, SocCapability, SocPlatform

KiB = 1 << 10
MiB = 1 << 20

_M4 = frozenset({SocCapability.MCU, SocCapability.DSP})
_M55 = frozenset({SocCapability.MCU, SocCapability.DSP, SocCapability.MVE, SocCapability.FP16})
_M55_NPU = _M55 | {SocCapability.NPU}

_TCM_FIRST = (MemoryType.DTCM, MemoryType.SRAM, MemoryType.MRAM)
_TCM_FIRST_PSRAM = (*_TCM_FIRST, MemoryType.PSRAM)


def _boards(
    names: Mapping[str, str],
    *,
    cpu: str,
    capabilities: frozenset[SocCapability],
    memories: Mapping[MemoryType, int],
    order: tuple[MemoryType, ...],
    alignment: int,
    clock_mhz: float,
    wait_states: Mapping[MemoryType, int],
) -> list[SocPlatform]:
    """One platform per board name of a family whose boards share the same SoC resources."""
    return [
        SocPlatform(
            name=name,
            cpu=cpu,
            capabilities=capabilities,
            memories=tuple(memories.items()),  # normalised (sorted by memory) on construction
            preferred_order=order,
            alignment=alignment,
            description=description,
            clock_mhz=clock_mhz,
            wait_states=tuple(wait_states.items()),  # normalised on construction, like memories
        )
        for name, description in names.items()
    ]


_APOLLO3 = _boards(
    {
        "apollo3_evb": "Ambiq Apollo3 evaluation board",
        "apollo3_blue_evb": "Ambiq Apollo3 Blue evaluation board",
        "apollo3_blue_thin_evb": "Ambiq Apollo3 Blue thin evaluation board",
    },
    cpu="cortex-m4",
    capabilities=_M4,
    memories={MemoryType.MRAM: 1 * MiB, MemoryType.SRAM: 320 * KiB, MemoryType.DTCM: 64 * KiB},
    order=_TCM_FIRST,
    alignment=4,
    clock_mhz=48.0,
    wait_states={MemoryType.DTCM: 0, MemoryType.SRAM: 0, MemoryType.MRAM: 1},
)

_APOLLO3_PLUS = _boards(
    {
        "apollo3p_evb": "Ambiq Apollo3 Plus evaluation board",
        "apollo3_blue_plus_evb": "Ambiq Apollo3 Blue Plus evaluation board",
    },
    cpu="cortex-m4",
    capabilities=_M4,
    memories={MemoryType.MRAM: 2 * MiB, MemoryType.SRAM: 704 * KiB, MemoryType.DTCM: 64 * KiB},
    order=_TCM_FIRST,
    alignment=4,
    clock_mhz=48.0,
    wait_states={MemoryType.DTCM: 0, MemoryType.SRAM: 0, MemoryType.MRAM: 1},
)

_APOLLO4 = _boards(
    {
        "apollo4l_evb": "Ambiq Apollo4 Lite evaluation board",
        "apollo4l_blue_evb": "Ambiq Apollo4 Lite Blue evaluation board",
        "apollo4p_evb": "Ambiq Apollo4 Plus evaluation board",
        "apollo4p_blue_kbr_evb": "Ambiq Apollo4 Plus Blue evaluation board (KBR package)",
        "apollo4p_blue_kxr_evb": "Ambiq Apollo4 Plus Blue evaluation board (KXR package)",
    },
    cpu="cortex-m4",
    capabilities=_M4,
    memories={MemoryType.MRAM: 2_048_000, MemoryType.SRAM: 1 * MiB, MemoryType.DTCM: 384 * KiB},
    order=_TCM_FIRST,
    alignment=4,
    clock_mhz=192.0,
    wait_states={MemoryType.DTCM: 0, MemoryType.SRAM: 1, MemoryType.MRAM: 2},
)

_APOLLO510 = _boards(
    {
        "apollo510_evb": "Ambiq Apollo510 evaluation board",
        "apollo510b_evb": "Ambiq Apollo510B evaluation board",
    },
    cpu="cortex-m55",
    capabilities=_M55,
    memories={
        MemoryType.MRAM: 4_128_768,
        MemoryType.SRAM: 3 * MiB,
        MemoryType.DTCM: 496 * KiB,
        MemoryType.ITCM: 256 * KiB,
        MemoryType.PSRAM: 64 * MiB,
    },
    order=_TCM_FIRST_PSRAM,
    alignment=16,
    clock_mhz=250.0,
    wait_states={
        MemoryType.ITCM: 0,
        MemoryType.DTCM: 0,
        MemoryType.SRAM: 2,
        MemoryType.MRAM: 3,
        MemoryType.PSRAM: 8,
    },
)

_APOLLO510L = _boards(
    {
        "apollo510l_evb": "Ambiq Apollo510L evaluation board",
        "apollo330mp_evb": "Ambiq Apollo330M Plus evaluation board",
    },
    cpu="cortex-m55",
    capabilities=_M55,
    memories={MemoryType.MRAM: 2_031_616, MemoryType.SRAM: 1_835_008, MemoryType.DTCM: 240 * KiB},
    order=_TCM_FIRST,
    alignment=16,
    clock_mhz=250.0,
    wait_states={MemoryType.DTCM: 0, MemoryType.SRAM: 2, MemoryType.MRAM: 3},
)

_ATOMIQ = _boards(
    {"atomiq110": "Ambiq Atomiq110 (Cortex-M55 with an NPU)"},
    cpu="cortex-m55",
    capabilities=_M55_NPU,
    memories={
        MemoryType.MRAM: 4 * MiB,
        MemoryType.SRAM: 3 * MiB,
        MemoryType.DTCM: 496 * KiB,
        MemoryType.ITCM: 256 * KiB,
    },
    order=_TCM_FIRST,
    alignment=16,
    clock_mhz=250.0,
    wait_states={MemoryType.ITCM: 0, MemoryType.DTCM: 0, MemoryType.SRAM: 2, MemoryType.MRAM: 3},
)

APOLLO_PLATFORMS: tuple[SocPlatform, ...] = tuple(
    sorted(_APOLLO3 + _APOLLO3_PLUS + _APOLLO4 + _APOLLO510 + _APOLLO510L + _ATOMIQ, key=lambda p: p.name)
)
"""Every Apollo platform this distribution registers, sorted by name."""

APOLLO_PLATFORMS_BY_NAME: Mapping[str, SocPlatform] = MappingProxyType({p.name: p for p in APOLLO_PLATFORMS})

CPU_COMPILER_FLAGS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        # The M4F has a single-precision FPU that gcc does not enable from -mcpu alone.
        "cortex-m4": ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"),
        # -mcpu=cortex-m55 already implies MVE-F and the FPv5 FPU (-mfpu=auto).
        "cortex-m55": ("-mcpu=cortex-m55", "-mfloat-abi=hard"),
    }
)
"""arm-none-eabi-gcc core selection flags per CPU (hard-float ABI, matching Ambiq's SDK builds)."""


def compiler_flags(target: SocPlatform | str) -> tuple[str, ...]:
    """The arm-none-eabi-gcc ``-mcpu``/``-mfpu``/``-mfloat-abi`` flags for a platform or CPU name.

    A build of a generated module must use the same flags as the application it links into,
    because hard- and soft-float objects cannot be mixed.
    """
    cpu = target.cpu if isinstance(target, SocPlatform) else str(target).strip().lower()
    try:
        return CPU_COMPILER_FLAGS[cpu]
    except KeyError:
        raise InvalidConfigError(
            f"No compiler flags are known for CPU {cpu!r}.",
            hint="Known CPUs: " + ", ".join(sorted(CPU_COMPILER_FLAGS)) + ".",
        ) from None


__all__ = ["APOLLO_PLATFORMS", "APOLLO_PLATFORMS_BY_NAME", "CPU_COMPILER_FLAGS", "compiler_flags"]
