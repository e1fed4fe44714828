"""The product's modules (helia-aot 1.1.0) under the same cycle model as ours, for bench/mlperf_cycles.py.

The product's modules call ns-cmsis-nn (AmbiqAI's CMSIS-NN fork) for their kernels, which is not
part of this repository. Given the product's ``helia-aot`` executable (installed in a throwaway
venv outside the repository) and an ns-cmsis-nn checkout, this converts an MLPerf model with the
product (its golden test enabled, exact), compiles the checkout's kernel sources once per core into
an archive, links the product's module, the same bench ``main`` as ours (one uncounted inference,
one counted) and those kernels, and runs it under the cycle model on the same platform, so both
columns come from one run of one model. Nothing of the product or of ns-cmsis-nn is copied into
this repository: the sources are read where they are, the build lands in the bench's scratch
directory.

Two facts about the pairing are printed with the figures rather than hidden:

* The product 1.1.0 checks for ns-cmsis-nn 7.47.0 or newer (``aot_common.h``). An older checkout
  (the public mirror reached here is 7.29.2) lacks the shape-specialized entries its default
  ``optimization.kernel: auto`` emits (``arm_depthwise_conv_s8_opt_3x3_c64_s1``, ...), so against
  an older checkout the product converts with ``optimization.kernel: generic`` (its documented
  general entries, also exact) and its version gate is lifted in the scratch copy of the module;
  the golden test still decides whether the pairing computes the model.
* The kernels are compiled by the same cross compiler and ``-O2`` as our modules; the product's
  generated sources too, without our ``-Werror`` (their warnings are theirs).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from helia_aot.testing.cross import CORES, CROSS_PREFIX, CrossBuildError, cross_build_program

PRODUCT_VERSION_NEEDED = (7, 47, 0)
"""The oldest ns-cmsis-nn the product 1.1.0's modules accept (its ``aot_common.h`` gate)."""

KERNEL_DIRS = (
    "ActivationFunctions",
    "BasicMathFunctions",
    "ConvolutionFunctions",
    "FullyConnectedFunctions",
    "NNSupportFunctions",
    "PoolingFunctions",
    "ReshapeFunctions",
    "SoftmaxFunctions",
)
"""The ns-cmsis-nn source folders the MLPerf models' operators reach (conv, depthwise, fully
connected, pooling, add, softmax and their support routines)."""

LOOSE_CFLAGS = ("-std=gnu11", "-Wno-error")
"""Foreign sources compile with the C dialect they are written in and keep their warnings."""


@dataclass(frozen=True, slots=True)
class ProductSetup:
    """Where the product and the kernels are, and how the pairing had to be made."""

    executable: Path
    kernels: Path
    version: tuple[int, int, int]

    @property
    def kernel_choice(self) -> str:
        """``auto`` with an ns-cmsis-nn the product accepts, ``generic`` with an older one."""
        return "auto" if self.version >= PRODUCT_VERSION_NEEDED else "generic"

    def describe(self) -> str:
        version = ".".join(map(str, self.version))
        note = (
            ""
            if self.kernel_choice == "auto"
            else f" (older than the {'.'.join(map(str, PRODUCT_VERSION_NEEDED))} the product asks: "
            "optimization.kernel generic, its version gate lifted)"
        )
        return f"product {self.executable} with ns-cmsis-nn {version} at {self.kernels}{note}"


def ns_cmsis_nn_version(checkout: Path) -> tuple[int, int, int]:
    """The version a checkout's ``Include/arm_nn_types.h`` declares."""
    header = (checkout / "Include" / "arm_nn_types.h").read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        found = re.search(rf"#define NS_CMSIS_NN_VERSION_{part}\s+\(?(\d+)\)?", header)
        if found is None:
            raise ValueError(f"{checkout}: arm_nn_types.h declares no NS_CMSIS_NN_VERSION_{part}")
        parts.append(int(found[1]))
    return parts[0], parts[1], parts[2]


def product_setup(executable: Path | None, kernels: Path | None) -> ProductSetup | None:
    """The pairing when both the product's executable and an ns-cmsis-nn checkout are present."""
    if executable is None or kernels is None:
        return None
    if not executable.is_file() or not (kernels / "Include" / "arm_nn_types.h").is_file():
        return None
    return ProductSetup(executable, kernels, ns_cmsis_nn_version(kernels))


