"""The cycle model against silicon: published kernel cycle counts replayed under QEMU beside the model.

Cortex-M55: ns-cmsis-nn (AmbiqAI) publishes, in ``docs/guides/kernel-benchmarks.md``, the average
DWT cycles of its kernels on an Apollo510 EVB (arm-none-eabi-gcc 14.3 -O3 with
CMSIS_NN_USE_REQUANTIZE_INLINE_ASSEMBLY; 96 MHz LP mode now, 250 MHz HP mode in the file's history).
This bench takes a checkout of that repository (``--kernels PATH``; nothing of it is copied into
this one), builds the same kernel sources with the same flags against a driver of its own that calls
each kernel once at the published shape inside a harness region (after one uncounted warm-up call,
as the table averages warm calls), runs it under the Cortex-M55 cycle model (docs/cycles.md) at
the clock the table states (the platform's wait states rescaled to it) and prints, per kernel and
ISA path (``mve``: Helium; ``dsp``: the same core built without MVE, the table's DSP column), the
silicon figure (read from the checkout's table at run time), the modeled cycles and the error, the
worst error last.

    python bench/cycle_model_check.py --kernels /path/to/ns-cmsis-nn \
        [--kernel-cc /path/to/arm-none-eabi-gcc-14] \
        [--dscnn /path/to/ARM-Project --dscnn-results /path/to/arm-riscv-benchmark-results]

Replay the table at the commit that measured it (8c1eebc2 for 96 MHz, 2507d508 for 250 MHz: the
kernels changed since). ``--kernel-cc`` compiles the kernel sources with another gcc (the table's
14.x; the project's cross compiler assembles and links), so the kernels run the instructions that
compiler chose. Weight matrices are constants (MRAM in the model, through the M55's data cache),
the other buffers zero-initialised arrays (DTCM): the elementwise and pooling figures do not move
between 96 and 250 MHz on silicon, so their buffers sat in zero-wait memory there too.

Cortex-M4 (``--dscnn``): the DS-CNN Small benchmark of Karthik-Swaminathan98 measured each CMSIS-NN
call on a PSoC6 Cortex-M4 from RAM (DWT; figures in arm-riscv-benchmark-results' README, section
3.2). Our driver (bench/data/dscnn_psoc6_driver.c) makes the same five distinct calls at the
stated shapes and links the checkout's prebuilt libcmsis-nn.a as is, so the kernels are the very
bytes measured; the model runs with no wait states. The whole model is the sum of its 13 layers.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from helia_aot.testing import cross_build_program, toolchain_problem
from helia_aot.testing.cross import CORES, CROSS_PREFIX, CrossCore
from helia_aot.testing.cycles import measure_cycles, platform_at_clock, platform_named

KERNEL_CFLAGS = ("-DCMSIS_NN_USE_REQUANTIZE_INLINE_ASSEMBLY",)
"""The table's build flags beside -O3 (its test conditions)."""

NEWLIB_INCLUDE = Path("/usr/lib/arm-none-eabi/include")
"""The C library headers a ``--kernel-cc`` without its own newlib compiles against (Debian's)."""


@dataclass(frozen=True)
class Kernel:
    """One benchmarked kernel: its row name in the table, the sources it needs, the C that calls it."""

    row: str
    shape: str
    sources: tuple[str, ...]
    buffers: str
    call: str


_REQ = "1 << 30, -8"  # out_mult, out_shift: a typical requantization

_CONV_DIMS = """
static const cmsis_nn_dims in_dims = {1, 32, 32, 64}, out_dims = {1, 32, 32, 64}, bias_dims = {1, 1, 1, 64};
static int8_t in_img[32 * 32 * 64], out_img[32 * 32 * 64];
static int32_t bias64[64], mult64[64], shift64[64], wsum64[64];
static int8_t scratch[32 * 1024];
"""
"""The image the convolution, depthwise and pooling rows share (``32x32x64``, same padding)."""

_CONV_CALL = """{{
        const cmsis_nn_context ctx = {{scratch, (int32_t)sizeof(scratch)}};
        const cmsis_nn_context wctx = {{wsum64, (int32_t)sizeof(wsum64)}};
        const cmsis_nn_per_channel_quant_params q = {{mult64, shift64}};
        {params}
        if ({size} > (int32_t)sizeof(scratch)) {{
            return 2;
        }}
        {call};
    }}"""


