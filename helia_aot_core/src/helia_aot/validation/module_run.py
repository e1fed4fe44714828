"""Run a converted module on a dataset and read back every output, on the host or under QEMU.

The self-test (``<prefix>_test_case_run``) compares inside the module and prints verdicts, not
values; validation needs the values, so it builds the module with a ``main`` of its own: the
samples as byte arrays (copied into ``ctx->inputs`` as an application writes them), one
``model_run`` per sample in order on one context (state carries over as it does on a device and
in the interpreter), and every output printed as hex. The build and the run are ``helia-aot
test``'s (:func:`helia_aot.cli.selftest.build_and_run`'s compilers and flags:
``helia_aot.testing.host.build_module`` with gcc, ``helia_aot.testing.cross`` with
arm-none-eabi-gcc and QEMU). Samples go in batches whose inputs fit the emulated board's memory
(the host takes bigger ones); each batch is a build and a run.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from helia_aot.errors import SelfTestBuildError

BATCH_BYTES = {"host": 8 << 20, "m55": 1 << 20, "m4": 192 << 10}
"""Input bytes per build: the M4 board (mps2-an386) has 512 KiB for code and constants together."""

HOST_TIMEOUT = 600.0
QEMU_TIMEOUT = 1800.0

_MAIN_HEAD = """/* main.c: helia-aot validate's runner: each sample through the module, each output as hex. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "{prefix}_model.h"

#define VALIDATE_SAMPLES {samples}
"""

_MAIN_BODY = """
static {prefix}_model_context_t validate_ctx;

/* One output's bytes as one line: "out <sample> <output> <hex>". */
static void validate_print(int32_t sample, int32_t output, const int8_t *data, size_t size)
{{
    size_t i;
    printf("out %ld %ld ", (long)sample, (long)output);
    for (i = 0u; i < size; ++i) {{
        printf("%02x", (unsigned int)(uint8_t)data[i]);
    }}
    printf("\\n");
}}

int main(void)
{{
    int32_t sample;
    int32_t status = {prefix}_model_init(&validate_ctx);
    if (status != 0) {{
        printf("validate: init failed with status %ld\\n", (long)status);
        return 1;
    }}
    for (sample = 0; sample < VALIDATE_SAMPLES; ++sample) {{
{copies}        status = {prefix}_model_run(&validate_ctx);
        if (status != 0) {{
            printf("validate: sample %ld: run failed with status %ld\\n", (long)sample, (long)status);
            return 1;
        }}
{prints}    }}
    printf("validate: done\\n");
    return 0;
}}
"""


def runner_source(prefix: str, inputs: Sequence[np.ndarray], outputs: int) -> str:
    """The runner's ``main.c`` for ``inputs`` (one ``(samples, *shape)`` array per input, in the
    module's byte layout) and a module with ``outputs`` outputs."""
    samples = int(inputs[0].shape[0]) if inputs else 1
    parts = [_MAIN_HEAD.format(prefix=prefix, samples=samples)]
    copies = []
    for i, array in enumerate(inputs):
        rows = np.ascontiguousarray(array).reshape(samples, -1).view(np.uint8)
        nbytes = rows.shape[1]
        body = ",\n".join("    {" + ", ".join(map(str, row.tolist())) + "}" for row in rows)
        parts.append(
            f"\nstatic const uint8_t validate_input_{i}[VALIDATE_SAMPLES][{max(nbytes, 1)}] = "
            f"{{\n{body}\n}};\n"
        )
        copies.append(
            f"        memcpy(validate_ctx.inputs[{i}].data, validate_input_{i}[sample], {nbytes}u);\n"
        )
    prints = "".join(
        f"        validate_print(sample, {j}, validate_ctx.outputs[{j}].data, "
        f"validate_ctx.outputs[{j}].size);\n"
        for j in range(outputs)
    )
    parts.append(_MAIN_BODY.format(prefix=prefix, copies="".join(copies), prints=prints))
    return "".join(parts)


