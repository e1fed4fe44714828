"""The bare-metal harness: cross builds for Cortex-M55 and Cortex-M4 run under QEMU.

Small C programs check the runtime itself (exit status, printf over semihosting, the fault
report, repeatable instruction counts, MLPerf-sized memory); a generated module checks that its
golden test passes on both cores (a float RELU model and the KWS int8 probe, with the built-in
operators).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import (
    CORES,
    corpus_golden_to_npz,
    cross_build_module,
    cross_build_program,
    module_size,
    run_qemu,
    size_of,
)

from .corpus import golden_path, manifest, model_path, require_informative

pytestmark = [
    pytest.mark.cross,
]

ALL_CORES = sorted(CORES)

HELLO = r"""
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#ifdef __ARM_FEATURE_MVE
#include <arm_mve.h>
#endif

int main(void)
{
    volatile float x = 2.0f;
    printf("hello %d %.2f\n", 42, (double)sqrtf(x));
#ifdef __ARM_FEATURE_MVE
    /* MVE faults with NOCP unless startup enabled it. */
    int8_t lanes[16];
    vst1q_s8(lanes, vaddq_s8(vdupq_n_s8(3), vdupq_n_s8(4)));
    printf("mve %d\n", lanes[15]);
#endif
    return 3;
}
"""

REGIONS = r"""
#include "harness.h"

int main(void)
{
    volatile int sink = 0;
    harness_region_begin();
    harness_region_end();
    for (int n = 100; n <= 200; n += 100) {
        harness_region_begin();
        for (int i = 0; i < n; ++i) {
            sink = sink + i;
        }
        harness_region_end();
    }
    return 0;
}
"""

FAULTS = r"""
#include <stdio.h>

int deep(volatile int *seen, int n);
int deep(volatile int *seen, int n)
{
    volatile int frame[1024];
    frame[0] = n;
    return n == 0 ? frame[0] : deep(seen, n - 1) + frame[0] + *seen;
}

int main(void)
{
    volatile int one = 1;
    printf("before the fault\n");
#ifdef OVERFLOW_STACK
    return deep(&one, 1 << 20);
#else
    __asm__ volatile("udf #7");
    return one;
#endif
}
"""

# MLPerf sizes: VWW int8 has ~300 KB of weights and ~100 KB of arena, AD float32 ~1 MB of weights.
LARGE = r"""
#include <stdint.h>

static const uint8_t weights[1280u * 1024u] = {1, 2, 3};
static uint8_t arena[768u * 1024u];

