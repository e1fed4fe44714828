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
_REGION = re.compile(r"#define (\w+)_ID (\d+) /\* (\w+) in \w+(.*?)\*/")

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
    EXPECT(aot_bind_arena(NULL, 0, NULL, 0u), aot_status_null_context);
    EXPECT(aot_bind_arenas(NULL, NULL, 0), aot_status_null_context);
    EXPECT(aot_model_run(&ctx), aot_status_not_initialized);
    EXPECT(aot_bind_arena(&ctx, -1, NULL, 0u), aot_status_bad_arena_id);
    EXPECT(aot_bind_arena(&ctx, aot_num_arenas, NULL, 0u), aot_status_bad_arena_id);
{checks}
    EXPECT(aot_model_init(&ctx), aot_status_ok);
    EXPECT(aot_model_run(&ctx), aot_status_ok);
    return aot_test_case_run(0) == 0 ? (printf("PASS\\n"), 0) : 1;
}}
"""


def regions(module: Path) -> list[tuple[str, int, str, bool]]:
    """(macro, id, role, must be bound) of every arena region the public header lists."""
    header = (module / "includes-api" / "aot_model.h").read_text()
    return [(m[1], int(m[2]), m[3], "bind" in m[4]) for m in _REGION.finditer(header)]


def harness(module: Path, allocate: bool) -> str:
    buffers, checks = [], []
    for macro, _, role, bind in regions(module):
        if role == "constant":
            checks.append(f"    EXPECT(aot_bind_arena(&ctx, {macro}_ID, NULL, 0u), aot_status_bad_arena_id);")
            continue
        if not bind:
            continue
        buf = f"buf_{macro.lower()}"
        buffers.append(
            f"static uint8_t {buf}[{macro}_SIZE + {macro}_ALIGNMENT] "
            f"__attribute__((aligned({macro}_ALIGNMENT)));"
        )
        checks += [
            f"    EXPECT(aot_bind_arena(&ctx, {macro}_ID, NULL, {macro}_SIZE), aot_status_arena_unbound);",
            f"    EXPECT(aot_bind_arena(&ctx, {macro}_ID, {buf}, {macro}_SIZE - 1u),"
            " aot_status_arena_too_small);",
            f"    if ({macro}_ALIGNMENT > 1u) {{",
            f"        EXPECT(aot_bind_arena(&ctx, {macro}_ID, {buf} + 1, {macro}_SIZE),"
            " aot_status_arena_misaligned);",
            "    }",
            f"    {{ const aot_arena_binding_t small = {{{macro}_ID, {buf}, {macro}_SIZE - 1u}};",
            "      EXPECT(aot_bind_arenas(&ctx, &small, 1), aot_status_arena_too_small); }",
            "    EXPECT(aot_bind_arenas(&ctx, NULL, 0), aot_status_arena_unbound);",
            "    EXPECT(aot_model_init(&ctx), aot_status_arena_unbound);",
            "    EXPECT(aot_model_run(&ctx), aot_status_not_initialized); /* init failed */",
            f"    {{ const aot_arena_binding_t ok = {{{macro}_ID, {buf}, {macro}_SIZE}};",
            "      EXPECT(aot_bind_arenas(&ctx, &ok, 1), aot_status_ok); }",
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
            "test": {"enabled": True, "samples": 2},
        }
    )
    module = AotConverter(config).convert().output
    exe = build_module(module, tmp_path / "build", main_source=harness(module, allocate))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="halt_on_error=1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("PASS"), proc.stdout + proc.stderr[-3000:]
