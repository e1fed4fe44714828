"""The same model gives the reference's outputs through every kernel path.

The int8 convolution kernels choose Helium, DSP or portable C at compile time, so one generated
module is built five ways and its golden self test (3 samples, exact for int8) must pass on each:

* ``host``: the host compiler, portable C;
* ``m55-mve``: Cortex-M55 with Helium, under QEMU;
* ``m55-dsp``: Cortex-M55 with MVE switched off (``+nomve``), so the DSP path;
* ``m55-portable``: Cortex-M55 with neither (``+nomve+nodsp``), portable C on the target;
* ``m4-dsp``: Cortex-M4F, the DSP path.

Small corpus models (padding, strides, dilation, depth multipliers, pointwise and inverted
residual blocks) and the MLPerf int8 models run on the host and the two cores the product ships
for; three small models and KWS run on all five. KWS and VWW run as their probe variants (every
layer's output is also a model output): their weights are untrained, so the plain models' class
scores are the same for every input and would not show a layer computed wrongly. The kernel-level
test next to the kernels (tests/ops_builtin/conv/test_conv_paths.py) covers the paths case by
case.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot.testing import cross_build_module, run_module_test_case, run_qemu

from .test_cross_harness import convert_corpus_model

pytestmark = [
    pytest.mark.cross,
]

TARGET_PATHS = {  # name -> (core, extra compiler flags)
    "m55-mve": ("m55", ()),
    "m55-dsp": ("m55", ("-mcpu=cortex-m55+nomve",)),
    "m55-portable": ("m55", ("-mcpu=cortex-m55+nomve+nodsp",)),
    "m4-dsp": ("m4", ()),
}
ALL_PATHS = ("host", *TARGET_PATHS)
MAIN_PATHS = ("host", "m55-mve", "m4-dsp")

EVERY_PATH_MODELS = (
    "conv2d_3x3_dil2_same_relu_int8",
    "dwconv_5x5_dm4_s1_valid_c1_int8",
    "small_mobilenetv2_block_int8",
    "mlperf_kws_dscnn_int8_probe",
)
MAIN_PATH_MODELS = (
    "conv2d_3x3_s2_same_int8",
    "dwconv_3x3_dm1_s1_same_relu_int8",
    "dwconv_3x3_dm1_s2_valid_relu6_int8",
    "mlperf_ic_resnet8_int8",
    "mlperf_vww_mobilenetv1_025_int8_probe",
    "mlperf_ad_fc_autoencoder_int8",
)

CASES = [(m, p) for m in EVERY_PATH_MODELS for p in ALL_PATHS] + [
    (m, p) for m in MAIN_PATH_MODELS for p in MAIN_PATHS
]


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """Each model converted once, on first use."""
    converted: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in converted:
            converted[name] = convert_corpus_model(name, tmp_path_factory.mktemp(name), tolerance=0.0)
        return converted[name]

    return get


@pytest.mark.parametrize(("model", "path"), CASES, ids=[f"{m}-{p}" for m, p in CASES])
def test_golden_test_passes_on_every_kernel_path(model, path, modules, tmp_path):
    module = modules(model)
    if path == "host":
        run = run_module_test_case(module, tmp_path, sanitize=False)
        assert run.passed, f"{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        return
    core, flags = TARGET_PATHS[path]
    elf = cross_build_module(module, tmp_path, core, extra_cflags=flags)
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.passed, run
