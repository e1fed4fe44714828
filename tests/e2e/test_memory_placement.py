"""Modules built with memory controls still match the reference, and the binding API reports misuse.

Two KWS modules cover the controls between them: one reorders memories with constraints, pins the
input (aligned) and reads the constants in place from SRAM, with CONV_2D code in ITCM; the other
spills scratch from a small DTCM into SRAM, stages the constants into SRAM and leaves every RAM
arena to the application (memory.allocate_arenas: false). Each runs the golden self test; the
second, built with ASan and UBSan, first exercises every status code of the binding functions.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import build_module, run_module_test_case

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "kws"


def convert(tmp_path: Path, memory: dict, **extra):
    config = {
        "model": {"path": str(EXAMPLE / "kws_int8_probe.tflite")},
        "module": {"path": str(tmp_path / "out"), "name": "kws"},
        "test": {
            "enabled": True,
            "golden_data": str(EXAMPLE / "kws_int8_probe_golden.npz"),
            "tolerance": 0.0,
        },
        "memory": {"dump_residency_json": True, **memory},
        **extra,
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    residency = json.loads((result.output / "aot_residency.json").read_text())
    return result, residency


def assert_readme_example_compiles(module: Path, tmp_path: Path) -> None:
    """The README's C example, which binds the arenas this module needs, is valid C."""
    readme = (module / "README.md").read_text()
    example = readme.split("```c\n", 1)[1].split("```", 1)[0]
    (tmp_path / "readme_example.c").write_text(example)
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            "-I",
            str(module / "includes-api"),
            str(tmp_path / "readme_example.c"),
        ],
        check=True,
    )


def arenas(residency) -> list[tuple[str, str]]:
    # The residency file names memories in lower case (the heliaAOT 1.1 shape).
    return sorted((role, a["memory"].upper()) for role, rows in residency["arenas"].items() for a in rows)


def test_constraints_pinning_and_cold_constants_match_the_reference(tmp_path):
    result, residency = convert(
        tmp_path,
        {
            "constraints": [
                {"memory": "sram", "max_bytes": "256KiB"},
                {"memory": "dtcm", "max_bytes": "64KiB"},
                {"memory": "mram", "max_bytes": "1MiB"},
            ],
            "tensors": [
                {"type": "constant", "attributes": {"memory": "sram"}},
                {"id": "0", "attributes": {"memory": "dtcm", "alignment": 64}},
            ],
        },
        operators=[{"type": "CONV_2D", "attributes": {"code_placement": "ITCM"}}],
    )
    assert arenas(residency) == [("constant", "SRAM"), ("scratch", "DTCM"), ("scratch", "SRAM")]
    tensor = {t["id"]: t for t in residency["tensors"]}
    assert tensor["0"]["memory"] == "dtcm" and tensor["0"]["offset"] % 64 == 0
    tensors_c = (result.output / "src" / "aot_tensors.c").read_text()
    assert "AOT_PUT_IN_DTCM" in tensors_c and "AOT_PUT_IN_SRAM" in tensors_c
    assert "AOT_PUT_IN_SRAM" in (result.output / "src" / "aot_constants_sram.c").read_text()
    assert_readme_example_compiles(result.output, tmp_path)
    run = run_module_test_case(result.output, tmp_path / "build", sanitize=False)
    assert run.passed, run.stdout + run.stderr[-3000:]

    # code_placement: ITCM puts every CONV_2D run function in the section the macro names.
    common = (result.output / "includes-api" / "aot_common.h").read_text()
    conv_sources = sorted((result.output / "src").glob("aot_conv_2d_*.c"))
    assert len(conv_sources) == 5 and common.count("AOT_PUT_CODE_IN_ITCM;") == 5
    obj = tmp_path / "conv.o"
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-c",
            str(conv_sources[0]),
            "-I",
            str(result.output / "includes-api"),
            "-I",
            str(result.output / "src" / "kernels"),
            '-DAOT_PUT_CODE_IN_ITCM=__attribute__((section(".itcm_text")))',
            "-o",
            str(obj),
        ],
        check=True,
    )
    symbols = subprocess.run(["objdump", "-t", str(obj)], capture_output=True, text=True, check=True).stdout
    run_line = next(line for line in symbols.splitlines() if line.endswith(f"{conv_sources[0].stem}_run"))
    assert ".itcm_text" in run_line


def test_code_placement_on_a_platform_without_itcm_warns(tmp_path):
    with pytest.warns(UserWarning, match="has no ITCM"):
        result, _ = convert(
            tmp_path,
            {},
            platform={"name": "apollo4p_evb"},
            operators=[{"type": "CONV_2D", "attributes": {"code_placement": "ITCM"}}],
        )
    assert "PUT_CODE_IN_ITCM;" not in (result.output / "includes-api" / "aot_common.h").read_text()


