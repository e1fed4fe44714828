"""The generated module defends itself: misuse returns a status code, never touches memory it must not.

A C harness calls the module's API the wrong way (a NULL context, run before init, run after a
failed init, arenas left unbound, too small, misaligned or given a bad region id) and checks each
status, then uses it correctly and checks the outputs against the golden self test. Built with
``-Wall -Wextra -Werror`` under ASan/UBSan, so a stray access fails the test too.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import build_module

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "fc_64x32_relu_int8.tflite"
_REGION = re.compile(r"^    (aot_arena_\w+) = (\d+), /\* (\w+) in \w+", re.MULTILINE)

_HARNESS = """#include <stdint.h>
#include <stdio.h>
#include "aot_model.h"
#include "aot_test_case.h"

#define EXPECT(expr, want) do {{ const int32_t got_ = (expr); if (got_ != (int32_t)(want)) {{ \\
    printf("FAIL line %d: %s returned %ld, expected %ld\\n", __LINE__, #expr, (long)got_, (long)(want)); \\
    return 1; }} }} while (0)

static aot_model_context_t ctx; /* zero-initialized, as the API asks */
{buffers}

int main(void)
{{
    EXPECT(aot_model_init(NULL), aot_status_null_context);
    EXPECT(aot_model_run(NULL), aot_status_null_context);
    EXPECT(aot_context_init(NULL), aot_status_null_context);
    EXPECT(aot_model_run(&ctx), aot_status_not_initialized);
{checks}
    EXPECT(aot_model_init(&ctx), aot_status_ok);
    EXPECT(aot_model_run(&ctx), aot_status_ok);
    EXPECT(aot_test_case_init(), aot_status_ok);
    return aot_test_case_run() == 0 ? (printf("PASS\\n"), 0) : 1;
}}
"""


def regions(module: Path) -> list[tuple[str, int, str]]:
    """(enumerator, id, role) of every arena region ``aot_arena_region_t`` lists."""
    header = (module / "includes-api" / "aot_tensors.h").read_text()
    return [(m[1], int(m[2]), m[3]) for m in _REGION.finditer(header)]


def _c_bytes(data: bytes) -> str:
    return ", ".join(str(b) for b in data)


def harness(module: Path, allocate: bool) -> str:
    """Misuse checks for a module; with external arenas every region is bound, cold constant regions
    to a copy of their ``__blob.bin`` sidecar as an application would link it."""
    buffers, checks = [], []
    if not allocate:
        checks += [
            "    EXPECT(aot_bind_arena((aot_arena_region_t)aot_num_arena_buffers, NULL, 0u),"
            " aot_status_bind_unknown_region);",
            "    EXPECT(aot_bind_arenas(NULL, NULL, 0u), aot_status_bind_bulk_null_argument);",
            "    EXPECT(aot_model_init(&ctx), aot_status_context_arena_unbound);",
            "    EXPECT(aot_model_run(&ctx), aot_status_not_initialized); /* init failed */",
        ]
    for name, _, role in regions(module) if not allocate else []:
        buf = f"buf_{name}"
        if role == "constant":
            data = (module / f"{name}__blob.bin").read_bytes()
            buffers.append(
                f"static const uint8_t {buf}[{len(data)}] __attribute__((aligned({name}_alignment))) = "
                f"{{{_c_bytes(data)}}};"
            )
            checks.append(
                f"    EXPECT(aot_bind_arena({name}, (void *)(uintptr_t){buf}, sizeof({buf})), aot_status_ok);"
            )
            continue
        buffers.append(
            f"static uint8_t {buf}[{name}_size + {name}_alignment]"
            f" __attribute__((aligned({name}_alignment)));"
        )
        checks += [
            f"    EXPECT(aot_bind_arena({name}, NULL, {name}_size), aot_status_bind_null_buffer);",
            f"    EXPECT(aot_bind_arena({name}, {buf}, {name}_size - 1u), aot_status_bind_undersized);",
            f"    if ({name}_alignment > 1u) {{",
            f"        EXPECT(aot_bind_arena({name}, {buf} + 1, {name}_size), aot_status_bind_misaligned);",
            "    }",
            f"    EXPECT(aot_bind_arena({name}, {buf}, {name}_size), aot_status_ok);",
        ]
    assert allocate or buffers, "a module without allocated arenas has regions to bind"
    return _HARNESS.format(buffers="\n".join(buffers), checks="\n".join(checks))


@pytest.mark.parametrize("allocate", [True, False], ids=["allocated", "bound"])
def test_misuse_returns_status_codes(tmp_path, allocate):
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(MODEL)},
            "module": {"path": str(tmp_path / "out"), "name": "m"},
            "memory": {"allocate_arenas": allocate},
            "test": {"enabled": True, "samples": 2, "tolerance": 0.0},
        }
    )
    module = AotConverter(config).convert().output
    exe = build_module(module, tmp_path / "build", main_source=harness(module, allocate))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="halt_on_error=1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("PASS"), proc.stdout + proc.stderr[-3000:]
