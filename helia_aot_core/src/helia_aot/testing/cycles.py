"""Cycles, not only instructions: a table-driven timing model of the Cortex-M4 and Cortex-M55.

QEMU executes the program; the counting plugin (``target/insn_count.c``) also runs every executed
instruction through a small in-order scoreboard and charges every memory access the wait states of
the memory it touches. The plugin knows no instruction set: this module disassembles the ELF
(``arm-none-eabi-objdump``, which knows Helium), classifies each instruction with the core's timing
table (``target/timing/<cpu>.tsv``: mnemonic -> class, pipe, beats, latency) and hands the plugin
one line per instruction (flags, pipe, issue cycles, latency, the registers it writes, reads and
addresses with) plus the core's rules and the memory map with the platform's wait states (on
the M55, SRAM, MRAM and PSRAM sit behind the core's data cache: a miss pays a line fill at those
wait states, a hit nothing). ``platform_at_clock`` rescales a platform's wait states to another
clock as a fixed access time. The rules, their sources, the check against silicon and what the
model leaves out are in docs/cycles.md.

``measure_cycles(elf, cpu)`` runs an ELF built with the project's harness (``cross_build_program``)
and returns, per harness region, instructions, cycles and where the cycles went (issue, register
dependencies, taken branches, memory wait states, vector load-after-store); the command

    python -m helia_aot.testing.cycles --cpu cortex-m55 [--platform NAME] PROGRAM.elf

prints the same as JSON. An instruction the table does not know is an error under ``strict``
(tests run strict: a silent zero would hide a kernel the model does not cover).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helia_aot.errors import HeliaAotError, ProfileError
from helia_aot.platforms import MemoryType, SocPlatform
from helia_aot.testing.cross import CROSS_PREFIX, TARGET_DIR, QemuRun, run_qemu

__all__ = [
    "BOARD_MEMORY",
    "CACHED",
    "CORE_CLOCKED",
    "CPUS",
    "DEFAULT_PLATFORMS",
    "STALL_KINDS",
    "CycleRun",
    "InstructionTiming",
    "RegionCycles",
    "TimingRow",
    "TimingTable",
    "instruction_timings",
    "line_fill_cycles",
    "load_timing_table",
    "main",
    "measure_cycles",
    "memory_ranges",
    "platform_at_clock",
    "platform_named",
    "wait_states_at",
    "write_model",
]

TIMING_DIR = TARGET_DIR / "timing"
"""The timing tables, one per core (``cortex-m4.tsv``, ``cortex-m55.tsv``)."""

CPUS: Mapping[str, str] = {"cortex-m55": "m55", "cortex-m4": "m4"}
"""Cores the model knows, and the QEMU board (``cross.CORES`` key) that runs each."""

DEFAULT_PLATFORMS: Mapping[str, str] = {"cortex-m55": "apollo510_evb", "cortex-m4": "apollo4p_evb"}
"""The platform whose clock and wait states apply when none is named."""

STALL_KINDS = ("issue", "dependency", "branch", "memory", "store_load", "unknown")
"""Where a region's cycles went; they sum to its cycles (see docs/cycles.md)."""

BOARD_MEMORY: Mapping[str, tuple[tuple[int, int, MemoryType], ...]] = {
    # mps3-an547 as the harness links it (m55_an547.ld): code in ITCM, constants in DDR (what
    # MRAM holds on an Apollo5), data and stack in DTCM, zero-initialised data (the arenas, which
    # the planner puts in DTCM first) in ISRAM. Non-secure aliases map alike.
    "m55": (
        (0x10000000, 0x10080000, MemoryType.ITCM),
        (0x00000000, 0x00080000, MemoryType.ITCM),
        (0x30000000, 0x30080000, MemoryType.DTCM),
        (0x20000000, 0x20080000, MemoryType.DTCM),
        (0x31000000, 0x31400000, MemoryType.DTCM),
        (0x21000000, 0x21400000, MemoryType.DTCM),
        (0x70000000, 0x80000000, MemoryType.MRAM),
        (0x60000000, 0x70000000, MemoryType.MRAM),
    ),
    # mps2-an386 (m4_an386.ld): code in SSRAM1 (MRAM on an Apollo3/4), constants in PSRAM (MRAM
    # there too), data, stack and arenas in SSRAM2/3 (DTCM first on an Apollo4).
    "m4": (
        (0x00000000, 0x00400000, MemoryType.MRAM),
        (0x20000000, 0x20400000, MemoryType.DTCM),
        (0x21000000, 0x22000000, MemoryType.MRAM),
    ),
}
"""Address ranges of each QEMU board and the Apollo memory each stands for."""

