"""The target SoC as the compiler sees it: CPU, instruction-set capabilities and memory budgets.

A conversion never asks "is this an Apollo510?"; it asks the platform whether MVE is there, how many
bytes of DTCM it may use and where read-write data should go first. Keeping those facts in one
immutable record lets platform plugins describe new boards without touching the planner or the
lowerings, and lets a user describe a custom board in YAML.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from helia_aot.errors import InvalidConfigError


class MemoryType(str, enum.Enum):
    """A kind of on- or off-chip memory a platform budgets separately.

    Members are declared in the order reports and ``to_dict`` list them.
    """

    MRAM = "mram"
    """Non-volatile magnetoresistive memory (program and constants on Apollo parts)."""
    SRAM = "sram"
    """General-purpose on-chip RAM."""
    DTCM = "dtcm"
    """Data tightly-coupled memory: single-cycle, the fastest home for activations."""
    ITCM = "itcm"
    """Instruction tightly-coupled memory (code; not filled with data by default)."""
    PSRAM = "psram"
    """External pseudo-static RAM: large and slow."""
    DRAM = "dram"
    """External dynamic RAM."""
    FLASH = "flash"
    """Read-only non-volatile memory."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def _missing_(cls, value: object) -> MemoryType | None:
        # Any case, as the product accepts (``MemoryType("DTCM")``): reports print these upper-case
        # and a value copied from one must read back.
        if isinstance(value, str):
            return next((m for m in cls if m.value == value.strip().lower()), None)
        return None


class SocCapability(str, enum.Enum):
    """An instruction-set or accelerator feature a lowering may rely on."""

    MCU = "mcu"
    """A plain Cortex-M core (every platform has one)."""
    DSP = "dsp"
    """The Armv7E-M / Armv8-M DSP extension (SIMD on 32-bit registers)."""
    MVE = "mve"
    """Helium, the M-profile vector extension (Cortex-M55 and later)."""
    FP16 = "fp16"
    """Half-precision floating point arithmetic."""
    NPU = "npu"
    """A neural processing unit next to the CPU."""

    def __str__(self) -> str:
        return self.value


DEFAULT_FILL_ORDER: tuple[MemoryType, ...] = (
    MemoryType.DTCM,
    MemoryType.SRAM,
    MemoryType.MRAM,
    MemoryType.PSRAM,
    MemoryType.DRAM,
)
"""Read-write memories from fastest to slowest; a custom platform without ``preferred_order`` fills
the ones it has in this order (ITCM holds code and FLASH is read-only, so neither is listed)."""

_MEMORY_RANK = {memory: rank for rank, memory in enumerate(MemoryType)}
_CAPABILITY_RANK = {capability: rank for rank, capability in enumerate(SocCapability)}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_CPU_RE = re.compile(r"^[a-z0-9][a-z0-9+._-]*$")


def parse_memory_type(value: object) -> MemoryType:
    """The memory a config value names, case-insensitively (``"DTCM"``, ``"dtcm"``)."""
    if isinstance(value, MemoryType):
        return value
    if isinstance(value, str):
        try:
            return MemoryType(value.strip().lower())
        except ValueError:
            pass
    raise InvalidConfigError(
        f"Unknown memory type {value!r}.",
        hint="Memory types are: " + ", ".join(m.value for m in MemoryType) + ".",
    )


def parse_capability(value: object) -> SocCapability:
    """The capability a config value names, case-insensitively (``"MVE"``, ``"mve"``)."""
    if isinstance(value, SocCapability):
        return value
    if isinstance(value, str):
        try:
            return SocCapability(value.strip().lower())
        except ValueError:
            pass
    raise InvalidConfigError(
        f"Unknown SoC capability {value!r}.",
        hint="Capabilities are: " + ", ".join(c.value for c in SocCapability) + ".",
    )


