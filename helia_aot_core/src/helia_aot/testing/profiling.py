"""Where an inference's instructions go, operator by operator, without a board (``helia-aot profile``).

A generated module calls ``ctx->callback`` before and after each operator's run (table schedule).
The program this module writes installs a callback that closes the current instruction-count
region and opens the next one at every such event (``harness.h``), and prints the event between
the two, outside any region. One profiled ``<prefix>_model_run`` is thus cut into consecutive
regions, each attributed from the events around it:

* an operator's **instructions** are those executed while it is the innermost running operator:
  from the end of its ``run_started`` callback to the start of its ``run_finished`` one (the
  return into the schedule loop, its run function with its kernels, and the few instructions of
  the callback call after it), less the regions of operators it runs itself (IF and WHILE bodies
  count for the operators in them);
* **runtime** is the rest of that call: ``<prefix>_model_run``'s checks and schedule loop and
  the callback's own dispatch;
* **total** is every instruction of the profiled ``<prefix>_model_run`` call outside the two
  marker calls, so ``sum(operators) + runtime == total`` holds exactly, by construction.

Cycles come from the same run under the cycle model (``helia_aot.testing.cycles``: the core's
timing table, the platform's wait states per memory) and are attributed the same way, so
``sum(operator cycles) + runtime cycles == total cycles`` holds exactly too; milliseconds are the
cycles at the platform's clock (``clock_mhz``). ``--clock-mhz`` runs the platform at another clock:
the wait states of the memories outside the core's clock domain scale with it, since they answer
in a fixed time (``cycles.platform_at_clock``), so the cycles change too, not only the ms.

``inference`` is counted apart, on a run without a callback: what an application pays, the figure
``bench/cross_bench.py`` reports. Sizes come from the link map (``module_size``): the module's own
code, constants (``.rodata``: weights, tables) and RAM (``.data`` + ``.bss``: arenas included),
without the runtime, ``main``, the golden test or the C library.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from helia_aot.errors import ProfileError
from helia_aot.platforms import SocPlatform
from helia_aot.testing.cross import (
    CORES,
    CrossBuildError,
    cross_build_module,
    module_size,
    toolchain_problem,
)
from helia_aot.testing.cycles import DEFAULT_PLATFORMS, platform_at_clock, platform_named, run_with_model

PROFILE_SCHEMA_VERSION = 3
"""``schema_version`` of ``helia-aot profile --json`` (2: cycles, cpi and ms beside instructions;
3: ``wait_states``, the memories' wait states at ``clock_mhz``)."""

RUNTIME = "(runtime)"
"""The row of instructions no operator ran (see the module docstring)."""

_EVENT = "[profile] event "
_RUN_STARTED, _RUN_FINISHED = 2, 3  # <prefix>_op_state_run_started / _run_finished


@dataclass(frozen=True, slots=True)
class OperatorProfile:
    """One operator of the profiled run, in execution order."""

    index: int
    id: str
    op_type: str
    kernel: str | None
    instructions: int
    cycles: int = 0


@dataclass(frozen=True, slots=True)
class ModuleProfile:
    """Instructions per operator and the module's linked bytes on one core."""

    model: str
    module_prefix: str
    target: str
    cpu: str
    opt: str
    operators: list[OperatorProfile]
    runtime_instructions: int
    total_instructions: int
    inference_instructions: int
    code_bytes: int
    constant_bytes: int
    ram_bytes: int
    runtime_cycles: int = 0
    total_cycles: int = 0
    inference_cycles: int = 0
    platform: str = ""
    clock_mhz: float = 0.0
    wait_states: dict[str, int] = field(default_factory=dict)
    unknown_instructions: list[str] = field(default_factory=list)
    schema_version: int = field(default=PROFILE_SCHEMA_VERSION)

    @property
    def cpi(self) -> float:
        """Cycles per instruction of the callback-free inference."""
        return self.inference_cycles / self.inference_instructions if self.inference_instructions else 0.0

    def milliseconds(self, cycles: int) -> float:
        """``cycles`` at ``clock_mhz``, in milliseconds (0 without a clock)."""
        return cycles / (self.clock_mhz * 1e3) if self.clock_mhz else 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document: this record, with ``operators`` as a list of objects.

        Each operator carries ``cpi`` and ``ms`` beside its counts; the document carries
        ``inference_cpi`` and ``inference_ms`` (the callback-free inference at ``clock_mhz``).
        """
        data = asdict(self)
        data["operators"] = [
            {
                **asdict(op),
                "cpi": round(op.cycles / op.instructions, 4) if op.instructions else 0.0,
                "ms": round(self.milliseconds(op.cycles), 6),
            }
            for op in self.operators
        ]
        data["inference_cpi"] = round(self.cpi, 4)
        data["inference_ms"] = round(self.milliseconds(self.inference_cycles), 6)
        return {"schema_version": data.pop("schema_version"), **data}


def profile_main(prefix: str) -> str:
    """The C program: one inference uncounted, one counted whole, one cut at every operator."""
    return f"""/* main.c (helia-aot profile): instructions per operator of one {prefix}_model_run. */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "{prefix}_model.h"

static {prefix}_model_context_t ctx;

/* Ends the region that ran up to this event and starts the next; the printf is in neither. */
static void profile_event(int32_t op, {prefix}_operator_state_t state, int32_t status, void *user_data)
{{
    (void)status;
    (void)user_data;
    if (state != {prefix}_op_state_run_started && state != {prefix}_op_state_run_finished) {{
        return;
    }}
    harness_region_end();
    printf("{_EVENT}%ld %d\\n", (long)op, (int)state);
    harness_region_begin();
}}

int main(void)
{{
    if ({prefix}_model_init(&ctx) != 0) {{
        printf("[profile] {prefix}_model_init failed\\n");
        return 3;
    }}
    /* Inputs stay as {prefix}_model_init leaves them (zero bytes). */
    if ({prefix}_model_run(&ctx) != 0) {{
        return 4;
    }}
    harness_region_begin();
    int32_t status = {prefix}_model_run(&ctx);
    harness_region_end();
    if (status != 0) {{
        return 5;
    }}
    ctx.callback = profile_event;
    harness_region_begin();
    status = {prefix}_model_run(&ctx);
    harness_region_end();
    printf("[profile] done\\n");
    return status == 0 ? 0 : 6;
}}
"""


def attribute(regions: list[int], events: list[tuple[int, int]]) -> tuple[dict[int, int], int]:
    """Self instructions per operator index and the runtime's, from one cut run.

    ``regions[k]`` ran between event ``k - 1`` and event ``k`` (the first before any event, the
    last after every one); it belongs to the innermost operator running then, or to the runtime.
    """
    if len(regions) != len(events) + 1:
        raise ProfileError(
            f"the profiled run reported {len(regions)} count regions for {len(events)} operator events",
            hint="the module's operator callback did not run as expected; is module.schedule 'table'?",
        )
    per_op: dict[int, int] = {}
    running: list[int] = []
    runtime = regions[0]
    for (op, state), count in zip(events, regions[1:], strict=True):
        if state == _RUN_STARTED:
            running.append(op)
        elif running and running[-1] == op:
            running.pop()
        else:
            raise ProfileError(
                f"operator {op} finished without having started (events out of order)",
                hint="report this with the model: the callback events do not nest",
            )
        if running:
            per_op[running[-1]] = per_op.get(running[-1], 0) + count
        else:
            runtime += count
    return per_op, runtime


def _events(stdout: str) -> list[tuple[int, int]]:
    events = []
    for line in stdout.splitlines():
        if line.startswith(_EVENT):
            op, state = line[len(_EVENT) :].split()
            events.append((int(op), int(state)))
    return events


def require_profiling_tools() -> None:
    """Raise ProfileError naming the missing tools and how to install them, if any is missing."""
    problem = toolchain_problem()
    if problem:
        raise ProfileError(
            f"cannot profile: {problem}",
            hint="install the Arm cross compiler and QEMU (Debian/Ubuntu: sudo apt-get install "
            "gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm; scripts/install_cross_toolchain.sh "
            "in a helia-aot checkout), or set "
            "HELIA_AOT_CROSS_PREFIX / HELIA_AOT_QEMU / HELIA_AOT_HOST_CC to the tools you have",
        )


def profile_module(
    module_dir: Path,
    plan: Any,
    target: str,
    *,
    work_dir: Path | None = None,
    opt: str = "-O2",
    timeout: float = 600,
    platform: SocPlatform | None = None,
    clock_mhz: float | None = None,
    strict: bool = False,
) -> ModuleProfile:
    """Cross-build the module at ``module_dir`` for ``target`` (``m55``/``m4``), run it, attribute.

    ``plan`` is the conversion's OptimizationPlan (names, types and kernels of the operators).
    Cycles use ``platform``'s wait states and clock: by default the plan's platform when its core
    is the target's, else ``cycles.DEFAULT_PLATFORMS``; ``clock_mhz`` runs that platform at another
    clock, its wait states rescaled with it (``cycles.platform_at_clock``). An
    executed instruction the core's timing table lacks costs one cycle and is listed in
    ``unknown_instructions``; with ``strict`` it is an error instead (the tests run strict).
    Raises ProfileError when the tools are missing, the build fails or the run does not finish.
    """
    if target not in CORES:
        raise ProfileError(f"unknown target {target!r}", hint=f"use one of: {', '.join(CORES)}")
    require_profiling_tools()
    prefix = plan.module_prefix
    with tempfile.TemporaryDirectory(prefix="helia_aot_profile_") as scratch:
        build = Path(work_dir) if work_dir is not None else Path(scratch)
        try:
            elf = cross_build_module(
                module_dir, build, target, prefix=prefix, main_source=profile_main(prefix), opt=opt
            )
        except CrossBuildError as error:
            first = next((line for line in (error.stderr or "").splitlines() if "error" in line), "")
            raise ProfileError(
                f"the module did not cross-build for {target}: {first or error}",
                hint="rerun with --verbose 3 for the compiler's output and report it",
                details=error.stderr,
            ) from error
        cpu = CORES[target].cpu_flags[0].removeprefix("-mcpu=")
        timing_platform = _timing_platform(plan, cpu, platform, clock_mhz)
        cycle_run = run_with_model(elf, cpu, timing_platform, strict=strict, timeout=timeout)
        run = cycle_run.run
        size = module_size(elf)
    if run.returncode != 0 or "[profile] done" not in run.stdout or len(run.regions) < 2:
        reason = run.fault or ("timed out" if run.timed_out else f"exit status {run.returncode}")
        raise ProfileError(
            f"the profiled program did not finish on {target} ({reason})",
            hint="does the model run with zero inputs? Check the module with --test.enabled first",
            details=run.stdout[-2000:],
        )
    events = _events(run.stdout)
    if not events and plan.operators:
        raise ProfileError(
            "the module ran without calling the operator callback",
            hint="profile a module with module.schedule 'table' (the default)",
        )
    per_op, runtime = attribute(run.regions[1:], events)
    region_cycles = [region.cycles for region in cycle_run.regions]
    cycles_per_op, runtime_cycles = attribute(region_cycles[1:], events)
    by_index = {op.index: op for op in plan.operators}
    operators = []
    for index in sorted(per_op):
        planned = by_index.get(index)
        kernel = planned.kernel.entry if planned is not None and planned.kernel is not None else None
        operators.append(
            OperatorProfile(
                index,
                planned.id if planned is not None else f"op{index}",
                planned.op_type if planned is not None else "?",
                kernel,
                per_op[index],
                cycles_per_op.get(index, 0),
            )
        )
    core = CORES[target]
    return ModuleProfile(
        model=plan.model.file,
        module_prefix=prefix,
        target=target,
        cpu=core.cpu_flags[0].removeprefix("-mcpu="),
        opt=opt,
        operators=operators,
        runtime_instructions=runtime,
        total_instructions=sum(op.instructions for op in operators) + runtime,
        inference_instructions=run.regions[0],
        code_bytes=size.text,
        constant_bytes=size.rodata,
        ram_bytes=size.ram,
        runtime_cycles=runtime_cycles,
        total_cycles=sum(op.cycles for op in operators) + runtime_cycles,
        inference_cycles=region_cycles[0],
        platform=timing_platform.name,
        clock_mhz=timing_platform.clock_mhz,
        wait_states={memory.value: count for memory, count in timing_platform.wait_states},
        unknown_instructions=cycle_run.unknown,
    )


def _timing_platform(
    plan: Any, cpu: str, platform: SocPlatform | None, clock_mhz: float | None
) -> SocPlatform:
    """The platform whose clock and wait states time the run (see ``profile_module``)."""
    if platform is None:
        planned = getattr(plan, "platform", None)
        if isinstance(planned, SocPlatform) and planned.cpu == cpu and planned.clock_mhz:
            platform = planned
        else:
            platform = platform_named(DEFAULT_PLATFORMS[cpu])
    if clock_mhz is not None:
        if clock_mhz <= 0:
            raise ProfileError(f"--clock-mhz must be positive, got {clock_mhz:g}", hint="e.g. --clock-mhz 96")
        platform = platform_at_clock(platform, clock_mhz)
    return platform


def format_profile(profile: ModuleProfile, *, id_width: int = 40) -> str:
    """The text table ``helia-aot profile`` prints: one row per operator, the runtime, the total.

    Each row: instructions, cycles, cycles per instruction, milliseconds at the clock and the
    share of the total cycles.
    """
    total = profile.total_cycles or 1
    header = (
        f"{'#':>4}  {'operator':17} {'id':{id_width}} {'instructions':>13} {'cycles':>13} {'cpi':>5} "
        f"{'ms':>9} {'share':>6}"
    )
    lines = [
        f"{profile.model} on {profile.target} ({profile.cpu}, {profile.opt}), one inference; "
        f"cycles modeled for {profile.platform} at {profile.clock_mhz:g} MHz",
        "",
        header,
        "-" * len(header),
    ]

    def row(index: str, op_type: str, ident: str, count: int, cycles: int) -> str:
        short = ident if len(ident) <= id_width else ident[: id_width - 3] + "..."
        cpi = cycles / count if count else 0.0
        return (
            f"{index:>4}  {op_type:17} {short:{id_width}} {count:13,} {cycles:13,} {cpi:5.2f} "
            f"{profile.milliseconds(cycles):9.3f} {100 * cycles / total:5.1f}%"
        )

    for op in profile.operators:
        lines.append(row(str(op.index), op.op_type, op.id, op.instructions, op.cycles))
    lines.append(
        row(
            "",
            RUNTIME,
            "model_run loop and operator callback",
            profile.runtime_instructions,
            profile.runtime_cycles,
        )
    )
    lines.append("-" * len(header))
    lines.append(row("", "total", "", profile.total_instructions, profile.total_cycles))
    lines += [
        "",
        f"inference without the profiling callback: {profile.inference_cycles:,} cycles, "
        f"{profile.inference_instructions:,} instructions, {profile.cpi:.2f} cycles per instruction, "
        f"{profile.milliseconds(profile.inference_cycles):.3f} ms at {profile.clock_mhz:g} MHz",
        f"module bytes: code {profile.code_bytes:,}, constants {profile.constant_bytes:,}, "
        f"RAM {profile.ram_bytes:,} (link map; runtime and C library excluded)",
        *(
            [
                f"{len(profile.unknown_instructions)} executed instruction(s) missing from the timing table "
                f"were timed as 1 cycle: {'; '.join(profile.unknown_instructions[:5])}"
            ]
            if profile.unknown_instructions
            else []
        ),
        "Instructions are counted exactly by QEMU; cycles are modeled (`helia-aot docs cycles`: "
        "timing tables per core, wait states per memory), not measured.",
    ]
    return "\n".join(lines)


__all__ = [
    "PROFILE_SCHEMA_VERSION",
    "RUNTIME",
    "ModuleProfile",
    "OperatorProfile",
    "ProfileError",
    "attribute",
    "format_profile",
    "profile_main",
    "profile_module",
    "require_profiling_tools",
]
