"""Random whole graphs against LiteRT, as many as you like (the suite runs a fixed few).

Case ``N`` of seed ``S`` is a random valid model (tests/hardening/random_graphs.py: 3-30 operators,
int8 / int16x8 / float32 / float16, broadcasts, residual adds, concatenations, reshapes, outputs
read again) with a random configuration (platform, memory planner, goal, kernel choice, schedule),
converted, built with gcc under ASan/UBSan and compared with LiteRT's reference kernels
(tests/hardening/graph_check.py: integers bit for bit, floats within their bound). A mismatch or
an error is shrunk and written to ``--out`` as ``graph_s<S>_c<N>.tflite`` plus a ``.json`` with the
seed, case, configuration and what went wrong: move the pair to tests/data/regressions/graphs/
once fixed (tests/hardening/test_graph_fuzz.py replays every pair there).

    .venv/bin/python bench/graph_fuzz.py --count 2000 --seed 1
    .venv/bin/python bench/graph_fuzz.py --count 200 --seed 7 --jobs 2 --json figures.json
    .venv/bin/python bench/graph_fuzz.py --case 1:417            # one case again, verbose

A progress bar runs on stderr; the last line printed is ``N graphs, K mismatches, E errors``
(errors: conversion crashes, compile failures, sanitizer faults, and graphs LiteRT itself refuses,
which are generator bugs). Typed refusals (UnsupportedModelError) are counted on the lines before,
and so are graphs on which LiteRT's reference interpreter crashed (it runs in a child process of
its own, so a crash ends that case at once, with nothing to compare: not a finding against the
module).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hardening.fuzz_target import scratch_root  # noqa: E402
from hardening.graph_check import Case, Verdict, draw_case, fails_like, run_case, shrink  # noqa: E402
from helia_aot.testing.object_cache import CACHE_ENV  # noqa: E402

_worker: dict = {}


def _init_worker(scratch: str) -> None:
    workdir = Path(tempfile.mkdtemp(dir=scratch))
    tempfile.tempdir = str(workdir)  # the conversions' own work folders go there too
    _worker["workdir"] = workdir


def write_finding(case: Case, verdict: Verdict, out: Path, shrink_s: float) -> Path:
    """Shrink ``case`` while it fails the same way and write the model and its record to ``out``."""
    work = _worker.get("workdir") or Path(tempfile.mkdtemp())
    small = shrink(case.graph, fails_like(case, verdict, work), budget_s=shrink_s)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"graph_s{case.seed}_c{case.number}.tflite"
    path.write_bytes(small.to_bytes())
    record = {
        "file": path.name,
        "seed": case.seed,
        "case": case.number,
        "dtype": case.graph.dtype,
        "config": case.config,
        "input_seed": case.seed * 7919 + case.number,
        "status": verdict.status,
        "kind": verdict.kind,
        "detail": verdict.detail[:1500],
        "operators": len(case.graph.ops),
        "shrunk_operators": len(small.ops),
        "shrunk": small.describe(),
    }
    path.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    return path


def run_one(job: tuple[int, int, str, float]) -> dict:
    seed, number, out, shrink_s = job
    case = draw_case(seed, number)
    work = Path(tempfile.mkdtemp(dir=_worker.get("workdir")))
    try:
        verdict = run_case(case, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    row = {
        "case": number,
        "dtype": case.graph.dtype,
        "ops": len(case.graph.ops),
        "status": verdict.status,
        "kind": verdict.kind,
        "seconds": round(verdict.seconds, 3),
        "worst": verdict.worst,
    }
    if verdict.status not in ("ok", "refused", "reference-crash"):
        row["detail"] = verdict.detail[:1500]
        if verdict.status in ("mismatch", "error") and shrink_s > 0:
            row["file"] = str(write_finding(case, verdict, Path(out), shrink_s))
    elif verdict.status == "reference-crash":
        row["detail"] = verdict.detail[:300]
    elif verdict.status == "refused":
        row["detail"] = (
            verdict.detail.splitlines()[1][:200] if "\n" in verdict.detail else verdict.detail[:200]
        )
    return row


LOST_AFTER_S = 900.0
"""No result for this long (a case plus its shrinking take far less) means a worker died."""


def case_dtype(seed: int, number: int) -> str:
    return draw_case(seed, number).graph.dtype


def _lost(number: int, dtype: str) -> dict:
    return {
        "case": number,
        "dtype": dtype,
        "ops": 0,
        "status": "error",
        "kind": "lost",
        "seconds": 0.0,
        "worst": {},
        "detail": "no result: the worker running it died or hung",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="graphs to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="first case number")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--out", default=str(ROOT / "bench" / "graph_fuzz_findings"), help="shrunk findings")
    parser.add_argument(
        "--shrink-seconds", type=float, default=240.0, help="time to shrink each finding (0: off)"
    )
    parser.add_argument("--json", help="also write every row and the totals to this file")
    parser.add_argument("--case", help="run one case, SEED:NUMBER, and print its graph and verdict")
    args = parser.parse_args()

    if not os.environ.get(CACHE_ENV):
        cache = Path(tempfile.gettempdir()) / "helia-aot-graph-fuzz-objects"
        os.environ[CACHE_ENV] = str(cache)  # kernels compile once per run, not once per graph

    if args.case:
        seed, number = (int(x) for x in args.case.split(":"))
        case = draw_case(seed, number)
        print(json.dumps(case.describe(), indent=1))
        with tempfile.TemporaryDirectory() as tmp:
            verdict = run_case(case, Path(tmp))
        print(f"{verdict.status} {verdict.kind} ({verdict.seconds:.1f} s)\n{verdict.detail}")
        print(
            f"1 graphs, {int(verdict.status == 'mismatch')} mismatches, "
            f"{int(verdict.status in ('error', 'invalid'))} errors"
        )
        return 0 if verdict.status in ("ok", "refused", "reference-crash") else 1

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    jobs = [(args.seed, n, args.out, args.shrink_seconds) for n in range(args.start, args.start + args.count)]
    rows: list[dict] = []
    counts: Counter[str] = Counter()
    start = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="helia-aot-graph-fuzz-", dir=scratch_root()))
    columns = (
        TextColumn("[bold]graphs"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
    )
    try:
        pool = multiprocessing.get_context("fork").Pool(args.jobs, _init_worker, (str(scratch),))
        with pool, Progress(*columns, console=console) as progress:
            task = progress.add_task("graphs", total=len(jobs), counts="")
            results = pool.imap_unordered(run_one, jobs)
            for _ in jobs:
                try:
                    row = results.next(timeout=LOST_AFTER_S)
                except multiprocessing.TimeoutError:
                    # A worker that dies (a crash inside the reference interpreter, say) loses its
                    # case and the pool would wait for it forever: count what never came back.
                    done = {r["case"] for r in rows}
                    for lost in sorted({n for _, n, _, _ in jobs} - done):
                        rows.append(_lost(lost, case_dtype(args.seed, lost)))
                        counts["error"] += 1
                        progress.console.print(
                            f"[red]error[/] case {args.seed}:{lost}: no result (worker lost)"
                        )
                    break
                rows.append(row)
                counts[row["status"]] += 1
                if row["status"] in ("mismatch", "error", "invalid", "reference-crash"):
                    first = (row.get("detail") or "").splitlines()[:1] or [""]
                    progress.console.print(
                        f"[red]{row['status']}[/] case {args.seed}:{row['case']} ({row['dtype']}, "
                        f"{row['ops']} ops) {row['kind']}: {first[0][:160]}"
                        + (f" -> {row['file']}" if row.get("file") else "")
                    )
                summary = " ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                progress.update(task, advance=1, counts=summary)
                if not console.is_terminal and len(rows) % 50 == 0:  # a log file gets plain lines
                    console.print(
                        f"{len(rows)}/{len(jobs)} graphs, {time.perf_counter() - start:.0f} s: {summary}"
                    )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    wall = time.perf_counter() - start
    rows.sort(key=lambda r: r["case"])
    refused = Counter(r["detail"] for r in rows if r["status"] == "refused")
    worst: dict[str, float] = {}
    for r in rows:
        for dtype, value in r["worst"].items():
            worst[dtype] = max(worst.get(dtype, 0.0), value)
    mismatches = counts["mismatch"]
    errors = counts["error"] + counts["invalid"]
    by_dtype = Counter(r["dtype"] for r in rows)
    print(
        f"seed {args.seed}, cases {args.start}..{args.start + args.count - 1}, {args.jobs} jobs, {wall:.0f} s"
    )
    print("graphs by type: " + ", ".join(f"{k} {v}" for k, v in sorted(by_dtype.items())))
    print(
        "worst distance seen (ints: largest difference; float32: ULP; float16: u*max(1,|r|)): "
        + json.dumps(worst)
    )
    for text, n in refused.most_common(10):
        print(f"refused x{n}: {text}")
    for r in rows:
        if r["status"] in ("mismatch", "error", "invalid", "reference-crash"):
            print(f"{r['status']} {args.seed}:{r['case']} {r['kind']} {r.get('file', '')}")
    if args.json:
        totals = {
            "graphs": len(rows),
            "mismatches": mismatches,
            "errors": errors,
            "refused": counts["refused"],
            "reference_crashes": counts["reference-crash"],
        }
        Path(args.json).write_text(
            json.dumps({"totals": totals, "worst": worst, "rows": rows}, indent=1) + "\n"
        )
    print(f"{counts['refused']} refused with a typed UnsupportedModelError")
    print(f"{counts['reference-crash']} on which LiteRT's reference interpreter crashed (nothing to compare)")
    print(f"{len(rows)} graphs, {mismatches} mismatches, {errors} errors")
    return 1 if mismatches or errors else 0


if __name__ == "__main__":
    sys.exit(main())