# Plugin flags (insn_count.c's F_*).
_LOAD, _STORE, _BRANCH, _VECTOR, _LOL, _DUAL, _MULTI, _DI, _LSTART = 1, 2, 4, 8, 16, 32, 64, 256, 512
_FLAGS_BIT = 24  # the APSR flags, a register of the scoreboard like any other

_CLASS_FLAGS: Mapping[str, int] = {
    "alu": 0,
    "nop": 0,
    "mul": 0,
    "div": 0,
    "fpu": 0,
    "load": _LOAD,
    "fpload": _LOAD,
    "store": _STORE,
    "fpstore": _STORE,
    "ldm": _LOAD | _MULTI,
    "fpldm": _LOAD | _MULTI,
    "stm": _STORE | _MULTI,
    "fpstm": _STORE | _MULTI,
    "branch": _BRANCH,
    "call": _BRANCH,
    "lol": _BRANCH | _LOL,
    "lstart": _BRANCH | _LSTART,
    "vload": _LOAD | _VECTOR,
    "vstore": _STORE | _VECTOR,
    "valu": _VECTOR,
}
_PIPES: Mapping[str, int] = {"int": 0, "ls": 1, "mul": 2, "fp": 2, "ctrl": 3, "br": 4, "sys": 5, "div": 6}
_OPTIONS = frozenset({"nodst", "acc", "dst2", "di"})
_SETS_FLAGS = frozenset({"cmp", "cmn", "tst", "teq"})
_READS_FLAGS = frozenset({"adc", "sbc", "rrx"})
_PARAMS = (
    "taken_branch",
    "lol_branch",
    "ls_pipeline",
    "beat_overlap",
    "store_load_stall",
    "dual_issue",
    "words_per_cycle",
    "dcache_line",
    "dcache_sets",
    "dcache_ways",
    "shifted_operand_latency",
    "store_data_advance",
    "lol_folded",
)
_MODEL_ONLY_PARAMS = frozenset({"words_per_cycle", "shifted_operand_latency"})
"""Parameters the classifier applies itself; the plugin never sees them."""
_SHIFTED_OPERAND = re.compile(r",\s*(?:lsl|lsr|asr|ror)\s+#|,\s*rrx\b")
_CONDITIONS = (
    "eq",
    "ne",
    "cs",
    "hs",
    "cc",
    "lo",
    "mi",
    "pl",
    "vs",
    "vc",
    "hi",
    "ls",
    "ge",
    "lt",
    "gt",
    "le",
    "al",
)


class CycleModelError(ProfileError):
    """The cycle model cannot time a program: a table is malformed or an instruction is unknown."""


@dataclass(frozen=True, slots=True)
class TimingRow:
    """One row of a timing table: how an instruction class issues and when its result is ready."""

    mnemonic: str
    cls: str
    pipe: str
    beats: int
    latency: int
    options: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class TimingTable:
    """A core's rules (``params``) and its rows by mnemonic key."""

    cpu: str
    params: Mapping[str, int]
    rows: Mapping[str, TimingRow]

    def lookup(self, mnemonic: str, operands: str) -> TimingRow | None:
        """The row timing ``mnemonic`` (as objdump prints it) with ``operands``, or None.

        Keys drop objdump's width qualifiers (``.w``/``.n``); a Helium instruction (one naming a Q
        register, or a vector-only mnemonic) is looked up as ``name.f`` for floating point, then
        ``name.mve``, then ``name``, then without the VPT block's ``t``/``e`` suffix; a scalar
        one as written, then without the flag-setting ``s`` and/or a condition code.
        """
        match = self.match(mnemonic, operands)
        return match[0] if match is not None else None

    def match(self, mnemonic: str, operands: str) -> tuple[TimingRow, bool, bool] | None:
        """``lookup``'s row, whether the instruction sets the APSR flags and whether it reads them."""
        name = mnemonic.lower()
        for width in (".w", ".n"):
            name = name.removesuffix(width)
        base, _, suffix = name.partition(".")
        vector = bool(re.search(r"\bq[0-7]\b", operands))
        candidates: list[tuple[str, bool, bool]] = []
        if vector or base.startswith("v"):
            stems = [base] + ([base[:-1]] if base[-1:] in ("t", "e") and len(base) > 3 else [])
            for stem in stems:
                if vector and suffix.startswith("f"):
                    candidates.append((f"{stem}.f", False, False))
                if vector:
                    candidates.append((f"{stem}.mve", False, False))
                candidates.append((stem, False, False))
        candidates += [(base, False, False), (base.removesuffix("s"), base.endswith("s"), False)]
        for cond in _CONDITIONS:
            if base.endswith(cond) and len(base) > len(cond):
                stem = base[: -len(cond)]
                candidates += [(stem, False, True), (stem.removesuffix("s"), stem.endswith("s"), True)]
        for key, sets, reads in candidates:
            row = self.rows.get(key)
            if row is not None:
                sets = sets or key in _SETS_FLAGS
                reads = reads or key in _READS_FLAGS or key.startswith("it")
                return row, sets, reads
        return None


