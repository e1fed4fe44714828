"""The cycle model against silicon: ns-cmsis-nn kernels replayed under QEMU beside their measured cycles.

ns-cmsis-nn (AmbiqAI) publishes, in ``docs/guides/kernel-benchmarks.md``, the average DWT cycles of
its kernels on an Apollo510 EVB (Cortex-M55, 96 MHz LP mode, arm-none-eabi-gcc -O3 with
CMSIS_NN_USE_REQUANTIZE_INLINE_ASSEMBLY). This bench takes a checkout of that repository
(``--kernels PATH``; nothing of it is copied into this one), builds the same kernel sources with
the same flags against a driver of its own that calls each kernel once at the published shape
inside a harness region (after one uncounted warm-up call), runs it under the Cortex-M55 cycle
model (docs/cycles.md) and prints, per kernel and ISA path (``mve``: Helium; ``dsp``: the same
core built without MVE, the table's DSP column), the silicon figure (read from the checkout's
table at run time), the modeled cycles and the error, the worst error last.

    python bench/cycle_model_check.py --kernels /path/to/ns-cmsis-nn

The local arm-none-eabi-gcc compiles the kernels; the published figures came from gcc 14.3, so a
different compiler runs different instructions (``HELIA_AOT_CROSS_PREFIX`` selects another).
Weight matrices are constants (MRAM in the model, as a deployed model's weights; the platform's
wait states per 64-bit beat), the other buffers zero-initialised arrays (DTCM, no wait states); the
published runs' buffer placement is not stated, which is one source of error, and the platform's
wait states are declared at 250 MHz, not the 96 MHz of the measurements. Requantization parameters are
typical values; the kernels' cycle counts depend on the shapes, not on them.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from helia_aot.testing import cross_build_program, toolchain_problem
from helia_aot.testing.cycles import measure_cycles, platform_named

CLOCK_MHZ = 96.0


@dataclass(frozen=True)
class Kernel:
    """One benchmarked kernel: its row name in the table, the sources it needs, the C that calls it."""

    row: str
    shape: str
    sources: tuple[str, ...]
    buffers: str
    call: str


_REQ = "1 << 30, -8"  # out_mult, out_shift: a typical requantization

KERNELS = (
    Kernel(
        "arm_nn_vec_mat_mult_t_s8",
        "512 × 256",
        ("Source/NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c",),
        "static int8_t lhs[512], dst[256]; static const int8_t rhs[256 * 512] = {1};"
        " static int32_t ksum[256], bias[256];",
        "arm_nn_vec_mat_mult_t_s8(lhs, rhs, ksum, bias, dst, 0, 0, 1 << 30, -8, 512, 256, -128, 127, 1, 0);",
    ),
    Kernel(
        "arm_nn_mat_mult_nt_t_s8",
        "64x512 × 256x512",
        ("Source/NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c",),
        "static int8_t lhs[64 * 512], dst[64 * 256]; static const int8_t rhs[256 * 512] = {1};"
        " static int32_t wsum[256], bias[256], mult[256], shift[256];",
        "arm_nn_mat_mult_nt_t_s8(wsum, lhs, rhs, bias, dst, mult, shift, 64, 256, 512, 0, 0, -128, 127,"
        " 256, 512);",
    ),
    Kernel(
        "arm_elementwise_add_s8",
        "n4096",
        ("Source/BasicMathFunctions/arm_elementwise_add_s8.c",),
        "static int8_t in1[4096], in2[4096], out[4096];",
        f"arm_elementwise_add_s8(in1, in2, 0, 1 << 30, 0, 0, 1 << 30, 0, 20, out, 0, {_REQ}, -128, 127,"
        " 4096);",
    ),
    Kernel(
        "arm_elementwise_sub_s8",
        "n4096",
        ("Source/BasicMathFunctions/arm_elementwise_sub_s8.c",),
        "static int8_t in1[4096], in2[4096], out[4096];",
        f"arm_elementwise_sub_s8(in1, in2, 0, 1 << 30, 0, 0, 1 << 30, 0, 20, out, 0, {_REQ}, -128, 127,"
        " 4096);",
    ),
    Kernel(
        "arm_elementwise_mul_s8",
        "n4096",
        ("Source/BasicMathFunctions/arm_elementwise_mul_s8.c",),
        "static int8_t in1[4096], in2[4096], out[4096];",
        f"arm_elementwise_mul_s8(in1, in2, 0, 0, out, 0, {_REQ}, -128, 127, 4096);",
    ),
)


PATHS = {"mve": (4, ()), "dsp": (3, ("-mcpu=cortex-m55+nomve",))}
"""ISA path -> (its column in the benchmark table, the extra compiler flags that select it)."""


def silicon_cycles(checkout: Path, column: int = 4) -> dict[str, int]:
    """Kernel -> the average cycles of the checkout's benchmark table in ``column`` (4: MVE, 3: DSP)."""
    text = (checkout / "docs" / "guides" / "kernel-benchmarks.md").read_text()
    found: dict[str, int] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not cells[0].startswith("`"):
            continue
        name = cells[0].strip("`").split(" ")[0]
        if re.fullmatch(r"[\d,]+", cells[column]):
            found.setdefault(name, int(cells[column].replace(",", "")))
    return found


