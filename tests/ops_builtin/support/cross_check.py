"""The build-once, run-every-case check the kernels' cross tests share.

Each of those tests writes one C program holding many cases (inputs, constants and the numpy
reference's bytes), cross-builds it with the kernel families it calls for one ISA path, runs it
under QEMU and reads back the path it was built for and how many cases differed. Keeping that in
one place means every test asserts the same three things: the compiler picked the path the test
meant (so a lost feature macro fails rather than tests the wrong code), the program exited clean,
and no case differed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from helia_aot.testing import QemuRun, cross_build_program, run_qemu
from helia_aot_ops_builtin.families import KERNEL_PATH, kernel_sources
from hypothesis import HealthCheck, settings

# (core, extra compiler flags, the path hk_isa.h must report)
PATHS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "m55-mve": ("m55", (), "mve"),
    "m55-mve-O0": ("m55", ("-O0",), "mve"),  # unoptimized: the intrinsics stand-in for asm
    "m55-dsp": ("m55", ("-mcpu=cortex-m55+nomve",), "dsp"),
    "m55-portable": ("m55", ("-mcpu=cortex-m55+nomve+nodsp",), "portable"),
    "m4-dsp": ("m4", (), "dsp"),
    # unoptimized, with a frame pointer: the C stand-in for the convolution's assembly loop
    "m4-dsp-O0": ("m4", ("-O0", "-fno-omit-frame-pointer"), "dsp"),
}

# Hypothesis settings of the tests whose every example is one cross build of a dozen cases: few
# examples, no deadline (a build takes seconds), the same draws on every run.
FEW_BUILDS = settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

C = TypeVar("C")


def paths(*names: str) -> dict[str, tuple[str, tuple[str, ...], str]]:
    """The named rows of PATHS, for a test that runs on some of them."""
    return {name: PATHS[name] for name in names}


def drawn_cases(drawn: Iterable[dict[str, Any]], make: Callable[..., C]) -> list[C]:
    """One case per drawn keyword set, each from its own generator seeded by the draw's seed."""
    return [
        make(np.random.default_rng(kw["seed"]), **{k: v for k, v in kw.items() if k != "seed"})
        for kw in drawn
    ]


def kernel_c_files(*families: str) -> list[Path]:
    """The C sources (not headers) of the given kernel families, each once."""
    return [p for p in kernel_sources(*families) if p.suffix == ".c"]


def run_program(
    source: Path,
    build_dir: Path,
    path: tuple[str, tuple[str, ...], str],
    families: Sequence[str],
    *,
    timeout: float = 60,
) -> QemuRun:
    """Cross-build source with the families' kernels for one path and run it; asserts the
    program reports that path and exits clean."""
    return run_program_sources(source, kernel_c_files(*families), build_dir, path, timeout=timeout)


def run_program_sources(
    source: Path,
    sources: Sequence[Path],
    build_dir: Path,
    path: tuple[str, tuple[str, ...], str],
    *,
    timeout: float = 60,
) -> QemuRun:
    """run_program with the kernel sources named one by one (a block test includes the file
    that holds its block and links the others)."""
    core, flags, expected_path = path
    elf = cross_build_program(
        [source, *sources],
        build_dir,
        core,
        include_dirs=list(KERNEL_PATH),
        extra_cflags=flags,
    )
    run = run_qemu(elf, core, timeout=timeout, count=False)
    assert f"path {expected_path}\n" in run.stdout, run.stdout
    assert run.returncode == 0, run.stdout
    return run


def check_program(
    text: str,
    work: Path,
    path: tuple[str, tuple[str, ...], str],
    families: Sequence[str],
    total: int,
    *,
    unit: str = "cases",
    timeout: float = 60,
) -> None:
    """Write text as work/main.c, build and run it on path, and assert none of its total
    cases (or calls: unit) differ from the reference."""
    source = work / "main.c"
    source.write_text(text)
    run = run_program(source, work, path, families, timeout=timeout)
    assert f"0 of {total} {unit} differ" in run.stdout, run.stdout