def _conv(
    row: str, shape: str, sources: tuple[str, ...], k: int, params: str, size: str, call: str
) -> Kernel:
    """A row on the shared 32x32x64 image: a k x k filter over 64 channels (64 of them for a convolution)."""
    per_channel = "depthwise" in row or "pool" in row
    weights = f"static const int8_t weights[64 * {k * k * (1 if per_channel else 64)}] = {{1}};"
    filt = f"static const cmsis_nn_dims f_dims = {{{1 if per_channel else 64}, {k}, {k}, 64}};"
    return Kernel(
        row,
        shape,
        sources,
        _CONV_DIMS + weights + filt,
        _CONV_CALL.format(params=params, size=size, call=call),
    )


_CONV_PARAMS = "const cmsis_nn_conv_params p = {0, 0, {1, 1}, {PAD, PAD}, {1, 1}, {-128, 127}};"
_MAT = (
    "arm_nn_mat_mult_nt_t_s8.c",
    "arm_s8_to_s16_unordered_with_offset.c",
    "arm_q7_to_q15_with_offset.c",
    "arm_nn_mat_mult_kernel_row_offset_s8_s16.c",
    "arm_nn_mat_mult_kernel_s8_s16.c",
)

KERNELS = (
    Kernel(
        "arm_nn_vec_mat_mult_t_s8",
        "512 × 256",
        ("arm_nn_vec_mat_mult_t_s8.c",),
        "static int8_t lhs[512], dst[256]; static const int8_t rhs[256 * 512] = {1};"
        " static int32_t ksum[256], bias[256];",
        "arm_nn_vec_mat_mult_t_s8(lhs, rhs, ksum, bias, dst, 0, 0, 1 << 30, -8, 512, 256, -128, 127, 1, 0);",
    ),
    Kernel(
        "arm_nn_mat_mult_nt_t_s8",
        "64x512 × 256x512",
        ("arm_nn_mat_mult_nt_t_s8.c",),
        "static int8_t lhs[64 * 512], dst[64 * 256]; static const int8_t rhs[256 * 512] = {1};"
        " static int32_t wsum[256], bias[256], mult[256], shift[256];",
        "arm_nn_mat_mult_nt_t_s8(wsum, lhs, rhs, bias, dst, mult, shift, 64, 256, 512, 0, 0, -128, 127,"
        " 256, 512);",
    ),
    _conv(
        "arm_convolve_s8",
        "32x32x64 k3 oc64",
        ("arm_convolve_s8.c", "arm_convolve_get_buffer_sizes_s8.c", *_MAT),
        3,
        _CONV_PARAMS.replace("PAD", "1"),
        "arm_convolve_s8_get_buffer_size(&in_dims, &f_dims)",
        "arm_convolve_s8(&ctx, &wctx, &p, &q, &in_dims, in_img, &f_dims, weights, &bias_dims, bias64, 0,"
        " &out_dims, out_img)",
    ),
    _conv(
        "arm_convolve_1x1_s8_fast",
        "32x32x64 oc64",
        ("arm_convolve_1x1_s8_fast.c", "arm_convolve_get_buffer_sizes_s8.c", *_MAT),
        1,
        _CONV_PARAMS.replace("PAD", "0"),
        "arm_convolve_1x1_s8_fast_get_buffer_size(&in_dims)",
        "arm_convolve_1x1_s8_fast(&ctx, &wctx, &p, &q, &in_dims, in_img, &f_dims, weights, &bias_dims,"
        " bias64,"
        " &out_dims, out_img)",
    ),
    _conv(
        "arm_depthwise_conv_s8_opt",
        "32x32x64 k3",
        (
            "arm_depthwise_conv_s8_opt.c",
            "arm_nn_depthwise_conv_nt_t_s8.c",
            "arm_depthwise_conv_s8.c",
            "arm_depthwise_conv_get_buffer_sizes_s8.c",
            "arm_q7_to_q15_with_offset.c",
        ),
        3,
        "const cmsis_nn_dw_conv_params p = {0, 0, 1, {1, 1}, {1, 1}, {1, 1}, {-128, 127}};",
        "arm_depthwise_conv_s8_opt_get_buffer_size(&in_dims, &f_dims)",
        "arm_depthwise_conv_s8_opt(&ctx, &wctx, &p, &q, &in_dims, in_img, &f_dims, weights, &bias_dims,"
        " bias64,"
        " &out_dims, out_img)",
    ),
    _conv(
        "arm_avgpool_s8",
        "32x32x64 k3",
        ("arm_avgpool_s8.c", "arm_avgpool_get_buffer_sizes_s8.c"),
        3,
        "const cmsis_nn_pool_params p = {{1, 1}, {1, 1}, {-128, 127}};",
        "arm_avgpool_s8_get_buffer_size(32, 64)",
        "arm_avgpool_s8(&ctx, &p, &in_dims, in_img, &f_dims, &out_dims, out_img)",
    ),
    Kernel(
        "arm_elementwise_add_s8",
        "n4096",
        ("arm_elementwise_add_s8.c",),
        "static int8_t in1[4096], in2[4096], out[4096];",
        f"arm_elementwise_add_s8(in1, in2, 0, 1 << 30, 0, 0, 1 << 30, 0, 20, out, 0, {_REQ}, -128, 127,"
        " 4096);",
    ),
    Kernel(
        "arm_elementwise_sub_s8",
        "n4096",
        ("arm_elementwise_sub_s8.c",),
        "static int8_t in1[4096], in2[4096], out[4096];",
        f"arm_elementwise_sub_s8(in1, in2, 0, 1 << 30, 0, 0, 1 << 30, 0, 20, out, 0, {_REQ}, -128, 127,"
        " 4096);",
    ),
    Kernel(
        "arm_elementwise_mul_s8",
        "n4096",
        ("arm_elementwise_mul_s8.c",),
        "static int8_t in1[4096], in2[4096], out[4096];",
        f"arm_elementwise_mul_s8(in1, in2, 0, 0, out, 0, {_REQ}, -128, 127, 4096);",
    ),
)


