"""The knobs change the module and never its results: every value bit-exact on the MLPerf models.

``kernel: specialized`` is the default module the corpus test already checks and ``goal: size``
runs each int8 MLPerf model's golden test on the host in test_memory_aware_scratch.py; here
``kernel: generic`` does (tolerance 0), and KWS at ``goal: size`` runs on the Cortex-M55 under
QEMU, where it must link less code than ``goal: latency`` (``.text`` of the module's objects from
the link map, after --gc-sections).
"""

from __future__ import annotations

import subprocess

import pytest
from helia_aot.testing import cross_build_module, module_size, run_module_test_case, run_qemu
from helia_aot.testing.cross import CROSS_PREFIX

from .corpus import manifest
from .test_corpus import convert

MLPERF_INT8 = [
    "mlperf_kws_dscnn_int8",
    "mlperf_ic_resnet8_int8",
    "mlperf_vww_mobilenetv1_025_int8",
    "mlperf_ad_fc_autoencoder_int8",
]
ENTRIES = {e["name"]: e for e in manifest()}


@pytest.mark.parametrize("name", MLPERF_INT8)
def test_kernel_generic_is_bit_exact_on_host(name, tmp_path):
    result = convert(ENTRIES[name], tmp_path, optimization={"kernel": "generic"})
    kernels = {op.knobs["kernel"].value for op in result.plan.operators if "kernel" in op.knobs}
    assert kernels == {"generic"}
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{name} (kernel generic):\n{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.cross
def test_size_links_less_code_than_latency_on_the_m55_and_both_are_bit_exact(tmp_path):
    text = {}
    for goal in ("size", "latency"):
        work = tmp_path / goal
        work.mkdir()
        result = convert(ENTRIES["mlperf_kws_dscnn_int8"], work, optimization={"goal": goal})
        elf = cross_build_module(result.output, work / "m55", "m55", prefix=result.prefix)
        run = run_qemu(elf, "m55", timeout=600)
        assert run.returncode == 0 and "PASS" in run.stdout, f"{goal}: {run.stdout[-2000:]}"
        text[goal] = module_size(elf).text
        constants = sum(a.used for a in result.report.arenas if str(a.role) == "constant")
        text[goal + "_constants"] = constants
        if goal == "size":
            # Each convolution names the entry for its geometry, so the image holds neither the
            # per-call dispatcher nor the column pointwise loop KWS never takes.
            symbols = subprocess.run(
                [f"{CROSS_PREFIX}nm", str(elf)], capture_output=True, text=True, check=True
            )
            linked = {line.split()[-1] for line in symbols.stdout.splitlines() if line.strip()}
            family = {
                f"{result.prefix}_hk_conv_s8_unfolded{part}" for part in ("", "_im2col_pointwise", "_columns")
            }
            assert linked & family == {f"{result.prefix}_hk_conv_s8_unfolded_columns"}
    assert text["size"] < text["latency"], text
    assert text["size_constants"] < text["latency_constants"], text
