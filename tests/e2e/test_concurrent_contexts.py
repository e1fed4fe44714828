"""Two contexts of one module run at once in two threads, under ThreadSanitizer.

A module generated with ``memory.allocate_arenas: false`` keeps no mutable state of its own: the
application binds the arena buffers (``<prefix>_bind_arenas``) and ``<prefix>_model_init`` takes the
bound buffers' addresses into the context, so binding other buffers before initialising a second
context gives each context its own, and two contexts may run in two threads at the same time. Cold
constants stay one read-only copy (the module's ``__blob.bin``) that both contexts share. Any static
the kernels or the generated code wrote to would make that a data race. The program here runs every
sample once in one thread, then the same samples in two threads at once, each thread with its own
context and buffers, and checks under ``-fsanitize=thread`` that nothing races and every thread's
outputs equal the single-thread run's and the LiteRT reference's, byte for byte.

ResNet-8 int8 is the model: its outputs depend on its input (the MLPerf KWS/VWW weights are
untrained and answer the same for every input), and it has residual ADDs, convolutions, pooling,
FULLY_CONNECTED and SOFTMAX. The same program with both contexts bound to one buffer, a deliberately
broken setup, must be reported as a race: that proves the check can fail.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import build_module, corpus_golden_to_npz

from .corpus import golden_path, manifest, model_path
from .hostile_inputs import add_hostile_samples

MODEL = "mlperf_ic_resnet8_int8"
PREFIX = "rn"
ROUNDS = 1
"""How often each thread runs every sample (the single-thread run too); one already overlaps."""

MAIN = r"""
#define _POSIX_C_SOURCE 200112L /* pthread barriers under -std=c99 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "{prefix}_model.h"

#define SAMPLES {samples}
#define IN_BYTES {in_bytes}
#define OUT_BYTES {out_bytes}
#define ROUNDS {rounds}

static const uint8_t sample_inputs[SAMPLES][IN_BYTES] = {{ {inputs} }};
static const uint8_t reference_outputs[SAMPLES][OUT_BYTES] = {{ {outputs} }};
{blobs}

typedef struct {{
    {prefix}_model_context_t ctx;
{arena_fields}
    uint8_t outputs[SAMPLES][OUT_BYTES];
    int32_t status;
}} worker_t;

static worker_t single, workers[2];
static pthread_barrier_t start;

static int32_t bind(worker_t *w, worker_t *owner)
{{
    void * const buffers[{prefix}_num_arena_buffers] = {{
{bindings}
    }};
    int32_t status = {prefix}_bind_arenas(buffers, {prefix}_arena_sizes, (size_t){prefix}_num_arena_buffers);
    (void)owner;
    memset(&w->ctx, 0, sizeof(w->ctx));
    return status != 0 ? status : {prefix}_model_init(&w->ctx);
}}

static int32_t run_all(worker_t *w)
{{
    for (int round = 0; round < ROUNDS; ++round) {{
        for (int s = 0; s < SAMPLES; ++s) {{
            uint32_t at = 0;
            for (int32_t i = 0; i < {prefix}_num_inputs; ++i) {{
                memcpy(w->ctx.inputs[i].data, &sample_inputs[s][at], w->ctx.inputs[i].size);
                at += w->ctx.inputs[i].size;
            }}
            int32_t status = {prefix}_model_run(&w->ctx);
            if (status != 0) return status;
            at = 0;
            for (int32_t j = 0; j < {prefix}_num_outputs; ++j) {{
                memcpy(&w->outputs[s][at], w->ctx.outputs[j].data, w->ctx.outputs[j].size);
                at += w->ctx.outputs[j].size;
            }}
        }}
    }}
    return 0;
}}

static void *thread_main(void *arg)
{{
    worker_t *w = (worker_t *)arg;
    pthread_barrier_wait(&start);
    w->status = run_all(w);
    return NULL;
}}