@functools.cache
def load_timing_table(cpu: str) -> TimingTable:
    """Read and check ``timing/<cpu>.tsv`` (``cortex-m4`` or ``cortex-m55``)."""
    if cpu not in CPUS:
        raise CycleModelError(f"no timing model for CPU {cpu!r}", hint=f"use one of: {', '.join(CPUS)}")
    path = TIMING_DIR / f"{cpu}.tsv"
    params: dict[str, int] = {}
    rows: dict[str, TimingRow] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        where = f"{path.name}:{number}"
        if words[0] == "param":
            if len(words) != 3 or words[1] not in _PARAMS or not words[2].isdigit():
                raise CycleModelError(f"{where}: bad parameter line {line!r}", hint=f"parameters: {_PARAMS}")
            params[words[1]] = int(words[2])
            continue
        if len(words) not in (5, 6) or not words[3].isdigit() or not words[4].isdigit():
            raise CycleModelError(f"{where}: expected 'mnemonic class pipe beats latency [options]'")
        options = frozenset(words[5].split(",")) if len(words) == 6 else frozenset()
        if words[1] not in _CLASS_FLAGS or words[2] not in _PIPES or not options <= _OPTIONS:
            raise CycleModelError(f"{where}: unknown class, pipe or option in {line!r}")
        if words[0] in rows:
            raise CycleModelError(f"{where}: {words[0]} is listed twice")
        if int(words[3]) < 1:
            raise CycleModelError(f"{where}: beats must be at least 1")
        rows[words[0]] = TimingRow(words[0], words[1], words[2], int(words[3]), int(words[4]), options)
    missing = [p for p in _PARAMS if p not in params]
    if missing:
        raise CycleModelError(f"{path.name} does not set {', '.join(missing)}")
    return TimingTable(cpu, params, rows)


@dataclass(frozen=True, slots=True)
class InstructionTiming:
    """One instruction of a program as the plugin times it (a ``insn`` line of the model file)."""

    address: int
    size: int
    flags: int
    pipe: int
    beats: int
    latency: int
    dst: int
    src: int
    addr: int
    text: str


_REG = r"(?:r1[0-5]|r[0-9]|sp|lr|pc|ip|fp|sl|sb|[sdq][0-9]+)"
_REG_RE = re.compile(rf"\b{_REG}\b")
_RANGE_RE = re.compile(rf"\b({_REG})-({_REG})\b")
_ALIASES = {"sp": 13, "lr": 14, "pc": 15, "ip": 12, "fp": 11, "sl": 10, "sb": 9}