PATHS = {"mve": (4, ()), "dsp": (3, ("-mcpu=cortex-m55+nomve",))}
"""ISA path -> (its column in the benchmark table, the extra compiler flags that select it)."""


def silicon_cycles(checkout: Path, column: int = 4) -> dict[str, int]:
    """Kernel -> the average cycles of the checkout's benchmark table in ``column`` (4: MVE, 3: DSP)."""
    found: dict[str, int] = {}
    for line in _table(checkout).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not cells[0].startswith("`"):
            continue
        name = cells[0].strip("`").split(" ")[0]
        if re.fullmatch(r"[\d,]+", cells[column]):
            found.setdefault(name, int(cells[column].replace(",", "")))
    return found


def _table(checkout: Path) -> str:
    return (checkout / "docs" / "guides" / "kernel-benchmarks.md").read_text()


def table_clock_mhz(checkout: Path) -> float:
    """The clock the checkout's table was measured at (its ``Clock`` test condition: 96 or 250 MHz)."""
    found = re.search(r"\*\*Clock\*\*\s*\|\s*([\d.]+)\s*MHz", _table(checkout))
    if found is None:
        raise SystemExit("cycle_model_check: the benchmark table states no clock")
    return float(found.group(1))


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


def kernel_sources(checkout: Path, kernel: Kernel) -> list[Path]:
    """The checkout's files of ``kernel.sources`` (file names, found anywhere under ``Source/``)."""
    found = []
    for name in kernel.sources:
        hits = sorted((checkout / "Source").rglob(name))
        if not hits:
            raise SystemExit(f"cycle_model_check: {name} is not in {checkout}/Source")
        found.append(hits[0])
    return found


def compile_to_assembly(compiler: str, sources: list[Path], out_dir: Path, flags: list[str]) -> list[Path]:
    """Each source compiled to assembly by ``compiler`` (the published gcc), to be assembled and linked
    by the project's toolchain: the kernels run the instructions that compiler chose."""
    out = []
    for source in sources:
        asm = out_dir / f"{source.stem}.s"
        subprocess.run([compiler, *flags, "-S", str(source), "-o", str(asm)], check=True)
        out.append(asm)
    return out


DSCNN_DRIVER = Path(__file__).resolve().parent / "data" / "dscnn_psoc6_driver.c"
"""Our driver of the DS-CNN Small calls measured on the PSoC6 (one harness region per distinct call)."""