def first_sample_golden(corpus_golden: Path, target: Path) -> Path:
    """The corpus archive's first sample as the product's test.golden_data (one sample per tensor,
    ``input_i`` / ``output_j``, the LiteRT reference interpreter's outputs)."""
    with np.load(corpus_golden) as data:
        arrays = {}
        for key in data.files:
            if key.startswith("in_"):
                arrays[f"input_{key[3:]}"] = data[key][0]
            elif key.startswith("ref_out_"):
                arrays[f"output_{key[8:]}"] = data[key][0]
    np.savez(target, **arrays)
    return target


def convert_with_product(setup: ProductSetup, model: Path, golden: Path, out: Path) -> tuple[Path, str]:
    """Convert ``model`` with the product (golden test on ``golden``, one sample, exact); returns
    the module folder and its prefix."""
    if out.exists():
        shutil.rmtree(out)
    command = [
        str(setup.executable),
        "convert",
        "--model.path",
        str(model),
        "--module.path",
        str(out),
        "--module.type",
        "cmake",
        "--module.prefix",
        "aot",
        "--test.enabled",
        "--test.golden-data",
        str(golden),
        "--test.tolerance",
        "0",
        "--optimization.kernel",
        setup.kernel_choice,
        "--force",
        "--verbose",
        "0",
    ]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"the product failed to convert {model.name}: {(proc.stdout + proc.stderr)[-800:]}"
        )
    module = next(p.parent for p in out.rglob("CMakeLists.txt"))
    if setup.kernel_choice == "generic":
        common = module / "includes-api" / "aot_common.h"
        text = common.read_text()
        lifted = re.sub(
            r"#error \"aot: ns-cmsis-nn too old[^\n]*", "/* version gate lifted by the bench */", text
        )
        common.write_text(lifted)
    return module, "aot"


def kernel_archive(setup: ProductSetup, core: str, work: Path, opt: str = "-O2") -> Path:
    """ns-cmsis-nn's kernel sources compiled once for ``core`` into ``work/libnscmsisnn.a``."""
    archive = work / "libnscmsisnn.a"
    if archive.exists():
        return archive
    objects_dir = work / "obj"
    objects_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(s for folder in KERNEL_DIRS for s in (setup.kernels / "Source" / folder).rglob("*.c"))
    flags = [
        *CORES[core].cpu_flags,
        opt,
        *LOOSE_CFLAGS,
        "-ffunction-sections",
        "-fdata-sections",
        f"-I{setup.kernels / 'Include'}",
    ]

    def compile_one(index_source: tuple[int, Path]) -> Path:
        index, source = index_source
        obj = objects_dir / f"{index:03d}_{source.stem}.o"
        proc = subprocess.run(
            [f"{CROSS_PREFIX}gcc", *flags, "-c", str(source), "-o", str(obj)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise CrossBuildError(proc.returncode, proc.args, proc.stdout, proc.stderr)
        return obj

    with ThreadPoolExecutor(max_workers=2) as pool:
        objects = list(pool.map(compile_one, enumerate(sources)))
    subprocess.run([f"{CROSS_PREFIX}ar", "rcs", str(archive), *map(str, objects)], check=True)
    return archive


def with_test_case_init(main_source: str, prefix: str) -> str:
    """The bench ``main`` with ``<prefix>_test_case_init()`` before the golden test: the product's
    test case runs only on an initialised model (status 14, not initialised, otherwise)."""
    run = f"int32_t status = {prefix}_test_case_run();"
    if run not in main_source:
        raise ValueError("the bench main no longer starts with the golden test")
    init = (
        f"int32_t status = {prefix}_test_case_init();\n"
        f"    if (status == 0) {{\n        status = {prefix}_test_case_run();\n    }}"
    )
    return main_source.replace(run, init)


def build_product_module(
    setup: ProductSetup,
    module: Path,
    prefix: str,
    main_source: str,
    core: str,
    work: Path,
    archive: Path,
    extra_cflags: Sequence[str] = (),
    opt: str = "-O2",
) -> Path:
    """Link the product's module, ``main_source`` and the kernel archive into an ELF for ``core``."""
    work.mkdir(parents=True, exist_ok=True)
    main = work / "main.c"
    main.write_text(with_test_case_init(main_source, prefix))
    sources = [*sorted((module / "src").glob("*.c")), main]
    return cross_build_program(
        sources,
        work / "build",
        core,
        include_dirs=(module / "includes-api", setup.kernels / "Include"),
        opt=opt,
        extra_cflags=(*LOOSE_CFLAGS, f"-D{prefix.upper()}_PRINTF(...)=printf(__VA_ARGS__)", *extra_cflags),
        extra_ldflags=("-Wl,--whole-archive", str(archive), "-Wl,--no-whole-archive"),
    )
