"""One graph-fuzzer case: a random model converted, run on the host under ASan/UBSan, compared with LiteRT.

Case ``number`` of seed ``S`` draws its graph and its configuration (platform, memory planner,
optimization goal, kernel choice, schedule) from ``random.Random(f"{S}:{number}")``, so every case
is reproducible from those two numbers. The module is built with a harness of its own (not the
self-test, whose printed verdict is another matter): it reads input samples from a file, runs
them through ``<prefix>_model_run`` and writes every output's bytes to another file, which Python
compares with LiteRT's reference interpreter (BUILTIN_REF resolver):

- integer outputs bit for bit;
- float32 outputs within :data:`FLOAT32_ULP` units in the last place (the host build follows the
  reference's operation order, docs/on-target-testing.md);
- float16 outputs against the float32 twin within docs/float16.md's bound, taken over the chain
  of operators behind the output: ``(2 + 2 * depth) * 2**-11 * max(1, |r|)`` for a value of
  magnitude |r| reached through ``depth`` float16 operators (each rounds once, on terms kept near
  1 by the generator's weights).

:func:`shrink` cuts a failing graph down (operators replaced by model inputs, outputs dropped,
dead operators removed) while it still fails the same way, for a regression test.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import random
import signal
import subprocess
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import ReferenceExecutionError, UnsupportedModelError
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import pack_model
from helia_aot.litert.float32_twin import float32_twin
from helia_aot.testing import HOST_CFLAGS, SANITIZE_FLAGS, build_module, module_sources
from helia_aot.testing.host import printf_hook
from helia_aot.testing.object_cache import compile_object, is_kernel_source

from .random_graphs import Graph, Op, Tensor, random_graph

PREFIX = "gf"
SAMPLES = 2
"""Input samples each case runs through one context (the second run sees the first's leftovers)."""
FLOAT32_ULP = 0
"""Float32 outputs on the host: within this many ULP of the reference (measured: 0 over the runs)."""
FLOAT16_UNIT = 2.0**-11

PLANNERS = ("greedy", "greedy_by_size", "hill_climb")
GOALS = ("balanced", "latency", "size", "accuracy")
KERNELS = ("auto", "specialized", "generic")
SCHEDULES = ("table", "static")
PLATFORMS = ("apollo510_evb", "apollo4p_evb", "apollo3p_evb", "apollo330mp_evb")
FP16_PLATFORMS = ("apollo510_evb", "apollo330mp_evb")

HARNESS = """#include <stdio.h>
#include "{p}_model.h"

/* Reads samples (every input's bytes in order) from argv[1] and writes every output's bytes to
 * argv[2] after each run. */
int main(int argc, char **argv)
{{
    static {p}_model_context_t ctx;
    FILE *in;
    FILE *out;
    size_t i;
    if (argc != 3) return 2;
    in = fopen(argv[1], "rb");
    out = fopen(argv[2], "wb");
    if (in == NULL || out == NULL) return 2;
    if ({p}_model_init(&ctx) != 0) return 3;
    for (;;) {{
        for (i = 0; i < (size_t){p}_num_inputs; ++i) {{
            if (fread(ctx.inputs[i].data, 1, ctx.inputs[i].size, in) != ctx.inputs[i].size) break;
        }}
        if (i == 0) break;
        if (i < (size_t){p}_num_inputs) return 4;
        if ({p}_model_run(&ctx) != 0) return 5;
        for (i = 0; i < (size_t){p}_num_outputs; ++i) {{
            if (fwrite(ctx.outputs[i].data, 1, ctx.outputs[i].size, out) != ctx.outputs[i].size) return 6;
        }}
    }}
    fclose(in);
    return fclose(out) == 0 ? 0 : 7;
}}
"""


@dataclass(slots=True)
class Case:
    """A case's recipe: the graph and the configuration keys it converts with."""

    seed: int
    number: int
    graph: Graph
    config: dict[str, Any]

    def describe(self) -> dict[str, Any]:
        return {"seed": self.seed, "case": self.number, "config": self.config, "graph": self.graph.describe()}


@dataclass(slots=True)
class Verdict:
    """How a case ended. ``status``: ``ok``; ``mismatch`` (an output differs from LiteRT beyond its
    bound); ``error`` (the conversion raised an untyped or unexpected error, the C did not compile,
    the sanitizers or the module stopped the run); ``refused`` (a typed UnsupportedModelError: an
    operator variant the compiler declines, with its reason); ``invalid`` (LiteRT itself rejects
    the model: a generator bug); ``reference-crash`` (LiteRT's reference interpreter killed its
    process, so there is nothing to compare with: not a finding against the module). ``kind``
    names the failure for shrinking and grouping."""

    status: str
    kind: str = ""
    detail: str = ""
    seconds: float = 0.0
    worst: dict[str, float] = field(default_factory=dict)

    def same_failure(self, other: Verdict) -> bool:
        """Whether ``other`` is the same finding, for shrinking: any mismatch for a mismatch (a
        smaller graph has other outputs), the same kind of error for an error."""
        return self.status == other.status and (self.status == "mismatch" or self.kind == other.kind)


def draw_case(seed: int, number: int) -> Case:
    rng = random.Random(f"{seed}:{number}")
    graph = random_graph(rng)
    platforms = FP16_PLATFORMS if graph.dtype == "float16" else PLATFORMS
    config = {
        "platform": {"name": rng.choice(platforms)},
        "memory": {"planner": rng.choice(PLANNERS)},
        "optimization": {"goal": rng.choice(GOALS), "kernel": rng.choice(KERNELS)},
        "module": {"schedule": rng.choice(SCHEDULES)},
    }
    return Case(seed, number, graph, config)


def _inputs(graph: Graph, rng: np.random.Generator) -> list[np.ndarray]:
    values = []
    for i in graph.inputs:
        t = graph.tensors[i]
        if t.dtype in ("int8", "int16"):
            info = np.iinfo(np.dtype(t.dtype))
            values.append(rng.integers(info.min, int(info.max) + 1, size=t.shape).astype(t.dtype))
        else:
            values.append(rng.uniform(-1.0, 1.0, size=t.shape).astype(t.dtype))
    return values


class ReferenceCrashed(Exception):
    """LiteRT's reference interpreter killed the process it ran in (a failed check in one of its
    kernels aborts with SIGABRT): the reference has no answer for the model, which is no finding
    against the module."""


def reference(
    model: bytes, graph: Graph, samples: list[list[np.ndarray]], work: Path
) -> list[list[np.ndarray]]:
    """Each sample's outputs from LiteRT's reference kernels (a float16 model's float32 twin).

    The interpreter runs in a child process (``os.fork``): on some models it aborts (graph fuzzer
    cases 3:142 and 3:794), which in-process killed the bench's pool worker and left the run
    waiting for a result that never came. A child that dies raises :class:`ReferenceCrashed`; a
    ReferenceExecutionError (the model refused) comes back as itself."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, then leave without cleanup
        os.close(read)
        faulthandler.disable()  # an abort is the parent's to report, not a traceback dump
        try:
            answer: tuple[str, Any] = ("ok", _reference_here(model, graph, samples, work))
        except ReferenceExecutionError as exc:
            answer = ("refused", str(exc))
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
            answer = ("raised", "".join(traceback.format_exception(exc))[-2000:])
        with os.fdopen(write, "wb") as pipe:
            pipe.write(pickle.dumps(answer))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        how = (
            f"signal {signal.Signals(os.WTERMSIG(status)).name}"
            if os.WIFSIGNALED(status)
            else f"exit status {os.waitstatus_to_exitcode(status)}"
        )
        raise ReferenceCrashed(f"LiteRT's reference interpreter died of {how}")
    kind, value = pickle.loads(data)
    if kind == "refused":
        raise ReferenceExecutionError(value)
    if kind == "raised":
        raise RuntimeError(f"the reference run raised:\n{value}")
    return value


def _reference_here(
    model: bytes, graph: Graph, samples: list[list[np.ndarray]], work: Path
) -> list[list[np.ndarray]]:
    """:func:`reference` in this process."""
    path = work / "reference.tflite"
    path.write_bytes(every_tensor_an_output(float32_twin(model) if graph.dtype == "float16" else model))
    interpreter = create_interpreter(path)
    results = []
    kept = len(graph.outputs)
    for sample in samples:
        feed = [v.astype(np.float32) if v.dtype == np.float16 else v for v in sample]
        results.append([np.array(o) for o in interpreter.run(feed)[:kept]])
    return results


def every_tensor_an_output(model: bytes) -> bytes:
    """The model with every operator's output also a model output (after the real ones, so
    those keep their indices). LiteRT's interpreter then shares no buffer between tensors: its
    in-place optimization (RESHAPE / SQUEEZE sharing their input, an elementwise operator then
    writing over its input) overwrites a tensor another operator still reads, and the reference
    itself goes wrong (graph fuzzer case 2:94: a CONV_2D reading a RESHAPE whose SQUEEZE feeds an
    ADD)."""
    tree = litert.ModelT.InitFromPackedBuf(model, 0)
    sub = tree.subgraphs[0]
    outputs = [int(o) for o in sub.outputs]
    extra = [int(o) for op in sub.operators for o in op.outputs if int(o) >= 0 and int(o) not in outputs]
    sub.outputs = np.asarray(outputs + list(dict.fromkeys(extra)), np.int32)
    return pack_model(tree)


def _depths(graph: Graph) -> dict[int, int]:
    """Operators on the longest path from a model input to each tensor."""
    depth = {i: 0 for i in graph.inputs}
    for op in graph.ops:
        d = 1 + max((depth.get(i, 0) for i in op.inputs if i >= 0), default=0)
        for o in op.outputs:
            depth[o] = d
    return depth


def compare(graph: Graph, got: np.ndarray, want: np.ndarray, tensor: int) -> tuple[bool, float, str]:
    """Whether one output holds within its bound, its worst distance, and a description when not."""
    t: Tensor = graph.tensors[tensor]
    if t.dtype in ("int8", "int16", "int32", "int64"):
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        bad = int(np.count_nonzero(diff))
        return (
            bad == 0,
            float(diff.max(initial=0)),
            f"{bad}/{diff.size} values differ, largest by {diff.max(initial=0)}",
        )
    if t.dtype == "float32":
        a, b = got.astype(np.float32), want.astype(np.float32)
        if np.array_equal(np.isnan(a), np.isnan(b)) and np.all(a[~np.isnan(a)] == b[~np.isnan(b)]):
            return True, 0.0, ""
        ulp = np.abs(_ordered(a) - _ordered(b))
        ulp[np.isnan(a) & np.isnan(b)] = 0
        worst = float(ulp.max())
        return (
            worst <= FLOAT32_ULP,
            worst,
            f"{int(np.count_nonzero(ulp))}/{ulp.size} values differ, worst {worst:.0f} ULP",
        )
    # float16 against the float32 twin
    depth = _depths(graph).get(tensor, 1)
    a, b = got.astype(np.float64), want.astype(np.float64)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    bound = (2 + 2 * depth) * FLOAT16_UNIT * scale
    err = np.abs(a - b)
    err[np.isnan(a) & np.isnan(b)] = 0
    err[np.isnan(a) ^ np.isnan(b)] = np.inf
    worst = float(err.max(initial=0.0))
    units = worst / (FLOAT16_UNIT * scale)
    return (
        worst <= bound,
        units,
        f"worst {worst:.3g} = {units:.1f} u*max(1,|r|), bound {2 + 2 * depth} (depth {depth})",
    )


def _ordered(x: np.ndarray) -> np.ndarray:
    """Float32 bit patterns as integers in value order (so a difference counts ULPs)."""
    bits = x.astype(np.float32).view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def run_case(case: Case, work: Path, *, samples: int = SAMPLES) -> Verdict:
    """Convert, build, run and compare one case in ``work`` (left for the caller to remove)."""
    start = time.perf_counter()
    verdict = _run(case.graph, case.config, work, samples, input_seed(case))
    verdict.seconds = time.perf_counter() - start
    return verdict


def graph_from_model(model: bytes) -> Graph:
    """What comparing needs of a model file (tensors' shapes and types, operators, inputs and
    outputs) read back from its bytes: a stored regression model is replayed through this."""
    tree = litert.ModelT.InitFromPackedBuf(model, 0)
    sub = tree.subgraphs[0]
    names = {v: k for k, v in vars(litert.TensorType).items() if not k.startswith("_")}
    ops = {v: k for k, v in vars(litert.BuiltinOperator).items() if not k.startswith("_")}
    tensors = [
        Tensor(
            tuple(int(n) for n in t.shape),
            names[t.type].lower(),
            None,
            None if t.buffer == 0 else np.empty(0),
        )
        for t in sub.tensors
    ]
    graph = Graph(
        "float16"
        if any(t.dtype == "float16" and t.data is None for t in tensors)
        else tensors[sub.outputs[0]].dtype,
        tensors,
        [
            Op(
                ops[
                    max(
                        int(tree.operatorCodes[op.opcodeIndex].builtinCode),
                        int(tree.operatorCodes[op.opcodeIndex].deprecatedBuiltinCode),
                    )
                ],
                [int(i) for i in op.inputs],
                [int(o) for o in op.outputs],
            )
            for op in sub.operators
        ],
        [int(i) for i in sub.inputs],
        [int(o) for o in sub.outputs],
    )
    return graph


def run_model(
    model: bytes, config: dict[str, Any], work: Path, *, samples: int = SAMPLES, seed: int = 0
) -> Verdict:
    """Convert, build, run and compare a stored model file (a regression) with ``config``."""
    return _run(graph_from_model(model), config, work, samples, seed, model)


def input_seed(case: Case) -> int:
    """The seed of a case's input samples (kept in a finding's record to replay it)."""
    return case.seed * 7919 + case.number


def _run(
    graph: Graph, config: dict[str, Any], work: Path, samples: int, seed: int, model: bytes | None = None
) -> Verdict:
    work.mkdir(parents=True, exist_ok=True)
    model = graph.to_bytes() if model is None else model
    (work / "model.tflite").write_bytes(model)
    rng = np.random.default_rng(seed)
    stimuli = [_inputs(graph, rng) for _ in range(samples)]
    try:
        expected = reference(model, graph, stimuli, work)
    except ReferenceExecutionError as exc:
        return Verdict("invalid", "reference", str(exc).splitlines()[0][:300])
    except ReferenceCrashed as exc:
        return Verdict("reference-crash", "reference", str(exc))
    try:
        result = convert(work / "model.tflite", work / "out", config)
    except UnsupportedModelError as exc:
        return Verdict("refused", type(exc).__name__, str(exc)[:400])
    except Exception as exc:  # noqa: BLE001 - every other failure of the conversion is a finding
        return Verdict(
            "error", f"convert:{type(exc).__name__}", "".join(traceback.format_exception(exc))[-2000:]
        )
    try:
        exe = build_harness(Path(result.output), work / "build")
    except subprocess.CalledProcessError as exc:
        return Verdict("error", "compile", (exc.stderr or "")[-2000:])
    feed = work / "inputs.bin"
    feed.write_bytes(b"".join(v.tobytes() for sample in stimuli for v in sample))
    produced = work / "outputs.bin"
    env = dict(
        os.environ,
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
    )
    try:
        proc = subprocess.run(
            [str(exe), str(feed), str(produced)], capture_output=True, text=True, timeout=60, env=env
        )
    except subprocess.TimeoutExpired:
        return Verdict("error", "timeout", "the module ran past 60 s")
    if proc.returncode != 0:
        kind = "sanitizer" if "Sanitizer" in proc.stderr or "runtime error" in proc.stderr else "run"
        return Verdict("error", kind, f"exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return _judge(graph, produced.read_bytes(), expected)


def _gcc(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd, proc.stdout, proc.stderr)


def build_harness(module: Path, build: Path) -> Path:
    """The module and :data:`HARNESS` built with the suite's host flags and sanitizers: the kernel
    library from compiled objects (helia_aot.testing.object_cache), every generated source in one
    gcc invocation (one translation unit including them all, which costs a quarter of compiling
    them one by one). Should that translation unit not compile (two sources defining one static
    name), the module is built file by file as ``build_module`` does, which decides."""
    build.mkdir(parents=True, exist_ok=True)
    flags = [
        *HOST_CFLAGS,
        *SANITIZE_FLAGS,
        printf_hook(PREFIX),
        "-I",
        str(module / "includes-api"),
        "-I",
        str(module / "src" / "kernels"),
    ]
    sources = module_sources(module)
    kernels = []
    for i, source in enumerate(sources):
        if is_kernel_source(source):
            kernels.append(build / f"k{i}_{source.stem}.o")
            compile_object(["gcc", *flags], source, kernels[-1], _gcc)
    unity = build / "generated.c"
    unity.write_text("".join(f'#include "{s}"\n' for s in sources if not is_kernel_source(s)))
    main = build / "harness.c"
    main.write_text(HARNESS.format(p=PREFIX))
    exe = build / "harness"
    try:
        _gcc(["gcc", *flags, str(unity), str(main), *map(str, kernels), "-o", str(exe), "-lm"])
    except subprocess.CalledProcessError:
        return build_module(module, build / "per-file", prefix=PREFIX, main_source=HARNESS.format(p=PREFIX))
    return exe


def _judge(graph: Graph, data: bytes, expected: list[list[np.ndarray]]) -> Verdict:
    wanted = len(expected) * sum(
        graph.tensors[o].size * np.dtype(graph.tensors[o].dtype).itemsize for o in graph.outputs
    )
    if len(data) != wanted:
        return Verdict("error", "output-size", f"the module wrote {len(data)} bytes, expected {wanted}")
    offset = 0
    failures = []
    worst: dict[str, float] = {}
    for s, sample in enumerate(expected):
        for j, want in enumerate(sample):
            tensor = graph.outputs[j]
            t = graph.tensors[tensor]
            dtype = np.dtype(t.dtype)
            count = int(np.prod(t.shape, dtype=np.int64))
            got = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(want.shape)
            offset += count * dtype.itemsize
            ok, distance, text = compare(graph, got, want, tensor)
            worst[t.dtype] = max(worst.get(t.dtype, 0.0), distance)
            if not ok:
                failures.append(f"sample {s} output {j} (t{tensor} {t.dtype}{list(t.shape)}): {text}")
    if failures:
        producer = _producers(graph)
        kinds = sorted({producer.get(graph.outputs[int(f.split()[3])], "?") for f in failures})
        return Verdict("mismatch", ",".join(kinds), "\n".join(failures[:8]), worst=worst)
    return Verdict("ok", worst=worst)


def _producers(graph: Graph) -> dict[int, str]:
    return {o: op.kind for op in graph.ops for o in op.outputs}


def convert(model: Path, out: Path, config: dict[str, Any]) -> Any:
    """Convert with the case's configuration (no self-test, no README: only the module)."""
    data: dict[str, Any] = {key: dict(v) if isinstance(v, dict) else v for key, v in config.items()}
    data["model"] = {"path": str(model)}
    data["module"] = {**data.get("module", {}), "path": str(out), "name": "module", "prefix": PREFIX}
    data["documentation"] = {"readme": False}
    data.update(force=True, verbose=0)
    return AotConverter(ConvertArgs.model_validate(data)).convert()