int main(void)
{
    volatile const uint8_t *w = weights;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < sizeof(arena); i += 4096u) {
        arena[i] = (uint8_t)(w[(i / 4096u) % 3u] + w[sizeof(weights) - 1u]);
    }
    for (uint32_t i = 0; i < sizeof(arena); i += 4096u) {
        sum += arena[i];
    }
    return sum == 2u * (sizeof(arena) / 4096u) ? 0 : 1; /* 1 + 2 + 3 per three pages */
}
"""


def build_and_run(tmp_path: Path, core: str, source: str, *defines: str, count: bool = False):
    main = tmp_path / "main.c"
    main.write_text(source)
    elf = cross_build_program([main], tmp_path / "build", core, extra_cflags=defines)
    return elf, run_qemu(elf, core, timeout=60, count=count)


@pytest.mark.parametrize("core", ALL_CORES)
def test_exit_status_and_printf_arrive(core, tmp_path):
    _, run = build_and_run(tmp_path, core, HELLO)
    assert run.returncode == 3, run
    assert "hello 42 1.41\n" in run.stdout
    if core == "m55":
        assert "mve 7\n" in run.stdout
    assert run.fault is None


@pytest.mark.parametrize("core", ALL_CORES)
def test_counted_regions_are_exact_and_repeatable(core, tmp_path):
    elf, first = build_and_run(tmp_path, core, REGIONS, count=True)
    second = run_qemu(elf, core, timeout=60)
    assert first.returncode == 0, first
    assert len(first.regions) == 3
    empty, hundred, two_hundred = first.regions
    assert empty == 0
    # A loop's count grows by the same per-iteration amount: a whole number of instructions.
    per_iteration, remainder = divmod(two_hundred - hundred, 100)
    assert remainder == 0 and 3 <= per_iteration <= 8, first.regions
    assert hundred >= 100 * per_iteration
    assert first.total is not None and first.total > sum(first.regions)
    assert second.regions == first.regions and second.total == first.total


@pytest.mark.parametrize("core", ALL_CORES)
def test_unexpected_exception_is_reported_with_its_number(core, tmp_path):
    _, run = build_and_run(tmp_path, core, FAULTS)
    assert run.returncode == 128 + 6, run  # UsageFault
    assert "before the fault\n" in run.stdout
    assert run.fault is not None and "UsageFault" in run.fault and "UNDEFINSTR" in run.fault


@pytest.mark.parametrize("core", ALL_CORES)
def test_stack_overflow_faults_instead_of_corrupting(core, tmp_path):
    _, run = build_and_run(tmp_path, core, FAULTS, "-DOVERFLOW_STACK")
    if core == "m55":  # MSPLIM
        assert run.returncode == 128 + 6 and "STKOF" in (run.fault or ""), run
    else:  # the MPU guard below the M4's stack
        assert run.returncode == 128 + 4 and "MemManage" in (run.fault or ""), run


def test_a_hung_program_times_out_with_status_124(tmp_path):
    """The timeout is host-side, so one core covers it."""
    main = tmp_path / "main.c"
    main.write_text('#include <stdio.h>\nint main(void) { printf("spinning\\n"); for (;;) { } }\n')
    elf = cross_build_program([main], tmp_path / "build", "m4")
    run = run_qemu(elf, "m4", timeout=1)
    assert run.timed_out and run.returncode == 124, run
    assert run.stdout == "spinning\n"
    assert run.total is not None and run.total > 1000  # SIGTERM still let the plugin report


@pytest.mark.parametrize("core", ALL_CORES)
def test_mlperf_sized_weights_and_arenas_link_and_run(core, tmp_path):
    elf, run = build_and_run(tmp_path, core, LARGE)
    assert run.returncode == 0, run
    sizes = size_of(elf)
    assert sizes["text"] >= 1280 * 1024 and sizes["bss"] >= 768 * 1024


# ---- generated modules ---------------------------------------------------------------------------


def convert_corpus_model(name: str, out: Path, *, tolerance: float, customizers=()) -> Path:
    """Convert one corpus model with its golden self test (refusing an uninformative golden)."""
    require_informative(name)
    entry = next(e for e in manifest() if e["name"] == name)
    out.mkdir(parents=True, exist_ok=True)
    golden = corpus_golden_to_npz(golden_path(entry), out / "golden.npz")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model_path(entry))},
            "module": {"path": str(out / "module"), "name": name},
            "test": {"enabled": True, "golden_data": str(golden), "tolerance": tolerance},
        }
    )
    result = AotConverter(config, build_default_registry_context(customizers=list(customizers))).convert()
    return Path(result.output)


@pytest.fixture(scope="module")
def relu_module(tmp_path_factory) -> Path:
    return convert_corpus_model("relu_float32", tmp_path_factory.mktemp("relu"), tolerance=0.0)


@pytest.mark.parametrize("core", ALL_CORES)
def test_generated_module_passes_its_golden_test_on_target(core, relu_module, tmp_path):
    elf = cross_build_module(relu_module, tmp_path, core)
    run = run_qemu(elf, core, timeout=60)
    assert run.passed, run
    assert "aot_test_case: PASS (3 sample(s)" in run.stdout
    assert len(run.regions) == 1 and run.regions[0] > 3 * 256  # three samples of 256 elements
    size = module_size(elf)
    assert size.text > 0 and size.bss >= 2 * 256 * 4  # input and output tensors live in the arena
    with_test = module_size(elf, exclude=())
    assert with_test.rodata >= size.rodata + 2 * 3 * 256 * 4  # golden inputs and outputs


@pytest.fixture(scope="module")
def kws_module(tmp_path_factory) -> Path:
    """The KWS int8 probe: every layer's output is a model output, the class scores and the logits
    they are made from among them (which the planner must keep apart: the SOFTMAX may not write in
    place over logits the caller reads)."""
    return convert_corpus_model("mlperf_kws_dscnn_int8_probe", tmp_path_factory.mktemp("kws"), tolerance=0.0)


@pytest.mark.parametrize("core", ALL_CORES)
def test_kws_int8_probe_matches_reference_on_target(core, kws_module, tmp_path):
    elf = cross_build_module(kws_module, tmp_path, core)
    run = run_qemu(elf, core, timeout=120)
    assert run.passed, run
    assert module_size(elf).flash > 20_000  # the DS-CNN's weights are in the module
