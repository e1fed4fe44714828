"""One model per kernel family, and a float32 MLPerf model, pass their golden tests on both cores.

The convolution, fully-connected, pooling and elementwise families have path-by-path tests of
their own (test_kernel_paths.py, test_kernel_paths_fc.py); this covers every other family of the
kernel library plus float32 end to end (the KWS probe: every layer's output is checked, within
CORE_FLOAT_ULP of the reference), all linked into one program per core (one QEMU boot each).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot.testing import CORES, cross_build_program, run_qemu

from .linked import check_verdicts, convert_models, write_main

pytestmark = [
    pytest.mark.cross,
]

MODELS = (
    "mlperf_kws_dscnn_float32_probe",  # float conv, depthwise, fully connected, pool, softmax
    "transpose_conv_s2_same_int8",  # transpose_conv
    "batch_matmul_adj_y_float32",  # batch_matmul
    "arg_max_float32",  # argminmax
    "gather_axis1_const_indices_int8",  # gather
    "pad_zero_int8",  # copy (fill + strided copy)
    "concat_channels_2inputs_int16x8",  # quantize (int16 requantize) + copy
    "conv2d_fp16_weights_float16w",  # quantize (float16 dequantize)
    "mean_hw_keepdims_int16x8",  # reduce
    "resize_bilinear_downscale_int8",  # resize (integer bilinear)
    "logistic_int8",  # activation (LUT)
    "hard_swish_int8",  # activation (fixed point)
    "softmax_3d_int8",  # softmax
    "sub_broadcast_4d_int8",  # binary with 4-D broadcasting
    "rsqrt_int8",  # unary (int8 table)
    "sin_cos_float32",  # unary (float32 C library calls)
    "floor_div_floor_mod_float32",  # math (broadcast walk)
    "compare_less_greater_int8_safe_int8",  # compare (int8 rescaled, bool outputs)
    "gelu_int8",  # table (GELU lookup)
    "log_softmax_int8",  # log_softmax (fixed-point log)
    "l2_normalization_float32",  # normalization
    "gelu_float32",  # gelu (Eigen erfc: polynomial, packet exp, libm expf on the tail)
)


def linked(core: str, root: Path):
    """The models converted with the core's float bound (CORE_FLOAT_ULP) and one main for them."""
    root.mkdir()
    modules = convert_models(MODELS, root, core=core)
    return modules, write_main(modules, root / "main.c")


@pytest.mark.parametrize("core", sorted(CORES))
def test_every_family_passes_on_the_core(core, tmp_path):
    modules, main = linked(core, tmp_path / "modules")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
