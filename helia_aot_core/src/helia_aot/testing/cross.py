"""Cross-build generated modules for Cortex-M55 and Cortex-M4, run them under QEMU, count instructions.

The host build (``helia_aot.testing.host``) proves a module computes the right numbers; this one
proves the same C compiles warning-free for the Ambiq cores' instruction sets (Apollo5/510:
Cortex-M55 with Helium; Apollo3/4: Cortex-M4F), still passes its golden test there, and says how
many instructions an inference takes. Programs run bare-metal on QEMU boards (``mps3-an547``,
``mps2-an386``) with the runtime in ``target/``: output and exit status travel over Arm
semihosting, and a TCG plugin counts the instructions between ``harness_region_begin()`` and
``harness_region_end()``. Counts are exact and repeatable, but they are instructions, not cycles:
QEMU models no pipeline, wait states or MVE beats.

Needs ``arm-none-eabi-gcc`` with newlib, ``qemu-system-arm`` with plugin support, and a host
``cc`` for the plugin (``scripts/install_cross_toolchain.sh`` installs them on Debian/Ubuntu).
``HELIA_AOT_CROSS_PREFIX``, ``HELIA_AOT_QEMU`` and ``HELIA_AOT_HOST_CC`` name other binaries.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from helia_aot.testing.host import module_sources, printf_hook
from helia_aot.testing.link_map import ModuleSize, module_size
from helia_aot.testing.object_cache import compile_object, is_kernel_source
from helia_aot.testing.required_tools import require

__all__ = [
    "CORES",
    "CrossBuildError",
    "CrossCore",
    "ModuleSize",
    "QemuRun",
    "cross_build_module",
    "cross_build_program",
    "module_size",
    "plugin_library",
    "require_toolchain",
    "run_qemu",
    "size_of",
    "toolchain_available",
    "toolchain_problem",
]

TARGET_DIR = Path(__file__).resolve().parent / "target"
"""startup.S, semihost.c, harness.h, the linker scripts and the counting plugin's source."""

CROSS_PREFIX = os.environ.get("HELIA_AOT_CROSS_PREFIX", "arm-none-eabi-")
QEMU = os.environ.get("HELIA_AOT_QEMU", "qemu-system-arm")
HOST_CC = os.environ.get("HELIA_AOT_HOST_CC", "cc")

CROSS_CFLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-ffunction-sections", "-fdata-sections")
"""Every C file, the module's included, must compile warning-free with these."""

# newlib-nano keeps printf small; _printf_float is pulled in because the golden test prints
# float differences with %g. -nostartfiles: startup.S is the only startup code.
LINK_FLAGS = (
    "--specs=nano.specs",
    "-nostartfiles",
    "-u",
    "_printf_float",
    "-Wl,--gc-sections",
    "-Wl,--no-warn-rwx-segments",
)

TIMEOUT_STATUS = 124
"""QemuRun.returncode of a run that hit its timeout (as coreutils ``timeout`` reports it)."""


@dataclass(frozen=True, slots=True)
class CrossCore:
    """A target core: the compiler flags of its ISA and the QEMU board that emulates it."""

    name: str
    cpu_flags: tuple[str, ...]
    machine: str
    linker_script: str
    description: str


CORES: dict[str, CrossCore] = {
    "m55": CrossCore(
        "m55",
        ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"),
        "mps3-an547",
        "m55_an547.ld",
        "Cortex-M55 with MVE and FPU (Apollo5/510)",
    ),
    "m4": CrossCore(
        "m4",
        ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb"),
        "mps2-an386",
        "m4_an386.ld",
        "Cortex-M4 with FPv4-SP (Apollo3/4)",
    ),
}


class CrossBuildError(subprocess.CalledProcessError):
    """A cross compile or link failed; the message ends with the tool's diagnostics."""

    def __str__(self) -> str:
        return f"{super().__str__()}\n{(self.stderr or '')[-6000:]}{(self.output or '')[-2000:]}"


