"""The binary, quantize and reduce kernels compile warning-free for the Apollo cores.

Generated modules are built with -Wall -Wextra -Werror for Cortex-M55 (Apollo5) and Cortex-M4F
(Apollo3/4), at the optimisation levels a firmware build uses, so each source is compiled here
with those flags; a warning is a failure.
"""

from __future__ import annotations

import subprocess

import pytest
from helia_aot_ops_builtin.families import include_flags, kernel_sources

CPUS = {
    "cortex-m55": ["-mcpu=cortex-m55", "-mfloat-abi=hard"],
    "cortex-m4f": ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"],
}


@pytest.mark.cross
@pytest.mark.parametrize("opt", ["-O0", "-O2", "-Os"])
@pytest.mark.parametrize("cpu", sorted(CPUS))
@pytest.mark.parametrize("family", ["binary", "quantize", "reduce"])
def test_kernel_compiles_cleanly_for_cortex_m(family, cpu, opt, tmp_path):
    sources = [p for p in kernel_sources(family) if p.suffix == ".c"]
    assert sources, family
    for source in sources:
        result = subprocess.run(
            [
                "arm-none-eabi-gcc",
                "-std=c99",
                opt,
                "-mthumb",
                *CPUS[cpu],
                "-Wall",
                "-Wextra",
                "-Werror",
                "-Wshadow",
                "-Wconversion",
                "-Wdouble-promotion",
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
