"""The float16 kernel families compile warning-free where float16 runs, and only there.

Float16 modules are built for FP16-capable cores (Cortex-M55, Helium with MVE-F) and on the host
(gcc's _Float16 on x86-64), so every float16 source is compiled here for both with the strict
warnings of the other kernel suites; a warning is a failure. A Cortex-M4 compiler has no
_Float16, which is why the converter refuses float16 operators there: the test pins that too.
"""

from __future__ import annotations

import subprocess

import pytest
from helia_aot_ops_builtin.families import include_flags, kernel_sources

FAMILIES = (
    "activation_f16",
    "batch_matmul_f16",
    "binary_f16",
    "conv_f16",
    "depthwise_f16",
    "fully_connected_f16",
    "pool_f16",
    "quantize_f16",
    "reduce_f16",
    "softmax_f16",
    "unary_f16",
)
WARNINGS = ("-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wconversion", "-Wdouble-promotion")


def _compile(compiler: list[str], source, out) -> subprocess.CompletedProcess[str]:
    cmd = [*compiler, "-std=c99", *WARNINGS, *include_flags(), "-c", str(source), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True)


def _sources(family: str):
    sources = [p for p in kernel_sources(family) if p.suffix == ".c"]
    assert sources and all("_f16" in p.name for p in sources), sources
    return sources


@pytest.mark.parametrize("family", FAMILIES)
def test_float16_family_compiles_cleanly_on_the_host(family, tmp_path):
    for source in _sources(family):
        result = _compile(["gcc", "-O2", "-pedantic"], source, tmp_path / f"{source.stem}.o")
        assert result.returncode == 0, result.stderr


@pytest.mark.cross
@pytest.mark.parametrize("opt", ["-O0", "-O2", "-Os"])
@pytest.mark.parametrize("family", FAMILIES)
def test_float16_family_compiles_cleanly_for_cortex_m55(family, opt, tmp_path):
    for source in _sources(family):
        compiler = ["arm-none-eabi-gcc", opt, "-mthumb", "-mcpu=cortex-m55", "-mfloat-abi=hard"]
        result = _compile(compiler, source, tmp_path / f"{source.stem}.o")
        assert result.returncode == 0, result.stderr


@pytest.mark.cross
def test_float16_kernels_do_not_build_for_cortex_m4(tmp_path):
    source = _sources("binary_f16")[0]
    compiler = [
        "arm-none-eabi-gcc",
        "-O2",
        "-mthumb",
        "-mcpu=cortex-m4",
        "-mfpu=fpv4-sp-d16",
        "-mfloat-abi=hard",
    ]
    result = _compile(compiler, source, tmp_path / "x.o")
    assert result.returncode != 0
    assert "_Float16" in result.stderr