DSCNN_CALLS = (
    ("depthwise_conv_wrapper_s8", "58x13x1 k10x4 m64 s2", (1,)),
    ("depthwise_conv_wrapper_s8", "25x5x64 k3 m64", (2, 4, 6, 8, 10)),
    ("convolve_wrapper_s8", "25x5x64 k1 oc64 p1", (3, 5, 7, 9, 11)),
    ("avgpool_s8", "25x5x64 k25x5", (12,)),
    ("fully_connected_s8", "64 -> 12", (13,)),
)
"""The driver's regions in order: the kernel, its shape, the model's layers that make that call."""

DSCNN_ENTRY_POINTS = (
    "arm_depthwise_conv_wrapper_s8_get_buffer_size",
    "arm_depthwise_conv_wrapper_s8",
    "arm_convolve_wrapper_s8_get_buffer_size",
    "arm_convolve_wrapper_s8",
    "arm_avgpool_s8_get_buffer_size",
    "arm_avgpool_s8",
    "arm_fully_connected_s8",
)

PSOC6_CLOCK_MHZ = 25.0
"""The PSoC6 measurements' clock (the results' platform table); code and data ran from RAM."""


def dscnn_silicon_cycles(results: Path) -> dict[int, int]:
    """Layer number -> the CMSIS-NN cycles of the DS-CNN Small table (section 3.2) of the results README."""
    text = (results / "README.md").read_text()
    section = text[text.index("### 3.2") :]
    section = section[: section.index("###", 4)]
    found: dict[int, int] = {}
    for match in re.finditer(r"\|\s*Layer (\d+):[^|]*\|\s*([\d,]+)\s*\|", section):
        found[int(match.group(1))] = int(match.group(2).replace(",", ""))
    return found