BINDING_MAIN = """#include <stdio.h>
#include <string.h>
#include "aot_model.h"
#include "aot_test_case.h"

static uint8_t buffer[aot_arena_sram_size + 64] AOT_ALIGNED(64);

#define EXPECT(call, status) do { \\
    const int32_t got = (call); \\
    if (got != (status)) { \\
        printf("%s returned %ld, expected %ld\\n", #call, (long)got, (long)(status)); \\
        return 1; \\
    } \\
} while (0)

int main(void)
{
    aot_model_context_t ctx;
    void *buffers[aot_num_arena_buffers] = {0};
    size_t sizes[aot_num_arena_buffers] = {0};
    memset(&ctx, 0, sizeof(ctx));
    EXPECT(aot_model_init(&ctx), aot_status_context_arena_unbound);
    EXPECT(aot_model_run(&ctx), aot_status_not_initialized);
    EXPECT(aot_bind_arena((aot_arena_region_t)aot_num_arena_buffers, buffer, sizeof(buffer)),
           aot_status_bind_unknown_region);
    EXPECT(aot_bind_arena(aot_arena_dtcm, NULL, sizeof(buffer)), aot_status_bind_null_buffer);
    EXPECT(aot_bind_arena(aot_arena_dtcm, buffer, aot_arena_dtcm_size - 1u), aot_status_bind_undersized);
    EXPECT(aot_bind_arena(aot_arena_dtcm, buffer + 1, aot_arena_dtcm_size), aot_status_bind_misaligned);
    EXPECT(aot_bind_arenas(NULL, sizes, aot_num_arena_buffers), aot_status_bind_bulk_null_argument);
    EXPECT(aot_bind_arenas(buffers, sizes, 1), aot_status_bind_bulk_wrong_count);
    buffers[aot_arena_dtcm] = buffer;
    sizes[aot_arena_dtcm] = aot_arena_dtcm_size;
    EXPECT(aot_bind_arenas(buffers, sizes, aot_num_arena_buffers), aot_status_bind_null_buffer);
    EXPECT(aot_bind_arena(aot_arena_sram, buffer + 8, aot_arena_sram_size), aot_status_bind_misaligned);
    EXPECT(aot_model_init(&ctx), aot_status_context_arena_unbound);
    printf("binding statuses ok\\n");
    EXPECT(aot_test_case_init(), aot_status_ok);
    return aot_test_case_run() == 0 ? 0 : 1;
}
"""


def test_spill_staging_and_application_arenas_match_the_reference(tmp_path):
    result, residency = convert(
        tmp_path,
        {
            "allocate_arenas": False,
            "constraints": [
                {"memory": "dtcm", "max_bytes": 10000},
                {"memory": "sram", "max_bytes": "128KiB"},
            ],
            "tensors": [{"type": "constant", "attributes": {"constant_destination_memory": "sram"}}],
        },
    )
    # The residency lists the regions the application binds: the MRAM region that only stores the
    # staged bytes is none of them.
    assert arenas(residency) == [("constant", "SRAM"), ("scratch", "DTCM"), ("scratch", "SRAM")]
    dtcm = residency["arenas"]["scratch"][0]
    assert dtcm["memory"] == "dtcm" and dtcm["reserved_size"] <= 10000
    # The C regions are the product's: the MRAM region only stores the staged bytes, so it is the
    # staged region's __source array (and sidecar), not a region the application binds.
    tensors_h = (result.output / "includes-api" / "aot_tensors.h").read_text()
    assert "aot_arena_dtcm = 0" in tensors_h and "aot_arena_sram = 1" in tensors_h
    assert "aot_arena_const_sram = 2" in tensors_h and "aot_num_arena_buffers = 3" in tensors_h
    assert "AOT_ARENA_CONSTANT_SRAM_FROM_MRAM_ID 2" in tensors_h
    tensors_c = (result.output / "src" / "aot_tensors.c").read_text()
    assert "static uint8_t aot_arena_" not in tensors_c  # the application provides every RAM arena
    assert (result.output / "aot_arena_const_sram__source.bin").stat().st_size > 0
    assert "aot_arena_const_sram__source" in (result.output / "src" / "aot_constants_mram.c").read_text()
    assert_readme_example_compiles(result.output, tmp_path)
    exe = build_module(result.output, tmp_path / "build", main_source=BINDING_MAIN, sanitize=True)
    proc = subprocess.run([str(exe)], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "binding statuses ok" in proc.stdout and "PASS" in proc.stdout