# ---------------------------------------------------------------------------------------------
# Shrinking


def _cut(graph: Graph, k: int) -> Graph | None:
    """The graph with operator ``k`` replaced by a model input of its output (upstream pruned)."""
    g = graph.copy()
    op = g.ops[k]
    if len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    del g.ops[k]
    g.inputs.append(out)
    g.outputs = [o for o in g.outputs if o != out]
    if not g.prune():
        return None
    return g


def _truncate(graph: Graph, k: int) -> Graph | None:
    """Only what operator ``k`` needs, its output the one model output."""
    g = graph.copy()
    g.outputs = list(g.ops[k].outputs[:1])
    return g if g.prune() else None


def _keep_output(graph: Graph, j: int) -> Graph | None:
    """Only what model output ``j`` needs."""
    g = graph.copy()
    g.outputs = [g.outputs[j]]
    return g if g.prune() else None


def _drop_output(graph: Graph, j: int) -> Graph | None:
    g = graph.copy()
    del g.outputs[j]
    return g if g.prune() else None


def _bypass(graph: Graph, k: int) -> Graph | None:
    """The graph without operator ``k``, its readers reading its first input instead (when that
    input has the same shape and encoding, so every reader stays valid)."""
    g = graph.copy()
    op = g.ops[k]
    if len(op.outputs) != 1 or not op.inputs or op.inputs[0] < 0:
        return None
    src, out = op.inputs[0], op.outputs[0]
    a, b = g.tensors[src], g.tensors[out]
    if a.shape != b.shape or not a.same_encoding(b) or a.data is not None:
        return None
    del g.ops[k]
    for other in g.ops:
        other.inputs = [src if i == out else i for i in other.inputs]
    g.outputs = [src if o == out else o for o in g.outputs]
    if len(set(g.outputs)) != len(g.outputs) or src in g.inputs and src in g.outputs:
        return None
    return g if g.prune() else None