def _register_bit(name: str) -> tuple[int, int]:
    """(bit in the plugin's register set, 32-bit words) of a register name."""
    if name in _ALIASES:
        return _ALIASES[name], 1
    kind, number = name[0], int(name[1:])
    if kind == "r":
        return number, 1
    if kind == "q":
        return 16 + number % 8, 4
    if kind == "d":
        return 16 + (number // 2) % 8, 2
    return 16 + (number // 4) % 8, 1  # s


def _expand(operands: str) -> str:
    def repl(match: re.Match[str]) -> str:
        first, last = match.group(1), match.group(2)
        kind = first[0]
        if kind not in "rsdq" or last[0] != kind or first in _ALIASES:
            return match.group(0)
        return ", ".join(f"{kind}{n}" for n in range(int(first[1:]), int(last[1:]) + 1))

    return _RANGE_RE.sub(repl, operands)


def _mask(names: Sequence[str]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << _register_bit(name)[0]
    return mask


def _timing(
    address: int,
    size: int,
    mnemonic: str,
    operands: str,
    match: tuple[TimingRow, bool, bool],
    table: TimingTable,
) -> InstructionTiming:
    row, sets_flags, reads_flags = match
    operands = _expand(operands.split(";")[0].split("@")[0].split("<")[0])
    in_brackets = " ".join(re.findall(r"\[([^\]]*)\]", operands))
    outside = re.sub(r"\[[^\]]*\]", " ", operands)
    in_list = " ".join(re.findall(r"\{([^}]*)\}", outside))
    regs = _REG_RE.findall(outside)
    addr_regs = _REG_RE.findall(in_brackets)
    flags = _CLASS_FLAGS[row.cls]
    beats, latency = row.beats, row.latency
    if row.cls in ("ldm", "fpldm", "stm", "fpstm"):
        listed = _REG_RE.findall(in_list) or regs[: 2 if mnemonic.startswith(("ldrd", "strd")) else len(regs)]
        if not in_list and not mnemonic.startswith(("ldrd", "strd")):
            addr_regs = addr_regs or regs[:1]  # ldm r0!, {...}: the base is an address register
        words = sum(_register_bit(r)[1] for r in listed)
        beats = row.beats + math.ceil(words / max(1, table.params["words_per_cycle"]))
        latency = beats + max(0, row.latency - 1)
        dst = listed if flags & _LOAD else []
        src = [] if flags & _LOAD else listed
    elif "nodst" in row.options or not regs:
        dst, src = [], regs
    else:
        n_dst = 2 if "dst2" in row.options else 1
        dst, src = regs[:n_dst], regs[n_dst:]
        if "acc" in row.options:
            src = regs
    if row.cls == "alu" and _SHIFTED_OPERAND.search(outside):
        latency = max(latency, table.params["shifted_operand_latency"])
    if flags & _LOAD and not flags & _MULTI and dst == []:
        dst = regs[:1]
    if "pc" in dst or "r15" in dst:
        flags |= _BRANCH
    if size == 2 and row.cls in ("alu", "nop", "mul", "load", "store", "branch", "call"):
        flags |= _DUAL  # a 16-bit T1 instruction: the first of a dual-issued pair on the M55
        if "di" in row.options or row.cls == "branch":
            flags |= _DI
    flag_bit = 1 << _FLAGS_BIT
    return InstructionTiming(
        address,
        size,
        flags,
        _PIPES[row.pipe],
        beats,
        latency,
        _mask([r for r in dst if r not in ("pc", "r15")]) | (flag_bit if sets_flags else 0),
        _mask([r for r in src if r not in ("pc", "r15")]) | (flag_bit if reads_flags else 0),
        _mask([r for r in addr_regs if r not in ("pc", "r15")]),
        f"{mnemonic} {operands}".strip(),
    )


_OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{4}\s?){1,2})\s+(\S+)\s*(.*)$")
_OBJDUMP_ARCH = {"cortex-m55": "armv8.1-m.main", "cortex-m4": "armv7e-m"}


def instruction_timings(elf: Path, cpu: str) -> tuple[list[InstructionTiming], dict[int, str]]:
    """Every instruction of ``elf``'s code sections, timed; and the ones the table does not know.

    The second value maps the address of each unknown instruction to its disassembly (data in
    literal pools decodes as instructions too, so unknown is only an error once executed).
    """
    table = load_timing_table(cpu)
    out = subprocess.run(
        [f"{CROSS_PREFIX}objdump", "-d", "-m", _OBJDUMP_ARCH[cpu], str(elf)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    timings: dict[int, InstructionTiming] = {}
    unknown: dict[int, str] = {}
    for line in out.splitlines():
        match = _OBJDUMP_LINE.match(line)
        if match is None:
            continue
        address = int(match.group(1), 16)
        size = len(match.group(2).replace(" ", "")) // 2
        mnemonic, operands = match.group(3), match.group(4)
        if mnemonic.startswith(".") or address in timings:
            continue
        timed = table.match(mnemonic, operands)
        if timed is None:
            unknown[address] = f"{mnemonic} {operands}".strip()
            continue
        timings[address] = _timing(address, size, mnemonic.lower(), operands.lower(), timed, table)
    return sorted(timings.values(), key=lambda t: t.address), unknown


def platform_named(name: str) -> SocPlatform:
    """The registered platform called ``name`` (its clock and wait states feed the model)."""
    from helia_aot.platforms import get_platform
    from helia_aot.registry import build_default_registry_context

    return get_platform(name, build_default_registry_context())


CORE_CLOCKED: frozenset[MemoryType] = frozenset({MemoryType.ITCM, MemoryType.DTCM})
"""Memories clocked with the core (the TCMs): zero-wait at every clock, never rescaled."""


def wait_states_at(waits: int, declared_mhz: float, clock_mhz: float) -> int:
    """The wait states of a memory declared ``waits`` at ``declared_mhz``, at ``clock_mhz``.

    A memory outside the core's clock domain answers in a fixed time, not a fixed number of core
    cycles: ``waits`` at ``declared_mhz`` says an access takes ``waits + 1`` cycles of that clock,
    and the same time at ``clock_mhz`` covers ``(waits + 1) * clock_mhz / declared_mhz`` cycles,
    rounded up (the core can only wait whole cycles), less the access's own cycle.
    """
    if declared_mhz <= 0 or clock_mhz <= 0:
        return waits
    return max(0, math.ceil((waits + 1) * clock_mhz / declared_mhz - 1e-9) - 1)


def platform_at_clock(platform: SocPlatform, clock_mhz: float) -> SocPlatform:
    """``platform`` run at ``clock_mhz``: its wait states rescaled (``wait_states_at``), the TCMs
    left at zero; a platform without a declared clock keeps its wait states."""
    waits = tuple(
        (memory, count if memory in CORE_CLOCKED else wait_states_at(count, platform.clock_mhz, clock_mhz))
        for memory, count in platform.wait_states
    )
    if not platform.clock_mhz:
        waits = platform.wait_states
    return dataclasses.replace(platform, clock_mhz=clock_mhz, wait_states=waits)


CACHED: frozenset[MemoryType] = frozenset({MemoryType.SRAM, MemoryType.MRAM, MemoryType.PSRAM})
"""Memories the core's data cache holds, when its table declares one (``dcache_*``); the TCMs
are never cached."""


def line_fill_cycles(cpu: str, waits: int) -> int:
    """Cycles of a data-cache line fill from a memory of ``waits`` wait states (0: no cache).

    The line arrives in bus beats (``4 * words_per_cycle`` bytes each), each beat one access
    to the memory: its cycle and its wait states.
    """
    params = load_timing_table(cpu).params
    if not params["dcache_sets"]:
        return 0
    beat = 4 * max(1, params["words_per_cycle"])
    return max(1, params["dcache_line"] // beat) * (waits + 1)


def memory_ranges(cpu: str, platform: SocPlatform) -> list[tuple[int, int, MemoryType, int]]:
    """(low, high, memory, wait states) of every board range, with ``platform``'s wait states."""
    return [
        (low, high, memory, platform.wait_states_of(memory)) for low, high, memory in BOARD_MEMORY[CPUS[cpu]]
    ]


def write_model(path: Path, cpu: str, platform: SocPlatform, timings: Sequence[InstructionTiming]) -> None:
    """The model file the plugin reads (format: insn_count.c's header)."""
    table = load_timing_table(cpu)
    lines = [f"# cycle model: {cpu} on {platform.name} at {platform.clock_mhz:g} MHz"]
    lines += [
        f"param {name} {value}" for name, value in table.params.items() if name not in _MODEL_ONLY_PARAMS
    ]
    lines += [
        f"mem {low:#x} {high:#x} {waits} {line_fill_cycles(cpu, waits) if memory in CACHED else 0}"
        for low, high, memory, waits in memory_ranges(cpu, platform)
    ]
    lines += [
        f"insn {t.address:#x} {t.size} {t.flags:#x} {t.pipe} {t.beats} {t.latency} "
        f"{t.dst:#x} {t.src:#x} {t.addr:#x}"
        for t in timings
    ]
    Path(path).write_text("\n".join(lines) + "\n")


@dataclass(frozen=True, slots=True)
class RegionCycles:
    """One harness region: instructions, modeled cycles and where the cycles went."""

    instructions: int
    cycles: int
    stalls: Mapping[str, int]

    @property
    def cpi(self) -> float:
        """Cycles per instruction (0 for an empty region)."""
        return self.cycles / self.instructions if self.instructions else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "instructions": self.instructions,
            "cycles": self.cycles,
            "cpi": round(self.cpi, 4),
            "stalls": dict(self.stalls),
        }


@dataclass(frozen=True, slots=True)
class CycleRun:
    """A program run under the model: its regions and the emulator run behind them."""

    cpu: str
    platform: str
    clock_mhz: float
    regions: list[RegionCycles]
    unknown: list[str]
    run: QemuRun = field(repr=False)

    def milliseconds(self, cycles: int) -> float:
        """``cycles`` at the platform's clock, in milliseconds (0 without a declared clock)."""
        return cycles / (self.clock_mhz * 1e3) if self.clock_mhz else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "cpu": self.cpu,
            "platform": self.platform,
            "clock_mhz": self.clock_mhz,
            "exit_status": self.run.returncode,
            "regions": [{**r.to_json(), "ms": round(self.milliseconds(r.cycles), 6)} for r in self.regions],
            "unknown_instructions": self.unknown,
        }


def region_cycles(run: QemuRun) -> list[RegionCycles]:
    """The regions of a run made with a model file (``run_qemu(model=...)``)."""
    return [
        RegionCycles(count, extra["cycles"], {k: extra[k] for k in STALL_KINDS})
        for count, extra in zip(run.regions, run.region_cycles, strict=True)
    ]


def run_with_model(
    elf: Path,
    cpu: str,
    platform: SocPlatform | None = None,
    *,
    strict: bool = True,
    timeout: float = 600,
) -> CycleRun:
    """Run ``elf`` (a harness program for ``cpu``) under the cycle model.

    ``strict`` makes an executed instruction the timing table does not know a CycleModelError
    naming it; otherwise it costs one cycle and is listed in ``CycleRun.unknown``.
    """
    if cpu not in CPUS:
        raise CycleModelError(f"no timing model for CPU {cpu!r}", hint=f"use one of: {', '.join(CPUS)}")
    platform = platform if platform is not None else platform_named(DEFAULT_PLATFORMS[cpu])
    elf = Path(elf).resolve()
    timings, unknown = instruction_timings(elf, cpu)
    with tempfile.TemporaryDirectory(prefix="helia_aot_cycles_") as scratch:
        model = Path(scratch) / "model.txt"
        write_model(model, cpu, platform, timings)
        run = run_qemu(elf, CPUS[cpu], timeout=timeout, model=model)
    executed_unknown = [
        f"{a:#x}: {unknown.get(a, '(not in the disassembly)')}" for a in run.unknown_addresses
    ]
    if strict and executed_unknown:
        raise CycleModelError(
            f"the {cpu} timing table does not know {len(executed_unknown)} executed instruction(s): "
            + "; ".join(executed_unknown[:10]),
            hint=f"add their mnemonics to {TIMING_DIR.name}/{cpu}.tsv with their documented timing",
        )
    return CycleRun(cpu, platform.name, platform.clock_mhz, region_cycles(run), executed_unknown, run)


def measure_cycles(
    elf: Path,
    cpu: str,
    platform: SocPlatform | str | None = None,
    *,
    strict: bool = True,
    timeout: float = 600,
) -> CycleRun:
    """Instructions, cycles and stalls per harness region of ``elf`` on ``cpu``.

    ``elf`` is a program built with the project's harness (``cross_build_program`` or
    ``cross_build_module``, which put ``harness_region_begin/end`` around what is measured);
    ``platform`` (a SocPlatform or a registered name; default ``DEFAULT_PLATFORMS[cpu]``) gives the
    wait states of each memory and the clock that ``CycleRun.milliseconds`` uses.
    """
    resolved = platform_named(platform) if isinstance(platform, str) else platform
    return run_with_model(elf, cpu, resolved, strict=strict, timeout=timeout)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m helia_aot.testing.cycles``: the JSON of ``measure_cycles`` on stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m helia_aot.testing.cycles",
        description="Run a harness ELF under the Cortex-M cycle model and print, per region, "
        "instructions, cycles and the stall breakdown as JSON.",
    )
    parser.add_argument("--cpu", required=True, choices=sorted(CPUS))
    parser.add_argument("--platform", help="registered platform for clock and wait states")
    parser.add_argument("--clock-mhz", type=float, help="override the platform's clock for ms")
    parser.add_argument("--lenient", action="store_true", help="time unknown instructions as 1 cycle")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("elf", type=Path)
    args = parser.parse_args(argv)
    try:
        platform = platform_named(args.platform or DEFAULT_PLATFORMS[args.cpu])
        if args.clock_mhz is not None:
            platform = dataclasses.replace(platform, clock_mhz=args.clock_mhz)
        if not args.elf.is_file():
            raise CycleModelError(f"no such ELF: {args.elf}", hint="build it with cross_build_program first")
        result = run_with_model(args.elf, args.cpu, platform, strict=not args.lenient, timeout=args.timeout)
    except HeliaAotError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    print(json.dumps(result.to_json(), indent=2))
    return 0 if result.run.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