def _is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass(frozen=True, slots=True)
class SocPlatform:
    """One target SoC (or board): what the generated code may assume about the hardware.

    ``memories`` holds ``(MemoryType, bytes)`` pairs: the bytes of each memory the generated module
    may use (a mapping is accepted and normalised). ``preferred_order`` lists the memories that
    read-write data fills, fastest first. ``alignment`` is the minimum alignment of every arena (16
    where vector loads want it). Values are validated and normalised on construction, so two
    platforms describing the same hardware compare equal whatever order their fields were given in.

    ``clock_mhz`` and ``wait_states`` feed the cycle model (``helia_aot.testing.cycles``), nothing
    the compiler decides: the core clock the figures are stated at (0 when undeclared) and the wait
    states one data access to each memory adds at that clock (a memory left out adds none). They
    stay out of ``to_dict`` and of equality, so a module's hashes do not depend on them.
    """

    name: str
    cpu: str
    capabilities: frozenset[SocCapability]
    memories: tuple[tuple[MemoryType, int], ...]
    preferred_order: tuple[MemoryType, ...]
    alignment: int = 16
    description: str = ""
    clock_mhz: float = field(default=0.0, compare=False)
    wait_states: tuple[tuple[MemoryType, int], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        name = str(self.name).strip()
        if not _NAME_RE.match(name):
            raise InvalidConfigError(
                f"Platform name {self.name!r} is not valid.",
                hint="Use letters, digits, '_', '-' or '.', starting with a letter or digit.",
            )
        cpu = str(self.cpu).strip().lower()
        if not _CPU_RE.match(cpu):
            raise InvalidConfigError(
                f"Platform {name!r}: CPU {self.cpu!r} is not valid.",
                hint="Name the core as the compiler does, e.g. 'cortex-m4' or 'cortex-m55'.",
            )
        if isinstance(self.capabilities, str):  # a lone string would iterate per character
            raise InvalidConfigError(
                f"Platform {name!r}: capabilities must be a list, not {self.capabilities!r}."
            )
        capabilities = frozenset(parse_capability(c) for c in self.capabilities)
        memories = self._normalise_memories(name, self.memories)
        order = self._normalise_order(name, self.preferred_order, memories)
        alignment = self.alignment
        if isinstance(alignment, bool) or not isinstance(alignment, int) or not _is_power_of_two(alignment):
            raise InvalidConfigError(
                f"Platform {name!r}: alignment {alignment!r} is not a positive power of two.",
                hint="Use 4 for Cortex-M4 parts and 16 for Cortex-M55 (MVE) parts.",
            )
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "cpu", cpu)
        object.__setattr__(self, "capabilities", capabilities)
        object.__setattr__(self, "memories", memories)
        object.__setattr__(self, "preferred_order", order)
        object.__setattr__(self, "description", str(self.description))
        object.__setattr__(self, "wait_states", self._normalise_wait_states(name, self.wait_states))
        if (
            isinstance(self.clock_mhz, bool)
            or not isinstance(self.clock_mhz, (int, float))
            or self.clock_mhz < 0
        ):
            raise InvalidConfigError(
                f"Platform {name!r}: clock_mhz must be a non-negative number, got {self.clock_mhz!r}."
            )

    @staticmethod
    def _normalise_wait_states(name: str, wait_states: Any) -> tuple[tuple[MemoryType, int], ...]:
        pairs: Iterable[Any] = wait_states.items() if isinstance(wait_states, Mapping) else wait_states
        waits: dict[MemoryType, int] = {}
        for memory_name, count in pairs:
            memory = parse_memory_type(memory_name)
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InvalidConfigError(
                    f"Platform {name!r}: wait states of {memory.value} must be a non-negative integer, "
                    f"got {count!r}."
                )
            waits[memory] = count
        return tuple(sorted(waits.items(), key=lambda item: _MEMORY_RANK[item[0]]))

    def wait_states_of(self, memory: MemoryType | str) -> int:
        """Wait states one data access to ``memory`` adds at ``clock_mhz`` (0 when undeclared)."""
        return dict(self.wait_states).get(parse_memory_type(memory), 0)

    @staticmethod
    def _normalise_memories(name: str, memories: Any) -> tuple[tuple[MemoryType, int], ...]:
        pairs: Iterable[Any] = memories.items() if isinstance(memories, Mapping) else memories
        budgets: dict[MemoryType, int] = {}
        for pair in pairs:
            try:
                key, size = pair
            except (TypeError, ValueError):
                raise InvalidConfigError(
                    f"Platform {name!r}: memories must map a memory type to a byte count, got {pair!r}."
                ) from None
            memory = parse_memory_type(key)
            if memory in budgets:
                raise InvalidConfigError(f"Platform {name!r}: memory {memory.value} is listed twice.")
            if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
                raise InvalidConfigError(
                    f"Platform {name!r}: the {memory.value} budget must be a positive number of bytes, "
                    f"got {size!r}.",
                    hint="Leave a memory out instead of giving it a zero budget.",
                )
            budgets[memory] = size
        if not budgets:
            raise InvalidConfigError(f"Platform {name!r} declares no memories.")
        return tuple(sorted(budgets.items(), key=lambda item: _MEMORY_RANK[item[0]]))

    @staticmethod
    def _normalise_order(
        name: str, order: Any, memories: tuple[tuple[MemoryType, int], ...]
    ) -> tuple[MemoryType, ...]:
        if isinstance(order, str):
            raise InvalidConfigError(f"Platform {name!r}: preferred_order must be a list, not {order!r}.")
        parsed = tuple(parse_memory_type(m) for m in order)
        if not parsed:
            raise InvalidConfigError(f"Platform {name!r}: preferred_order names no memory to place data in.")
        present = {memory for memory, _ in memories}
        missing = [m.value for m in parsed if m not in present]
        if missing:
            raise InvalidConfigError(
                f"Platform {name!r}: preferred_order names memories it does not declare: "
                f"{', '.join(missing)}.",
                hint="Declared memories: " + ", ".join(m.value for m, _ in memories) + ".",
            )
        if len(set(parsed)) != len(parsed):
            raise InvalidConfigError(f"Platform {name!r}: preferred_order lists a memory twice.")
        return parsed

    # -- queries ---------------------------------------------------------------------------------

    def has(self, capability: SocCapability | str) -> bool:
        """Whether the platform offers ``capability`` (a member or its name)."""
        return parse_capability(capability) in self.capabilities

    def has_memory(self, memory: MemoryType | str) -> bool:
        """Whether the platform declares a budget for ``memory``."""
        memory = parse_memory_type(memory)
        return any(m is memory for m, _ in self.memories)

    def budget(self, memory: MemoryType | str) -> int:
        """Bytes of ``memory`` the generated module may use; a memory the platform lacks is an error."""
        memory = parse_memory_type(memory)
        for m, size in self.memories:
            if m is memory:
                return size
        raise InvalidConfigError(
            f"Platform {self.name!r} has no {memory.value}.",
            hint="It declares: " + ", ".join(m.value for m, _ in self.memories) + ".",
        )

    @property
    def budgets(self) -> Mapping[MemoryType, int]:
        """Read-only view of the memory budgets, in declaration order of :class:`MemoryType`."""
        return MappingProxyType(dict(self.memories))

    @property
    def memory_types(self) -> tuple[MemoryType, ...]:
        """The memories the platform declares."""
        return tuple(m for m, _ in self.memories)

    @property
    def has_itcm(self) -> bool:
        return self.has_memory(MemoryType.ITCM)

    @property
    def has_dtcm(self) -> bool:
        return self.has_memory(MemoryType.DTCM)

    @property
    def has_psram(self) -> bool:
        return self.has_memory(MemoryType.PSRAM)

    @property
    def has_dsp(self) -> bool:
        return SocCapability.DSP in self.capabilities

    @property
    def has_mve(self) -> bool:
        return SocCapability.MVE in self.capabilities

    @property
    def has_fp16(self) -> bool:
        return SocCapability.FP16 in self.capabilities

    @property
    def has_npu(self) -> bool:
        return SocCapability.NPU in self.capabilities

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description with a fixed key and element order (for reports and hashes).

        The result is also a valid platform config: ``resolve_platform`` rebuilds an equal platform
        from it under a name that is not registered.
        """
        return {
            "name": self.name,
            "cpu": self.cpu,
            "description": self.description,
            "capabilities": [c.value for c in sorted(self.capabilities, key=_CAPABILITY_RANK.__getitem__)],
            "memories": {m.value: size for m, size in self.memories},
            "preferred_order": [m.value for m in self.preferred_order],
            "alignment": self.alignment,
        }


__all__ = [
    "DEFAULT_FILL_ORDER",
    "MemoryType",
    "SocCapability",
    "SocPlatform",
    "parse_capability",
    "parse_memory_type",
]
