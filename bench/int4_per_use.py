"""Int4 weights read per use (goal ``size``): instructions of the fast paths against plain C, and
the KWS constant ratio with every filter int4.

Part one cross-builds one program calling ``hk_conv_s8_s4`` and ``hk_depthwise_s8_s4`` on four
KWS-like layers (a 1x1 convolution 64 -> 64 and a 3x3 depthwise over 64 channels on a 25x5
image, a first layer 10x4 over one channel and a 3x3 over 16 channels, stride 2, on 49x10) for
the Cortex-M55 with Helium and without any SIMD, and the Cortex-M4 with and without the DSP
extension (``-U__ARM_FEATURE_DSP`` leaves hk_isa.h on the plain C path), and counts each call's
instructions under QEMU. Part two converts ai-edge-quantizer's KWS twins (tests/data/int4) at
goal ``size`` and prints their constant bytes: the int8 twin, the int4 recipe (depthwise left
int8) and the variant with int4 depthwise filters too.

    python bench/int4_per_use.py
    python bench/int4_per_use.py --write-figures   # record docs/int4.md's figures
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "int4"

PROGRAM = r"""
#include <stdio.h>
#include "harness.h"
#include "hk_conv_s4.h"
#include "hk_depthwise_s4.h"
#include "hk_isa.h"

static int8_t in[49 * 10 * 64];
static uint8_t w[64 * 64 * 40 / 2];
static int8_t out[25 * 5 * 64];
static int32_t m[64], s[64];

int main(void)
{
    for (int i = 0; i < 64; ++i) {
        m[i] = 1 << 30;
        s[i] = i * 256 + (-8 & 255); /* channel words (hk_int4.h): bias i, shift -8 */
    }
    const hk_conv_params_t pointwise = {.batches = 1, .input_height = 25, .input_width = 5,
        .input_channels = 64, .filter_height = 1, .filter_width = 1, .filter_input_channels = 64,
        .output_height = 25, .output_width = 5, .output_channels = 64, .stride_height = 1,
        .stride_width = 1, .dilation_height = 1, .dilation_width = 1, .input_offset = 1,
        .act_min = -128, .act_max = 127, .output_multiplier = m, .output_shift = s};
    hk_conv_params_t first = {.batches = 1, .input_height = 49, .input_width = 10,
        .input_channels = 1, .filter_height = 10, .filter_width = 4, .filter_input_channels = 1,
        .output_height = 25, .output_width = 5, .output_channels = 64, .stride_height = 2,
        .stride_width = 2, .dilation_height = 1, .dilation_width = 1, .pad_top = 4,
        .pad_left = 1, .input_offset = 1, .act_min = -128, .act_max = 127,
        .output_multiplier = m, .output_shift = s};
    const hk_depthwise_params_t depthwise = {.batches = 1, .input_height = 25, .input_width = 5,
        .input_channels = 64, .depth_multiplier = 1, .filter_height = 3, .filter_width = 3,
        .output_height = 25, .output_width = 5, .stride_height = 1, .stride_width = 1,
        .dilation_height = 1, .dilation_width = 1, .pad_top = 1, .pad_left = 1,
        .input_offset = 1, .act_min = -128, .act_max = 127, .output_multiplier = m,
        .output_shift = s};
    printf("path %s\n", HK_ISA_PATH);
    harness_region_begin();
    hk_conv_s8_s4(&pointwise, in, w, NULL, out);
    harness_region_end();
    harness_region_begin();
    hk_conv_s8_s4(&first, in, w, NULL, out);
    harness_region_end();
    first.input_channels = first.filter_input_channels = 16;
    first.filter_height = first.filter_width = 3;
    harness_region_begin();
    hk_conv_s8_s4(&first, in, w, NULL, out);
    harness_region_end();
    harness_region_begin();
    hk_depthwise_s8_s4(&depthwise, in, w, NULL, out);
    harness_region_end();
    return 0;
}
"""

LAYERS = ("conv 1x1 64->64", "conv 10x4 1->64", "conv 3x3 16->64", "depthwise 3x3 x64")
BUILDS = {
    "M55 Helium": ("m55", (), "mve"),
    "M55 plain C": ("m55", ("-mcpu=cortex-m55+nomve+nodsp",), "portable"),
    "M4 DSP": ("m4", (), "dsp"),
    "M4 plain C": ("m4", ("-U__ARM_FEATURE_DSP",), "portable"),
}
TWINS = ("aeq_kws_dscnn_probe_w8a8", "aeq_kws_dscnn_probe_w4a8", "aeq_kws_dscnn_probe_w4a8_dw4")


def instructions(work: Path) -> dict[str, list[int]]:
    """Per build, each layer's instruction count."""
    from helia_aot.testing import cross_build_program, run_qemu
    from helia_aot_ops_builtin.families import KERNEL_PATH, kernel_sources

    main = work / "main.c"
    main.write_text(PROGRAM)
    sources = [p for p in kernel_sources("conv_s4", "depthwise_s4") if p.suffix == ".c"]
    counts = {}
    for label, (core, flags, path) in BUILDS.items():
        build = work / label.replace(" ", "_")
        elf = cross_build_program(
            [main, *sources], build, core, include_dirs=list(KERNEL_PATH), extra_cflags=flags
        )
        run = run_qemu(elf, core, timeout=600)
        assert run.returncode == 0 and f"path {path}\n" in run.stdout, run.stdout
        counts[label] = list(run.regions)
    return counts


def constant_bytes(work: Path) -> dict[str, int]:
    """Each KWS twin's constant arena at goal size."""
    from helia_aot import AotConverter, ConvertArgs

    found = {}
    for name in TWINS:
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(DATA / f"{name}.tflite")},
                "module": {"path": str(work / name), "name": "module"},
                "optimization": {"goal": "size"},
            }
        )
        output = Path(AotConverter(config).convert().output)
        report = json.loads(next(output.glob("*_report.json")).read_text())
        found[name] = sum(a["used"] for a in report["arenas"] if a["role"] == "constant")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-figures", action="store_true", help="record docs/int4.md's figures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="int4_per_use_") as tmp:
        counts = instructions(Path(tmp))
        constants = constant_bytes(Path(tmp))
    print(f"{'layer':20}" + "".join(f"{label:>14}" for label in BUILDS))
    for i, layer in enumerate(LAYERS):
        print(f"{layer:20}" + "".join(f"{counts[label][i]:>14,}" for label in BUILDS))
    int8, int4, dw4 = (constants[name] for name in TWINS)
    print(f"KWS constants at size: int8 {int8:,} B, int4 recipe {int4:,} B ({int4 / int8:.2f}), ", end="")
    print(f"every filter int4 {dw4:,} B ({dw4 / int8:.2f})")
    if args.write_figures:
        from figures import report_written, write_figures

        figures = {
            "int4_per_use_instructions": [counts[label][i] for i in range(len(LAYERS)) for label in BUILDS],
            "int4_kws_constants": [int8, int4, dw4],
        }
        report_written(write_figures(figures, "python bench/int4_per_use.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
