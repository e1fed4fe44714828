"""The data-movement kernels (copy, gather, argminmax, resize, index, cumsum) compile warning-free for the
Apollo cores, with the flags generated modules use plus -Wdouble-promotion (float kernels must
stay in single precision on the Cortex-M4F's FPU)."""

from __future__ import annotations

import subprocess

import pytest
from helia_aot_ops_builtin.families import include_flags, kernel_sources

FAMILIES = ("copy", "gather", "argminmax", "resize", "index", "cumsum")
CPUS = {
    "cortex-m55": ["-mcpu=cortex-m55", "-mfloat-abi=hard"],
    "cortex-m4f": ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"],
}


@pytest.mark.cross
@pytest.mark.parametrize("cpu", sorted(CPUS))
@pytest.mark.parametrize("family", FAMILIES)
def test_kernel_compiles_cleanly_for_cortex_m(family, cpu, tmp_path):
    sources = [p for p in kernel_sources(family) if p.suffix == ".c"]
    assert sources, family
    for source in sources:
        result = subprocess.run(
            [
                "arm-none-eabi-gcc",
                "-std=c99",
                "-O2",
                "-mthumb",
                *CPUS[cpu],
                "-Wall",
                "-Wextra",
                "-Werror",
                "-Wdouble-promotion",
                "-Wshadow",
                *include_flags(),
                "-c",
                str(source),
                "-o",
                str(tmp_path / f"{source.stem}.o"),
            ],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