def replay_dscnn(project: Path, results: Path, work: Path) -> tuple[list[str], list[tuple[float, str]]]:
    """The PSoC6 DS-CNN Small calls under the Cortex-M4 model: one line per call and the whole model."""
    library = project / "NN_KWS_DSCNN_SMALL" / "CMSIS" / "libcmsis-nn.a"
    m4 = CORES["m4"]
    # the prebuilt library uses the soft-float calling convention (no VFP arguments); so does the driver
    softfp = CrossCore(
        "m4",
        ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=softfp", "-mthumb"),
        m4.machine,
        m4.linker_script,
        "Cortex-M4, soft-float calls",
    )
    elf = cross_build_program(
        [DSCNN_DRIVER],
        work / "dscnn",
        softfp,
        extra_ldflags=(*(f"-Wl,-u,{name}" for name in DSCNN_ENTRY_POINTS), str(library)),
    )
    # code and data from RAM with no wait states, as measured; the clock only converts to time
    platform = dataclasses.replace(platform_named("apollo4p_evb"), clock_mhz=PSOC6_CLOCK_MHZ, wait_states=())
    run = measure_cycles(elf, "cortex-m4", platform, strict=False)
    silicon = dscnn_silicon_cycles(results)
    lines: list[str] = []
    errors: list[tuple[float, str]] = []
    total_silicon = total_model = 0
    for (kernel, shape, layers), region in zip(DSCNN_CALLS, run.regions, strict=True):
        measured = silicon[layers[0]]
        total_silicon += measured * len(layers)
        total_model += region.cycles * len(layers)
        error = region.cycles / measured - 1
        errors.append((error, f"{kernel}, m4"))
        lines.append(
            f"{kernel:28} {'m4':4} {shape:18} {measured:11,} {region.cycles:11,} {100 * error:+7.1f}%"
        )
    error = total_model / total_silicon - 1
    errors.append((error, "DS-CNN Small total, m4"))
    lines.append(
        f"{'DS-CNN Small (13 layers)':28} {'m4':4} {'whole model':18} {total_silicon:11,} {total_model:11,}"
        f" {100 * error:+7.1f}%"
    )
    return lines, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=Path, required=True, help="an ns-cmsis-nn checkout")
    parser.add_argument("--work-dir", type=Path, help="keep the builds here")
    parser.add_argument(
        "--paths",
        default="mve,dsp",
        help="ISA paths to replay: mve (Helium) and/or dsp (the same core without MVE)",
    )
    parser.add_argument("--only", help="comma-separated kernel rows to replay (default: all)")
    parser.add_argument(
        "--kernel-cc",
        help="an arm-none-eabi-gcc to compile the kernel sources with (the table's compiler, gcc 14); "
        "default: the project's cross compiler",
    )
    parser.add_argument(
        "--dscnn",
        type=Path,
        help="a checkout of Karthik-Swaminathan98/ARM-Project: its DS-CNN Small calls under the M4 model",
    )
    parser.add_argument(
        "--dscnn-results",
        type=Path,
        help="a checkout of Karthik-Swaminathan98/arm-riscv-benchmark-results (the PSoC6 cycles)",
    )
    args = parser.parse_args(argv)
    if (args.dscnn is None) != (args.dscnn_results is None):
        parser.error("--dscnn and --dscnn-results go together")
    problem = toolchain_problem()
    if problem:
        print(f"cycle_model_check: cannot run: {problem}", file=sys.stderr)
        return 2
    checkout = args.kernels.resolve()
    paths = [p for p in args.paths.split(",") if p]
    if any(p not in PATHS for p in paths):
        parser.error(f"--paths takes {', '.join(PATHS)}")
    kernels = [k for k in KERNELS if not args.only or k.row in args.only.split(",")]
    clock = table_clock_mhz(checkout)
    platform = platform_at_clock(platform_named("apollo510_evb"), clock)
    compiler = args.kernel_cc or f"{CROSS_PREFIX}gcc"
    version = subprocess.run([compiler, "-dumpversion"], capture_output=True, text=True).stdout.strip()
    header = f"{'kernel':28} {'path':4} {'shape':18} {'silicon':>11} {'modeled':>11} {'error':>8}"
    lines = [header, "-" * len(header)]
    worst: tuple[float, str] | None = None
    with tempfile.TemporaryDirectory(prefix="helia_aot_cycle_check_") as scratch:
        work = args.work_dir or Path(scratch)
        for path in paths:
            column, flags = PATHS[path]
            silicon = silicon_cycles(checkout, column)
            for kernel in kernels:
                measured = silicon.get(kernel.row)
                build = (work / path / kernel.row).resolve()
                build.mkdir(parents=True, exist_ok=True)
                main_c = build / "main.c"
                main_c.write_text(driver(kernel))
                cflags = [*CORES["m55"].cpu_flags, "-O3", *KERNEL_CFLAGS, *flags, f"-I{checkout / 'Include'}"]
                sources = kernel_sources(checkout, kernel)
                if args.kernel_cc:
                    sources = compile_to_assembly(
                        args.kernel_cc,
                        sources,
                        build,
                        [*cflags, "-isystem", str(NEWLIB_INCLUDE), "-ffunction-sections", "-fdata-sections"],
                    )
                elf = cross_build_program(
                    [main_c, *sources],
                    build,
                    "m55",
                    include_dirs=[checkout / "Include"],
                    opt="-O3",
                    extra_cflags=(*KERNEL_CFLAGS, "-Wno-error", *flags),
                )
                run = measure_cycles(elf, "cortex-m55", platform, strict=False)
                modeled = run.regions[0].cycles if run.regions and run.run.returncode == 0 else None
                if measured is None or modeled is None:
                    lines.append(
                        f"{kernel.row:28} {path:4} {kernel.shape:18} {measured or '-':>11}"
                        f" {modeled or '-':>11}"
                    )
                    continue
                error = modeled / measured - 1
                row = f"{kernel.row:28} {path:4} {kernel.shape:18} {measured:11,} {modeled:11,}"
                lines.append(f"{row} {100 * error:+7.1f}%")
                if worst is None or abs(error) > abs(worst[0]):
                    worst = (error, f"{kernel.row}, {path}")
        if args.dscnn is not None:
            dscnn_lines, dscnn_errors = replay_dscnn(args.dscnn.resolve(), args.dscnn_results.resolve(), work)
            lines += dscnn_lines
            for error, name in dscnn_errors:
                if worst is None or abs(error) > abs(worst[0]):
                    worst = (error, name)
    print("\n".join(lines))
    if args.dscnn is not None:
        print(
            f"silicon (m4): PSoC6 Cortex-M4 at {PSOC6_CLOCK_MHZ:g} MHz from RAM (DWT), its prebuilt CMSIS-NN "
            "library linked as is; modeled: no wait states"
        )
    print(
        f"silicon: Apollo510 EVB at {clock:g} MHz (DWT, gcc 14.3); modeled: kernels compiled by "
        f"gcc {version}, apollo510_evb's memories at {clock:g} MHz, weights in MRAM, other buffers in DTCM"
    )
    if worst is not None:
        print(f"worst error: {100 * worst[0]:+.1f}% ({worst[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