def shrink(graph: Graph, still_fails: Callable[[Graph], bool], budget_s: float = 300.0) -> Graph:
    """The smallest graph found (by operators, then outputs) on which ``still_fails`` holds."""
    deadline = time.monotonic() + budget_s
    best = graph
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        candidates: list[Callable[[Graph], Graph | None]] = []
        if len(best.outputs) > 1:
            candidates += [lambda g, j=j: _keep_output(g, j) for j in range(len(best.outputs))]
        candidates += [lambda g, k=k: _truncate(g, k) for k in range(len(best.ops))]
        candidates += [lambda g, j=j: _drop_output(g, j) for j in range(len(best.outputs))]
        candidates += [lambda g, k=k: _cut(g, k) for k in range(len(best.ops) - 1, -1, -1)]
        candidates += [lambda g, k=k: _bypass(g, k) for k in range(len(best.ops))]
        for make in candidates:
            if time.monotonic() >= deadline:
                break
            smaller = make(best)
            if smaller is None or (len(smaller.ops), len(smaller.outputs)) >= (
                len(best.ops),
                len(best.outputs),
            ):
                continue
            if still_fails(smaller):
                best = smaller
                improved = True
                break
    return best


def fails_like(case: Case, verdict: Verdict, work_root: Path) -> Callable[[Graph], bool]:
    """A predicate for :func:`shrink`: the graph, converted like ``case``, fails as ``verdict`` did."""

    def check(graph: Graph) -> bool:
        with tempfile.TemporaryDirectory(dir=work_root) as tmp:
            again = _run(graph, case.config, Path(tmp), SAMPLES, input_seed(case))
        return again.same_failure(verdict)

    return check


__all__ = [
    "Case",
    "FLOAT32_ULP",
    "HARNESS",
    "ReferenceCrashed",
    "Verdict",
    "compare",
    "convert",
    "draw_case",
    "fails_like",
    "graph_from_model",
    "reference",
    "run_case",
    "run_model",
    "shrink",
]