int main(void)
{{
    int32_t status = bind(&single, &single);
    if (status == 0) status = run_all(&single);
    if (status != 0) {{ printf("single-thread run failed: %ld\n", (long)status); return 1; }}
    if (memcmp(single.outputs, reference_outputs, sizeof(reference_outputs)) != 0) {{
        printf("single-thread outputs differ from the reference\n");
        return 2;
    }}
    for (int t = 0; t < 2; ++t) {{
#ifdef SHARE_ARENAS
        status = bind(&workers[t], &workers[0]);  /* deliberately broken: one buffer, two contexts */
#else
        status = bind(&workers[t], &workers[t]);
#endif
        if (status != 0) {{ printf("binding context %d failed: %ld\n", t, (long)status); return 3; }}
    }}
    pthread_t threads[2];
    pthread_barrier_init(&start, NULL, 2);
    for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, thread_main, &workers[t]);
    for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < 2; ++t) {{
        if (workers[t].status != 0) {{
            printf("thread %d failed: %ld\n", t, (long)workers[t].status);
            return 4;
        }}
        if (memcmp(workers[t].outputs, single.outputs, sizeof(single.outputs)) != 0) {{
            printf("thread %d outputs differ from the single-thread run\n", t);
            return 5;
        }}
    }}
    printf("CONCURRENT PASS: 2 threads x %d round(s) x %d sample(s)\n", ROUNDS, SAMPLES);
    return 0;
}}
"""

_REGION = re.compile(rf"^\s*({PREFIX}_arena_(\w+)) = (\d+),", re.MULTILINE)


def _c_bytes(rows: list[bytes]) -> str:
    return ", ".join("{" + ", ".join(str(b) for b in row) + "}" for row in rows)


def _main_source(module: Path, samples: list[tuple[list[np.ndarray], list[np.ndarray]]]) -> str:
    """The program, with the samples and the arena regions the application must bind."""
    header = (module / "includes-api" / f"{PREFIX}_tensors.h").read_text()
    assert f"{PREFIX}_bind_arenas" in header, "not generated with memory.allocate_arenas: false"
    regions = sorted(_REGION.findall(header), key=lambda r: int(r[2]))
    assert regions, "the module declares no arena region"
    writable = [(enum, name) for enum, name, _ in regions if not name.startswith("const_")]
    fields = "\n".join(
        f"    uint8_t arena_{name}[{enum}_size] {PREFIX.upper()}_ALIGNED({enum}_alignment);"
        for enum, name in writable
    )
    blobs = "\n".join(
        f"static const uint8_t blob_{name}[{enum}_size] {PREFIX.upper()}_ALIGNED({enum}_alignment) = {{ "
        + ", ".join(str(b) for b in (module / f"{enum}__blob.bin").read_bytes())
        + " };"
        for enum, name, _ in regions
        if name.startswith("const_")
    )
    bindings = "\n".join(
        f"        (void *)(uintptr_t)blob_{name},"
        if name.startswith("const_")
        else f"        owner->arena_{name},"
        for _, name, _ in regions
    )
    ins = [b"".join(np.ascontiguousarray(x).tobytes() for x in i) for i, _ in samples]
    outs = [b"".join(np.ascontiguousarray(y).tobytes() for y in o) for _, o in samples]
    return MAIN.format(
        prefix=PREFIX,
        samples=len(samples),
        in_bytes=len(ins[0]),
        out_bytes=len(outs[0]),
        rounds=ROUNDS,
        inputs=_c_bytes(ins),
        outputs=_c_bytes(outs),
        arena_fields=fields,
        bindings=bindings,
        blobs=blobs,
    )


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> tuple[Path, str]:
    """ResNet-8 int8 converted with application arenas, and the program's source."""
    work = tmp_path_factory.mktemp("concurrent")
    entry = next(e for e in manifest() if e["name"] == MODEL)
    golden = corpus_golden_to_npz(golden_path(entry), work / "golden.npz")
    add_hostile_samples(entry, model_path(entry), golden)
    with np.load(golden) as data:
        count = data["input_0"].shape[0]
        samples = [
            (
                [data[f"input_{i}"][s] for i in range(len(entry["inputs"]))],
                [data[f"output_{j}"][s] for j in range(len(entry["outputs"]))],
            )
            for s in range(count)
        ]
    outputs = np.stack([o[0] for _, o in samples])
    assert len({row.tobytes() for row in outputs}) > 1, "the samples must not all give one output"
    result = AotConverter(
        ConvertArgs.model_validate(
            {
                "model": {"path": str(model_path(entry))},
                "module": {"path": str(work / "out"), "name": PREFIX, "prefix": PREFIX},
                "memory": {"allocate_arenas": False},
            }
        )
    ).convert()
    return Path(result.output), _main_source(Path(result.output), samples)


def _run_under_tsan(module: Path, source: str, build: Path, *defines: str) -> subprocess.CompletedProcess:
    exe = build_module(
        module,
        build,
        prefix=PREFIX,
        main_source=source,
        sanitize=False,
        extra_cflags=("-O2", "-fsanitize=thread", "-pthread", *(f"-D{d}" for d in defines)),
    )
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1:exitcode=66:report_signal_unsafe=0")
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)


def test_two_contexts_run_at_once_without_a_race(program, tmp_path):
    module, source = program
    run = _run_under_tsan(module, source, tmp_path / "build")
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert "ThreadSanitizer" not in run.stderr, run.stderr[-4000:]
    assert f"CONCURRENT PASS: 2 threads x {ROUNDS} round(s) x 7 sample(s)" in run.stdout


def test_contexts_sharing_one_arena_are_reported(program, tmp_path):
    """The deliberate break: both contexts bound to one buffer. TSan must report the race."""
    module, source = program
    run = _run_under_tsan(module, source, tmp_path / "build", "SHARE_ARENAS")
    assert run.returncode != 0, run.stdout
    assert "WARNING: ThreadSanitizer: data race" in run.stderr, run.stderr[-4000:]
