"""Random whole graphs against LiteRT: a fixed seed's cases in CI, and every shrunk finding replayed.

Each case of seed :data:`SEED` is a random valid model (random_graphs.py) converted with a random
configuration, built with gcc under ASan/UBSan and compared with LiteRT's reference kernels
(graph_check.py: integer outputs bit for bit, float32 within FLOAT32_ULP, float16 within the
float16 bound). :data:`CASES` cases take about a minute on two cores; ``bench/graph_fuzz.py``
runs as many as you like. Every model ``bench/graph_fuzz.py`` ever shrank from a mismatch or an
error is kept in tests/data/regressions/graphs/ with its record (seed, case, configuration, what
went wrong, what fixed it) and must now convert and match.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helia_aot.testing import require_tools

from .graph_check import FLOAT32_ULP, Verdict, compare, draw_case, run_case, run_model, shrink
from .random_graphs import CATALOGUE, DTYPES, MAX_OPS, MIN_OPS, Graph, random_graph

SEED = 2027
CASES = 24
"""Cases CI runs (about 2.5 s each on a loaded two-core machine)."""

GRAPHS = Path(__file__).resolve().parents[1] / "data" / "regressions" / "graphs"
FINDINGS = sorted(GRAPHS.glob("*.json"))
REFERENCE_CRASHES = sorted((GRAPHS / "reference_crash").glob("*.json"))
"""Shrunk models on which LiteRT's reference interpreter aborts its process."""


@pytest.mark.parametrize("number", range(CASES))
def test_random_graph_matches_litert(number, tmp_path):
    require_tools("gcc")
    case = draw_case(SEED, number)
    verdict = run_case(case, tmp_path)
    assert verdict.status == "ok", (
        f"case {SEED}:{number} ({case.graph.dtype}, {len(case.graph.ops)} operators, config {case.config}) "
        f"ended {verdict.status} {verdict.kind}:\n{verdict.detail}\n"
        f"repeat it with: python bench/graph_fuzz.py --case {SEED}:{number}"
    )


def test_the_fixed_cases_cover_every_type_and_most_of_the_catalogue():
    """The CI cases are not a handful of trivial chains: every element type, DAGs, outputs read again."""
    graphs = [draw_case(SEED, n).graph for n in range(CASES)]
    assert {g.dtype for g in graphs} == set(DTYPES)
    kinds = Counter(op.kind for g in graphs for op in g.ops)
    everything = {k for names in CATALOGUE.values() for k in names}
    assert len(set(kinds) & everything) >= 0.8 * len(everything), sorted(everything - set(kinds))
    assert any(o in op.inputs for g in graphs for o in g.outputs for op in g.ops)  # outputs read later
    assert sum(len(g.inputs) > 1 for g in graphs) >= 3  # broadcasts against a second model input
    assert max(len(g.ops) for g in graphs) > 15


@pytest.mark.parametrize("number", range(40))
def test_a_graph_is_valid_and_the_same_for_the_same_seed(number):
    a = random_graph(random.Random(f"gen:{number}"))
    b = random_graph(random.Random(f"gen:{number}"))
    assert a.to_bytes() == b.to_bytes()
    assert MIN_OPS <= len(a.ops) <= MAX_OPS + 8  # QUANTIZE / DEQUANTIZE around some operators
    made = {o for op in a.ops for o in op.outputs}
    read = {i for op in a.ops for i in op.inputs}
    assert made - read <= set(a.outputs)  # nothing computed is thrown away
    for t in a.tensors:
        if t.quant is not None and t.dtype in ("int8", "int16"):
            scales, zero_points, _ = t.quant
            assert all(s > 0 for s in scales)
            info = np.iinfo(np.dtype(t.dtype))
            assert all(info.min <= z <= info.max for z in zero_points)
            assert t.dtype == "int8" or set(zero_points) == {0}


def test_shrink_keeps_the_failure_and_drops_the_rest():
    graph = next(
        g
        for n in range(50)
        if len((g := random_graph(random.Random(f"shrink:{n}"))).ops) > 10 and _has(g, "MUL")
    )
    small = shrink(graph, lambda g: _has(g, "MUL"), budget_s=60)
    assert _has(small, "MUL") and len(small.ops) == 1 and len(small.outputs) == 1
    small.to_bytes()  # still a model


def _has(graph: Graph, kind: str) -> bool:
    return any(op.kind == kind for op in graph.ops)


def test_compare_is_exact_for_integers_and_ulp_tight_for_float32():
    graph = random_graph(random.Random("compare"), "int8")
    tensor = graph.outputs[0]
    graph.tensors[tensor].dtype = "int8"
    want = np.arange(-8, 8, dtype=np.int8)
    assert compare(graph, want.copy(), want, tensor)[0]
    off = want.copy()
    off[3] += 1
    assert not compare(graph, off, want, tensor)[0]
    graph.tensors[tensor].dtype = "float32"
    wantf = np.linspace(-1, 1, 16, dtype=np.float32)
    nudged = wantf.copy()
    nudged[5] = np.nextafter(nudged[5], np.float32(2))
    assert compare(graph, wantf.copy(), wantf, tensor)[0]
    assert compare(graph, nudged, wantf, tensor)[0] is (FLOAT32_ULP >= 1)


@pytest.mark.parametrize("record", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_shrunk_finding_now_matches_litert(record, tmp_path):
    require_tools("gcc")
    entry = json.loads(record.read_text())
    assert entry["fixed_by"], f"{record.name} records no fix"
    model = (GRAPHS / entry["file"]).read_bytes()
    verdict: Verdict = run_model(model, entry["config"], tmp_path, seed=entry["input_seed"])
    assert verdict.status == "ok", (
        f"{entry['file']} ({entry['kind']}) {verdict.status} {verdict.kind}:\n{verdict.detail}"
    )


@pytest.mark.parametrize("record", REFERENCE_CRASHES, ids=[p.stem for p in REFERENCE_CRASHES])
def test_a_reference_crash_ends_its_case_at_once_with_its_own_verdict(record, tmp_path):
    # The reference runs in a child process: its abort must neither kill this process (the
    # bench's pool worker) nor count as a mismatch or an error of the module.
    entry = json.loads(record.read_text())
    model = (record.parent / entry["file"]).read_bytes()
    start = time.perf_counter()
    verdict = run_model(model, entry["config"], tmp_path, seed=entry["input_seed"])
    assert (verdict.status, verdict.kind) == ("reference-crash", "reference"), verdict.detail
    assert verdict.detail == "LiteRT's reference interpreter died of signal SIGABRT"
    assert time.perf_counter() - start < 60
