"""The kernel choice by modeled cycles (helia_aot_ops_builtin.common.kernel_cycles) and its table.

The rules are checked on hand-made rows (fewest cycles at ``latency``, the scratch bound at
``balanced``, no say at ``size``, never more instructions than the ``auto`` table's kernel, the
nearest grid shape standing for a layer); a conversion shows that the choice recorded in the plan
follows the table for the layer's shape; and, under QEMU, bench/kernel_cycles.py run on one grid
shape writes exactly the rows the shipped table holds for it (modeled cycles are deterministic).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot_ops_builtin.common import kernel_cycles
from helia_aot_ops_builtin.common.kernel_cycles import (
    FEATURES,
    IM2COL_VALUES,
    KernelCycles,
    kernel_cycles_table,
    modeled_choice,
    nearest_rows,
    parse_table,
    table_text,
)

ROOT = Path(__file__).resolve().parents[3]
BOTH = ("specialized", "generic")
CPUS = ("cortex-m55", "cortex-m4")
FC = "fully_connected_s8"


def rows(*specs: tuple[tuple[int, ...], str, int, int], family: str = FC) -> tuple[KernelCycles, ...]:
    """Rows of ``family`` on the M55: (shape, kernel, cycles, instructions) each."""
    return tuple(KernelCycles(family, "cortex-m55", shape, value, c, i) for shape, value, c, i in specs)


def pick(table, goal="latency", cpu="cortex-m55", offered=BOTH, today="specialized", scratch=None):
    """The choice for a (64, 16) layer of ``FC`` from ``table``."""
    return modeled_choice(FC, cpu, (64, 16), goal, offered, today, scratch, table)


GENERIC_FASTER = rows(((64, 16), "specialized", 900, 500), ((64, 16), "generic", 800, 500))


@pytest.mark.parametrize(
    ("goal", "scratch", "expected"),
    [
        ("latency", None, "generic"),
        ("balanced", {"specialized": 64, "generic": 0}, "generic"),  # less scratch: within the bound
        ("balanced", {"specialized": 0, "generic": 64}, "specialized"),  # would grow the arena
        ("size", None, None),  # size keeps the auto table's choice
        ("accuracy", None, None),
    ],
)
def test_goal_rules(goal, scratch, expected):
    assert pick(GENERIC_FASTER, goal, scratch=scratch) == expected


def test_never_more_instructions_than_the_auto_table_kernel():
    fewer_cycles_more_instructions = rows(
        ((64, 16), "specialized", 900, 500), ((64, 16), "generic", 800, 501)
    )
    table = fewer_cycles_more_instructions
    assert (
        modeled_choice(FC, "cortex-m55", (64, 16), "latency", BOTH, "specialized", None, table)
        == "specialized"
    )
    # Equal cycles: the auto table's kernel stays.
    tie = rows(((64, 16), "specialized", 800, 500), ((64, 16), "generic", 800, 400))
    assert (
        modeled_choice(FC, "cortex-m55", (64, 16), "latency", BOTH, "specialized", None, tie) == "specialized"
    )


def test_no_rows_no_say():
    assert (
        modeled_choice(FC, "cortex-m4", (64, 16), "latency", BOTH, "specialized", None, GENERIC_FASTER)
        is None
    )
    only_one = rows(((64, 16), "generic", 1, 1))
    assert modeled_choice(FC, "cortex-m55", (64, 16), "latency", BOTH, "specialized", None, only_one) is None
    assert (
        modeled_choice(FC, "cortex-m55", (64, 16), "latency", ("generic",), "generic", None, GENERIC_FASTER)
        is None
    )


def test_the_nearest_grid_shape_stands_for_a_layer():
    table = rows(
        ((64, 16), "specialized", 10, 10),
        ((64, 16), "generic", 20, 20),
        ((512, 128), "specialized", 30, 30),
        ((512, 128), "generic", 40, 40),
        ((2048, 2048), "generic", 1, 1),  # incomplete: never stands for a layer
    )
    assert nearest_rows(FC, "cortex-m55", (100, 20), BOTH, table)["generic"].cycles == 20
    assert nearest_rows(FC, "cortex-m55", (400, 200), BOTH, table)["generic"].cycles == 40
    assert nearest_rows(FC, "cortex-m55", (4096, 4096), BOTH, table)["generic"].cycles == 40


def test_table_text_is_sorted_and_reads_back():
    table = rows(
        ((640, 128), "specialized", 3, 3), ((64, 16), "generic", 2, 2), ((64, 16), "specialized", 1, 1)
    )
    text = table_text(list(reversed(table)), "test")
    assert text == table_text(list(table), "test")  # order-free: the same rows write the same bytes
    assert [r.key() for r in parse_table(text)] == sorted(r.key() for r in table)
    with pytest.raises(ValueError, match="format"):
        parse_table(text.replace('"format_version": 1', '"format_version": 99'))


def test_shipped_table_covers_every_decision():
    """The kernel knob's families on both cores, Helium's im2col decision on the M55 alone."""
    table = kernel_cycles_table()
    for family, features in FEATURES.items():
        values, cpus = (IM2COL_VALUES, ("cortex-m55",)) if family == "conv_im2col" else (BOTH, CPUS)
        assert {r.cpu for r in table if r.family == family} == set(cpus), family
        for cpu in cpus:
            mine = [r for r in table if (r.family, r.cpu) == (family, cpu)]
            assert {r.value for r in mine} == set(values), (family, cpu)
            assert all(len(r.shape) == len(features) and min(r.cycles, r.instructions) > 0 for r in mine)


# -- through a conversion ------------------------------------------------------------------------


def fc_model(path: Path, depth: int, units: int) -> Path:
    rng = np.random.default_rng([depth, units])
    b = LiteRTModelBuilder("kernel choice test")
    x = b.add_tensor("x", (1, depth), "int8", quantization=(0.05, -3))
    scales = rng.uniform(0.002, 0.01, units).astype(np.float32)
    w = b.add_tensor(
        "w",
        (units, depth),
        "int8",
        data=rng.integers(-127, 128, (units, depth)).astype(np.int8),
        quantization=(scales, np.zeros(units, np.int64), 0),
    )
    bias = b.add_tensor(
        "b",
        (units,),
        "int32",
        data=rng.integers(-3000, 3000, units),
        quantization=(scales * 0.05, np.zeros(units), 0),
    )
    y = b.add_tensor("y", (1, units), "int8", quantization=(0.08, 2))
    b.add_operator("FULLY_CONNECTED", [x, w, bias], [y], litert.FullyConnectedOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def converted_kernel(model: Path, out: Path, goal: str, platform: str = "apollo510_evb") -> dict:
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": "fc"},
        "platform": {"name": platform},
        "optimization": {"goal": goal},
        "force": True,
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    plan = json.loads(next(Path(result.output).glob("*plan.json")).read_text())
    return dict(plan["operators"][0]["knobs"]["kernel"])


def test_the_conversion_follows_the_table(tmp_path, monkeypatch):
    model = fc_model(tmp_path / "fc.tflite", 64, 16)
    shipped = nearest_rows(FC, "cortex-m55", (64, 16), BOTH)
    fastest = min(BOTH, key=lambda v: (shipped[v].cycles, BOTH.index(v)))
    keeps = shipped[fastest].instructions <= shipped["specialized"].instructions
    assert converted_kernel(model, tmp_path / "a", "latency")["value"] == (
        fastest if keeps else "specialized"
    )
    # A table where the general loop is the faster for this shape: latency and balanced take it
    # (it needs no scratch), size keeps its own choice.
    monkeypatch.setattr(kernel_cycles, "kernel_cycles_table", lambda: GENERIC_FASTER)
    for goal, value in (("latency", "generic"), ("balanced", "generic"), ("size", "specialized")):
        choice = converted_kernel(model, tmp_path / goal, goal)
        assert (choice["value"], choice["resolved_by"], choice["requested"]) == (
            value,
            "auto_table",
            "auto",
        ), goal
    # Another core has no rows in that table: its auto table decides.
    assert converted_kernel(model, tmp_path / "m4", "latency", "apollo4p_evb")["value"] == "specialized"


# -- the table is what the bench writes -----------------------------------------------------------


def load_bench() -> ModuleType:
    bench = str(ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    spec = importlib.util.spec_from_file_location("bench_kernel_cycles", ROOT / "bench" / "kernel_cycles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.cross
def test_bench_writes_the_shipped_rows(tmp_path):
    """One grid shape (the smallest fully connected layer), both kernels, both cores: the rows the
    bench measures now are the shipped table's, to the cycle. After a kernel changes, regenerate
    the table with ``python bench/kernel_cycles.py``."""
    bench = load_bench()
    chosen = bench.cases([FC], limit=1)
    measured = bench.measure(chosen, ["cortex-m55", "cortex-m4"], tmp_path, echo=False)
    shipped = {r.key(): r for r in kernel_cycles_table()}
    assert len(measured) == 4
    assert [shipped.get(r.key()) for r in measured] == measured
