"""Several converted models linked into one host program (ASan/UBSan), each running its self test.

Building one executable per model costs a compile of the whole kernel library each time; a group
of small generated models shares one build here. Each module has its own prefix (``h0``, ``h1``,
...), so its kernels and headers are renamed apart, and the program prints one section per model:
the module's own self-test lines, then ``<name>: PASS`` or ``<name>: FAIL``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.registry import RegistryContext
from helia_aot.testing.host import HOST_CFLAGS, SANITIZE_FLAGS, module_sources, printf_hook
from helia_aot.testing.object_cache import compile_object, is_kernel_source

Case = tuple[Path, Path, int | float | None]
"""(model, golden npz, bound): an int is test.tolerance_ulp, a float test.tolerance (a fraction of
the largest expected magnitude, for kernels whose transcendental functions are not the
reference's), None for an integer model (exact)."""


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd, proc.stdout, proc.stderr)


def run_linked(
    cases: Mapping[str, Case], root: Path, registry_context: RegistryContext | None = None
) -> dict[str, str]:
    """Convert (with ``registry_context``, default the installed plugins'), link and run every
    case; returns each model's section of the output, and fails (AssertionError with the whole
    output) unless every model passes."""
    modules = []
    for i, (name, (model, golden, bound)) in enumerate(cases.items()):
        relative = isinstance(bound, float)
        test = {
            "enabled": True,
            "golden_data": str(golden),
            "tolerance": bound if relative else 0.0,
            "tolerance_ulp": None if relative else bound,
        }
        config = {
            "model": {"path": str(model)},
            "module": {"path": str(root / name), "name": "module", "prefix": f"h{i}"},
            "test": test,
        }
        result = AotConverter(ConvertArgs.model_validate(config), registry_context).convert()
        modules.append((name, result.prefix, Path(result.output)))
    includes = "".join(f'#include "{prefix}_test_case.h"\n' for _, prefix, _ in modules)
    runs = "".join(
        f"    ok = {p}_test_case_init() == 0 && {p}_test_case_run() == 0;\n"
        f'    printf("{name}: %s\\n", ok ? "PASS" : "FAIL");\n'
        f"    failures += !ok;\n"
        for name, p, _ in modules
    )
    main = root / "main.c"
    main.write_text(
        f"#include <stdio.h>\n{includes}int main(void)\n{{\n    int failures = 0;\n    int ok;\n"
        f"{runs}    return failures;\n}}\n"
    )
    flags = [*HOST_CFLAGS, *SANITIZE_FLAGS]
    for _, prefix, path in modules:
        flags += [printf_hook(prefix), "-I", str(path / "includes-api"), "-I", str(path / "src" / "kernels")]
    sources = [main, *(s for _, _, path in modules for s in module_sources(path))]
    objects = [root / "obj" / f"{i}_{source.stem}.o" for i, source in enumerate(sources)]
    objects[0].parent.mkdir(parents=True, exist_ok=True)
    for source, obj in zip(sources, objects, strict=True):
        if is_kernel_source(source):
            compile_object(["gcc", *flags], source, obj, _run)
        else:
            _run(["gcc", *flags, "-c", str(source), "-o", str(obj)])
    exe = root / "linked_test"
    _run(["gcc", *flags, *map(str, objects), "-o", str(exe), "-lm"])
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
    output = proc.stdout
    assert proc.returncode == 0 and all(f"{name}: PASS" in output for name, _, _ in modules), (
        f"{output}\n{proc.stderr[-4000:]}"
    )
    sections = {}
    rest = output
    for name, _, _ in modules:
        head, _, rest = rest.partition(f"{name}: PASS\n")
        sections[name] = head
    return sections