def batches(inputs: Sequence[np.ndarray], target: str) -> list[tuple[int, int]]:
    """``(start, stop)`` sample ranges whose inputs fit one build for ``target``."""
    samples = int(inputs[0].shape[0]) if inputs else 1
    per_sample = max(1, sum(int(a[0].nbytes) for a in inputs) if inputs and samples else 1)
    step = max(1, BATCH_BYTES.get(target, BATCH_BYTES["m4"]) // per_sample)
    return [(start, min(start + step, samples)) for start in range(0, samples, step)]


def parse_outputs(
    text: str, samples: int, dtypes: Sequence[np.dtype], shapes: Sequence[tuple[int, ...]]
) -> list[np.ndarray]:
    """The runner's ``out`` lines as one ``(samples, *shape)`` array per output."""
    found: dict[tuple[int, int], bytes] = {}
    for line in text.splitlines():
        if line.startswith("out "):
            _, sample, output, data = (line.split() + [""])[:4]
            found[(int(sample), int(output))] = bytes.fromhex(data)
    result = []
    for j, (dtype, shape) in enumerate(zip(dtypes, shapes)):
        rows = []
        for s in range(samples):
            if (s, j) not in found:
                raise SelfTestBuildError(
                    f"the validation run printed no output {j} for sample {s}:\n{text[-2000:]}",
                    hint="this is a bug in helia-aot or a plugin; rerun with --keep-work-dir and report it",
                )
            rows.append(np.frombuffer(found[(s, j)], dtype=dtype).reshape(shape))
        result.append(np.stack(rows))
    return result


def run_module(
    module_dir: Path,
    build_dir: Path,
    prefix: str,
    target: str,
    inputs: Sequence[np.ndarray],
    dtypes: Sequence[np.dtype],
    shapes: Sequence[tuple[int, ...]],
    *,
    advance: Callable[[int], None] | None = None,
) -> list[np.ndarray]:
    """Every output of the module for every sample of ``inputs`` (``(samples, *shape)`` arrays),
    run on ``target`` (host, m55, m4); ``advance(n)`` is called after each batch of ``n`` samples."""
    collected: list[list[np.ndarray]] = [[] for _ in shapes]
    for number, (start, stop) in enumerate(batches(inputs, target)):
        batch = [a[start:stop] for a in inputs]
        source = runner_source(prefix, batch, len(shapes))
        text = _build_and_run(module_dir, build_dir / f"batch{number}", prefix, target, source)
        for j, values in enumerate(parse_outputs(text, stop - start, dtypes, shapes)):
            collected[j].append(values)
        if advance is not None:
            advance(stop - start)
    return [np.concatenate(parts) for parts in collected]


_BUG_HINT = "this is a bug in helia-aot or a plugin; rerun with --keep-work-dir and report it"


def _build_and_run(module_dir: Path, build_dir: Path, prefix: str, target: str, source: str) -> str:
    """Build the module with the runner ``source`` as ``helia-aot test`` builds its self-test, run
    it, and return what it printed (SelfTestBuildError when it does not build or finish)."""
    from helia_aot.testing.run_targets import compiler_output

    if target == "host":
        from helia_aot.testing.host import build_module

        try:
            exe = build_module(
                module_dir,
                build_dir,
                prefix=prefix,
                main_source=source,
                sanitize=False,
                cc=os.environ.get("CC", "gcc"),
            )
        except subprocess.CalledProcessError as error:
            raise SelfTestBuildError(
                "the module and the validation runner did not compile with the host compiler:\n"
                + compiler_output(error),
                hint=_BUG_HINT,
            ) from error
        try:
            proc = subprocess.run(
                [str(exe)], capture_output=True, text=True, timeout=HOST_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired as error:
            raise SelfTestBuildError(
                f"the validation run did not finish within {HOST_TIMEOUT:.0f} s"
            ) from error
        if proc.returncode != 0 or "validate: done" not in proc.stdout:
            raise SelfTestBuildError(
                f"the validation run failed (exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-2000:]}",
                hint=_BUG_HINT,
            )
        return proc.stdout
    from helia_aot.testing import cross

    try:
        elf = cross.cross_build_module(module_dir, build_dir, target, prefix=prefix, main_source=source)
    except subprocess.CalledProcessError as error:
        raise SelfTestBuildError(
            f"the module and the validation runner did not compile for {target} with arm-none-eabi-gcc:\n"
            + compiler_output(error),
            hint=_BUG_HINT,
        ) from error
    run = cross.run_qemu(elf, target, timeout=QEMU_TIMEOUT, count=False)
    if run.returncode != 0 or "validate: done" not in run.stdout:
        why = (
            f"did not finish within {QEMU_TIMEOUT:.0f} s"
            if run.timed_out
            else (run.fault or f"ended with status {run.returncode}")
        )
        raise SelfTestBuildError(
            f"the validation run under QEMU ({target}) {why}:\n{run.stdout[-2000:]}", hint=_BUG_HINT
        )
    return run.stdout


__all__ = ["BATCH_BYTES", "batches", "parse_outputs", "run_module", "runner_source"]