@dataclass(slots=True)
class QemuRun:
    """The outcome of one emulated run.

    ``regions`` holds one instruction count per completed harness region, in order; ``total`` is
    every instruction of the run (startup and printf included), or None without counting. A run
    under the cycle model (``model=``) also has, per region, the modeled ``cycles`` and their
    parts (``region_cycles``), the executed addresses the model did not list and the whole run's
    cycles (see ``helia_aot.testing.cycles``).
    """

    returncode: int
    stdout: str
    regions: list[int] = field(default_factory=list)
    total: int | None = None
    stderr: str = ""
    timed_out: bool = False
    region_cycles: list[dict[str, int]] = field(default_factory=list)
    unknown_addresses: list[int] = field(default_factory=list)
    total_cycles: int | None = None

    @property
    def passed(self) -> bool:
        """True when a module's golden test ran to a PASS and the program exited with 0."""
        return self.returncode == 0 and "PASS" in self.stdout

    @property
    def fault(self) -> str | None:
        """The harness's fault report line, when the core took an unexpected exception."""
        for line in self.stdout.splitlines():
            if line.startswith("[harness] FAULT"):
                return line
        return None


# ---- toolchain ---------------------------------------------------------------------------------


def _core(core: str | CrossCore) -> CrossCore:
    if isinstance(core, CrossCore):
        return core
    try:
        return CORES[core]
    except KeyError:
        raise ValueError(f"unknown core {core!r}; expected one of {', '.join(CORES)}") from None


