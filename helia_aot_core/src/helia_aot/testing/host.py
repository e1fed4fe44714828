"""Build a generated module with the host C compiler and run its golden self test."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from helia_aot.testing.object_cache import compile_object, is_kernel_source
from helia_aot.testing.verdict import SelfTestReport, parse_self_test

HOST_CFLAGS = ("-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")

_MAIN = """#include <stdint.h>
#include "{prefix}_test_case.h"
int main(void)
{{
    if ({prefix}_test_case_init() != 0) {{
        return 1;
    }}
    return {prefix}_test_case_run() == 0 ? 0 : 1;
}}
"""


def printf_hook(prefix: str) -> str:
    """The ``-D`` flag that routes the module's ``<PREFIX>_PRINTF`` (silent by default) to printf,
    so a self-test's PASS/FAIL line reaches stdout."""
    return f"-D{prefix.upper()}_PRINTF(...)=printf(__VA_ARGS__)"


@dataclass(slots=True)
class HostRun:
    """The outcome of running a module's self test on the host."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and "PASS" in self.stdout

    @property
    def report(self) -> SelfTestReport:
        """The self-test's verdict lines: per output and for the run (bit-exact, within tolerance,
        mismatch), so a caller can tell a bit-exact PASS from one within the tolerance."""
        return parse_self_test(self.stdout)


def module_sources(module_dir: Path) -> list[Path]:
    """Every ``.c`` file under the module's ``src/`` (subfolders included), sorted."""
    return sorted(Path(module_dir, "src").rglob("*.c"))


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd, proc.stdout, proc.stderr)


def build_module(
    module_dir: Path,
    build_dir: Path,
    *,
    prefix: str = "aot",
    main_source: str | None = None,
    sanitize: bool = True,
    cc: str = "gcc",
    extra_cflags: Sequence[str] = (),
    verbose: bool = True,
    one_unit: bool = False,
) -> Path:
    """Compile the module plus a ``main`` into an executable; CalledProcessError carries gcc's output.

    ``<PREFIX>_PRINTF`` is routed to printf. ``verbose`` is kept for callers of the earlier
    self-test (which took a verbosity); the self-test now prints only mismatches and its summary.
    ``one_unit`` compiles the generated sources (not the kernels, which the object cache shares)
    as one translation unit that includes each: a model of a hundred layers has a hundred small
    files, and starting the compiler for each costs more than compiling them.
    """
    del verbose
    module_dir, build_dir = Path(module_dir), Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    main = build_dir / "main.c"
    main.write_text(main_source or _MAIN.format(prefix=prefix))
    exe = build_dir / "module_test"
    flags = [
        *HOST_CFLAGS,
        *(SANITIZE_FLAGS if sanitize else ()),
        printf_hook(prefix),
        *extra_cflags,
        "-I",
        str(module_dir / "includes-api"),
        "-I",
        str(module_dir / "src" / "kernels"),
    ]
    sources = [*module_sources(module_dir), main]
    if one_unit:
        generated = [source for source in sources if not is_kernel_source(source)]
        unit = build_dir / "generated_unit.c"
        unit.write_text("".join(f'#include "{source.resolve()}"\n' for source in generated))
        sources = [*(source for source in sources if is_kernel_source(source)), unit]
    objects = [build_dir / "obj" / f"{i}_{source.stem}.o" for i, source in enumerate(sources)]
    objects[0].parent.mkdir(parents=True, exist_ok=True)
    for source, obj in zip(sources, objects, strict=True):
        if is_kernel_source(source):
            compile_object([cc, *flags], source, obj, _run)
        else:
            _run([cc, *flags, "-c", str(source), "-o", str(obj)])
    # The link repeats the compile flags: some reach the link too (-fsanitize=..., -pthread).
    _run([cc, *flags, *map(str, objects), "-o", str(exe), "-lm"])
    return exe


def run_module_test_case(
    module_dir: Path,
    build_dir: Path,
    *,
    prefix: str = "aot",
    sanitize: bool = True,
    timeout: float = 120.0,
    one_unit: bool = False,
) -> HostRun:
    """Build the module with its test case and run it (``one_unit``: see ``build_module``)."""
    exe = build_module(module_dir, build_dir, prefix=prefix, sanitize=sanitize, one_unit=one_unit)
    env = dict(
        os.environ,
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
    )
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout, env=env)
    return HostRun(proc.returncode, proc.stdout, proc.stderr)


def corpus_golden_to_npz(source: Path, target: Path, *, outputs: str = "ref_out") -> Path:
    """Rewrite a corpus archive (``in_i`` / ``<outputs>_j``) as test.golden_data (``input_i`` / ``output_j``).

    ``outputs`` picks which recorded outputs are expected: ``ref_out`` (the LiteRT reference
    interpreter, the default) or another recording such as ``litert_opt_out``.
    """
    head = f"{outputs}_"
    with np.load(source) as data:
        arrays = {}
        for key in data.files:
            if key.startswith("in_"):
                arrays[f"input_{key[3:]}"] = data[key]
            elif key.startswith(head):
                arrays[f"output_{key[len(head) :]}"] = data[key]
    np.savez(target, **arrays)
    return target