def driver(kernel: Kernel) -> str:
    """Our C program: one warm-up call, then one counted call."""
    return f"""#include <stdint.h>
#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"
#include "harness.h"

{kernel.buffers}

int main(void)
{{
    {kernel.call}
    harness_region_begin();
    {kernel.call}
    harness_region_end();
    return 0;
}}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=Path, required=True, help="an ns-cmsis-nn checkout")
    parser.add_argument("--work-dir", type=Path, help="keep the builds here")
    parser.add_argument(
        "--paths",
        default="mve,dsp",
        help="ISA paths to replay: mve (Helium) and/or dsp (the same core without MVE)",
    )
    args = parser.parse_args(argv)
    problem = toolchain_problem()
    if problem:
        print(f"cycle_model_check: cannot run: {problem}", file=sys.stderr)
        return 2
    checkout = args.kernels.resolve()
    paths = [p for p in args.paths.split(",") if p]
    if any(p not in PATHS for p in paths):
        parser.error(f"--paths takes {', '.join(PATHS)}")
    platform = platform_named("apollo510_evb")
    header = f"{'kernel':28} {'path':4} {'shape':18} {'silicon':>11} {'modeled':>11} {'error':>8}"
    lines = [header, "-" * len(header)]
    worst: tuple[float, str] | None = None
    with tempfile.TemporaryDirectory(prefix="helia_aot_cycle_check_") as scratch:
        work = args.work_dir or Path(scratch)
        for path in paths:
            column, flags = PATHS[path]
            silicon = silicon_cycles(checkout, column)
            for kernel in KERNELS:
                measured = silicon.get(kernel.row)
                build = work / path / kernel.row
                build.mkdir(parents=True, exist_ok=True)
                main_c = build / "main.c"
                main_c.write_text(driver(kernel))
                elf = cross_build_program(
                    [main_c, *(checkout / s for s in kernel.sources)],
                    build,
                    "m55",
                    include_dirs=[checkout / "Include"],
                    opt="-O3",
                    extra_cflags=("-DCMSIS_NN_USE_REQUANTIZE_INLINE_ASSEMBLY", "-Wno-error", *flags),
                )
                run = measure_cycles(elf, "cortex-m55", platform, strict=False)
                modeled = run.regions[0].cycles if run.regions else None
                if measured is None or modeled is None:
                    lines.append(f"{kernel.row:28} {path:4} {kernel.shape:18} {'-':>11} {modeled or '-':>11}")
                    continue
                error = modeled / measured - 1
                row = f"{kernel.row:28} {path:4} {kernel.shape:18} {measured:11,} {modeled:11,}"
                lines.append(f"{row} {100 * error:+7.1f}%")
                if worst is None or abs(error) > abs(worst[0]):
                    worst = (error, f"{kernel.row}, {path}")
    print("\n".join(lines))
    print(
        f"silicon: Apollo510 EVB at {CLOCK_MHZ:g} MHz (DWT); modeled: apollo510_evb's wait states, "
        "weights in MRAM, other buffers in DTCM"
    )
    if worst is not None:
        print(f"worst error: {100 * worst[0]:+.1f}% ({worst[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