@functools.cache
def toolchain_problem() -> str | None:
    """Why cross builds cannot run here (a sentence naming what is missing), or None."""
    missing = [
        tool
        for tool in (f"{CROSS_PREFIX}gcc", f"{CROSS_PREFIX}size", f"{CROSS_PREFIX}nm", QEMU, HOST_CC)
        if shutil.which(tool) is None
    ]
    if missing:
        return (
            f"missing {', '.join(missing)}; run scripts/install_cross_toolchain.sh "
            "(gcc-arm-none-eabi, libnewlib-arm-none-eabi, qemu-system-arm)"
        )
    libc = subprocess.run(
        [f"{CROSS_PREFIX}gcc", "--specs=nano.specs", "-print-file-name=libc_nano.a"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not os.path.isabs(libc):
        return "newlib-nano for arm-none-eabi is missing; install libnewlib-arm-none-eabi"
    return None


def toolchain_available() -> bool:
    """True when arm-none-eabi-gcc with newlib, qemu-system-arm and a host cc are all present."""
    return toolchain_problem() is None


def require_toolchain() -> None:
    """Return when cross builds can run; else skip the running test, or fail it when ``CI`` is set.

    Tests marked ``cross`` call this before they run (the suite's conftest and
    ``helia_aot.testing.pytest_plugin`` do it), so CI cannot pass by skipping every on-target test.
    """
    require(toolchain_problem())


# ---- building ----------------------------------------------------------------------------------


def _run_tool(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CrossBuildError(proc.returncode, cmd, proc.stdout, proc.stderr)


def _compile(compile_cmd: list[str], source: Path, obj: Path) -> None:
    if is_kernel_source(source):
        compile_object(compile_cmd, source, obj, _run_tool)
    else:
        _run_tool([*compile_cmd, "-c", str(source), "-o", str(obj)])


def _object_name(source: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(source.relative_to(root).with_suffix(".o"))
        except ValueError:
            pass
    return source.stem + ".o"


def _build_firmware(
    build_dir: Path,
    core: CrossCore,
    groups: dict[str, list[tuple[Path, str]]],
    include_dirs: Sequence[Path],
    opt: str,
    extra_cflags: Sequence[str],
    extra_ldflags: Sequence[str],
) -> Path:
    """Compile every group of (source, object name) into ``obj/<group>/`` in parallel and link.

    Objects are grouped so that the link map tells the module's bytes from the runtime's.
    """
    build_dir = Path(build_dir).resolve()
    groups = {
        "harness": [(TARGET_DIR / "startup.S", "startup.o"), (TARGET_DIR / "semihost.c", "semihost.o")],
        **groups,
    }
    cflags = [
        *core.cpu_flags,
        opt,
        *CROSS_CFLAGS,
        "-I",
        str(TARGET_DIR),
        *(f"-I{Path(d).resolve()}" for d in include_dirs),
        *extra_cflags,
    ]
    compile_cmd = [f"{CROSS_PREFIX}gcc", *cflags]
    jobs: list[tuple[Path, Path]] = []
    objects: list[Path] = []
    for group, items in groups.items():
        seen: set[str] = set()
        for source, name in items:
            if name in seen:
                raise ValueError(f"two sources compile to {group}/{name}")
            seen.add(name)
            obj = build_dir / "obj" / group / name
            obj.parent.mkdir(parents=True, exist_ok=True)
            jobs.append((Path(source).resolve(), obj))
            objects.append(obj)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for future in [pool.submit(_compile, compile_cmd, source, obj) for source, obj in jobs]:
            future.result()
    elf = build_dir / "firmware.elf"
    _run_tool(
        [
            f"{CROSS_PREFIX}gcc",
            *core.cpu_flags,
            *LINK_FLAGS,
            "-L",
            str(TARGET_DIR),
            "-T",
            core.linker_script,
            f"-Wl,-Map={elf.with_suffix('.map')}",
            *extra_ldflags,
            *map(str, objects),
            "-lm",
            "-o",
            str(elf),
        ]
    )
    return elf


def cross_build_program(
    sources: Sequence[Path],
    build_dir: Path,
    core: str | CrossCore,
    *,
    include_dirs: Sequence[Path] = (),
    opt: str = "-O2",
    extra_cflags: Sequence[str] = (),
    extra_ldflags: Sequence[str] = (),
) -> Path:
    """Cross-compile plain C sources (one defines ``main``) with the harness runtime.

    Returns ``build_dir/firmware.elf`` (with ``firmware.map`` beside it); a failing compile or
    link raises CrossBuildError carrying the compiler's output. ``harness.h`` is on the include
    path. ``extra_ldflags`` reach the link, e.g. ``-Wl,--defsym=__stack_size=0x8000``.
    """
    items = [(Path(s), f"{i}_{_object_name(Path(s), None)}") for i, s in enumerate(sources)]
    return _build_firmware(
        Path(build_dir), _core(core), {"app": items}, include_dirs, opt, extra_cflags, extra_ldflags
    )


_TEST_MAIN = """/* main.c: the module's golden self test, counted as one harness region. */
#include <stdint.h>

#include "harness.h"
#include "{prefix}_test_case.h"

int main(void)
{{
    int32_t failures;
    if ({prefix}_test_case_init() != 0) {{
        return 1;
    }}
    harness_region_begin();
    failures = {prefix}_test_case_run();
    harness_region_end();
    return failures == 0 ? 0 : 1;
}}
"""


def cross_build_module(
    module_dir: Path,
    build_dir: Path,
    core: str | CrossCore,
    *,
    prefix: str = "aot",
    main_source: str | None = None,
    opt: str = "-O2",
    extra_cflags: Sequence[str] = (),
    extra_ldflags: Sequence[str] = (),
) -> Path:
    """Cross-compile a generated module (every ``.c`` under ``src/``) and a ``main`` into an ELF.

    The default ``main`` calls ``<prefix>_test_case_init()`` and runs ``<prefix>_test_case_run()``
    inside one harness region (``<PREFIX>_PRINTF`` routed to printf), and returns
    0 when every output matched; ``main_source`` replaces it (it may include ``harness.h`` and
    the module's headers). Module objects land in ``obj/module/`` so ``module_size`` can find
    them in the link map.
    """
    module_dir, build_dir = Path(module_dir).resolve(), Path(build_dir).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    main = build_dir / "main.c"
    main.write_text(main_source if main_source is not None else _TEST_MAIN.format(prefix=prefix))
    src_root = module_dir / "src"
    groups = {
        "module": [(s, _object_name(s, src_root)) for s in module_sources(module_dir)],
        "app": [(main, "main.o")],
    }
    includes = (module_dir / "includes-api", src_root / "kernels")
    flags = (printf_hook(prefix), *extra_cflags)
    return _build_firmware(build_dir, _core(core), groups, includes, opt, flags, extra_ldflags)


# ---- running -----------------------------------------------------------------------------------


@functools.cache
def _plugin_api_version() -> int:
    """Plugin API version to declare: QEMU 9 and later refuse version 1, older ones know no other."""
    text = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout
    match = re.search(r"version (\d+)\.", text)
    return 2 if match and int(match.group(1)) >= 9 else 1


@functools.cache
def plugin_library() -> Path:
    """Build the instruction-count plugin with the host compiler, once per source and QEMU version."""
    source = TARGET_DIR / "insn_count.c"
    api = _plugin_api_version()
    digest = hashlib.sha256(source.read_bytes() + f"api={api}".encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "helia_aot"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        cache = Path(tempfile.gettempdir())
    library = cache / f"insn_count-{digest}.so"
    if not library.exists():
        fd, name = tempfile.mkstemp(dir=cache, suffix=".so")
        os.close(fd)
        partial = Path(name)
        try:
            _run_tool(
                [
                    HOST_CC,
                    "-shared",
                    "-fPIC",
                    "-O2",
                    "-fvisibility=hidden",
                    f"-DINSN_COUNT_API={api}",
                    str(source),
                    "-o",
                    str(partial),
                ]
            )
            partial.replace(library)  # atomic, so concurrent builders never load a half-written file
        finally:
            partial.unlink(missing_ok=True)
    return library


def _symbol_addresses(elf: Path, *names: str) -> dict[str, int]:
    out = subprocess.run([f"{CROSS_PREFIX}nm", str(elf)], capture_output=True, text=True, check=True).stdout
    found: dict[str, int] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in names:
            found[parts[2]] = int(parts[0], 16)
    return found


def _parse_counts(path: Path, run: QemuRun) -> None:
    for line in path.read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "region":
            run.regions.append(int(value))
        elif key == "total":
            run.total = int(value)
        elif key == "cycles":
            fields = dict(word.split("=", 1) for word in line.split())
            run.region_cycles.append({name: int(number) for name, number in fields.items()})
        elif key == "unknown_address":
            run.unknown_addresses.append(int(value, 16))
        elif key == "total_cycles":
            run.total_cycles = int(value)


def run_qemu(
    elf: Path, core: str | CrossCore, *, timeout: float = 300, count: bool = True, model: Path | None = None
) -> QemuRun:
    """Run a harness ELF on the core's QEMU board and collect its output, status and counts.

    The return code is the program's exit status (main's return or exit()), 128 + N after an
    unexpected exception N (the stdout then holds a ``[harness] FAULT`` line), or 124 on timeout.
    With ``count`` the plugin records one instruction count per harness region; with ``model``
    (a file ``helia_aot.testing.cycles.write_model`` wrote for this ELF) it also models cycles.
    """
    core = _core(core)
    elf = Path(elf).resolve()
    cmd = [
        QEMU,
        "-M",
        core.machine,
        "-nographic",
        "-monitor",
        "none",
        "-serial",
        "null",
        "-semihosting-config",
        "enable=on,target=native",
        "-kernel",
        str(elf),
    ]
    counts_file: Path | None = None
    if count:
        fd, name = tempfile.mkstemp(dir=elf.parent, prefix="counts-", suffix=".txt")
        os.close(fd)
        counts_file = Path(name)
        counts_file.unlink()  # present afterwards only if the plugin got to write it
        markers = _symbol_addresses(elf, "harness_region_begin", "harness_region_end")
        args = [str(plugin_library()), f"out={counts_file}"]
        if model is not None:
            args.append(f"model={Path(model).resolve()}")
        if len(markers) == 2:
            args += [f"begin={markers['harness_region_begin']:#x}", f"end={markers['harness_region_end']:#x}"]
        cmd += ["-plugin", ",".join(args)]
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    timed_out = False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.send_signal(signal.SIGTERM)  # SIGTERM, unlike SIGKILL, lets the plugin write its counts
        try:
            stdout, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
    returncode = TIMEOUT_STATUS if timed_out else proc.returncode
    run = QemuRun(returncode, stdout, stderr=stderr, timed_out=timed_out)
    if counts_file is not None and counts_file.exists():
        _parse_counts(counts_file, run)
        counts_file.unlink()
    return run


# ---- sizes -------------------------------------------------------------------------------------


def size_of(elf: Path) -> dict[str, int]:
    """The whole image's ``text`` (code + constants), ``data`` and ``bss``, as arm-none-eabi-size says.

    Runtime, C library and stacks included; ``module_size`` (link_map.py) isolates the module.
    """
    out = subprocess.run([f"{CROSS_PREFIX}size", str(elf)], capture_output=True, text=True, check=True).stdout
    values = out.splitlines()[1].split()
    return {"text": int(values[0]), "data": int(values[1]), "bss": int(values[2])}
