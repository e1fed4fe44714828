"""The FULLY_CONNECTED, pooling and ADD/SUB/MUL models pass their golden tests on every path.

The built-in kernels choose Helium (Cortex-M55), the DSP extension (Cortex-M4, or an M55 built
without MVE) or plain C at compile time, so one generated module is really several programs.
Here the AD autoencoder and the corpus models of those operator families are converted once,
linked together into one program (each module has its own prefix) and run on the host and
under QEMU for each instruction-set path; every model's golden self test, which compares each
output bit for bit with LiteRT's reference, must pass on every path.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helia_aot.testing import CORES, CrossCore, cross_build_program, run_qemu

from .linked import Module, check_verdicts, convert_models, write_main

pytestmark = [
    pytest.mark.cross,
]

# One model per kernel variant the fast paths add: int8 FULLY_CONNECTED on one row and on
# several, int16 FULLY_CONNECTED, int8 average and int16 max pooling, int8 ADD broadcast along
# rows and MUL broadcast from a scalar. Each module carries its own copy of the kernels, so every
# model costs a compile per path; per-tensor weights, flat runs, SUB and the other variants are
# covered kernel by kernel in tests/ops_builtin/common/test_fc_pool_binary_paths.py.
MODELS = (
    "mlperf_ad_fc_autoencoder_int8",
    "fc_batch4_int8",
    "fc_64x32_relu_int16x8",
    "avgpool_3x3_s1_same_int8",
    "maxpool_2x2_s2_valid_int16x8",
    "add_broadcast_channel_int8",
    "mul_broadcast_scalar_like_int8",
)


def _m55(name: str, cpu: str) -> CrossCore:
    base = CORES["m55"]
    return CrossCore(name, (cpu, *base.cpu_flags[1:]), base.machine, base.linker_script, base.description)


# The target paths: Helium and the DSP extension on the M55, the DSP extension on the M4. (The
# host runs plain C; tests/ops_builtin/common/test_fc_pool_binary_paths.py also runs the
# kernels' plain C on the M55.)
TARGETS = {
    "m55-mve": CORES["m55"],
    "m55-dsp": _m55("m55-dsp", "-mcpu=cortex-m55+nomve"),
    "m4-dsp": CORES["m4"],
}


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> list[Module]:
    return convert_models(
        MODELS, tmp_path_factory.mktemp("kernel_paths"), core="host"
    )  # integer models: exact


@pytest.fixture(scope="module")
def main_source(modules, tmp_path_factory) -> Path:
    return write_main(modules, tmp_path_factory.mktemp("kernel_paths_main") / "main.c")


def test_every_model_passes_on_the_host(modules, main_source, tmp_path):
    exe = tmp_path / "all_models"
    cmd = [
        "gcc",
        "-std=c99",
        "-O1",
        "-Wall",
        "-Wextra",
        "-Werror",
        *(f"-I{d}" for m in modules for d in m.include_dirs),
        *(str(s) for m in modules for s in m.sources),
        str(main_source),
        "-o",
        str(exe),
        "-lm",
    ]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    check_verdicts(run.stdout, modules)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_model_passes_on_each_instruction_set(target, modules, main_source, tmp_path):
    core = TARGETS[target]
    sources = [main_source, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, core, include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, core, timeout=60, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
