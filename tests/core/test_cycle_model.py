"""The cycle model (issue 30): timing tables, unit programs with documented counts, KWS coverage.

The unit programs (tests/data/cycles/units.S) are short instruction sequences, each alone in a
harness region; docs/cycles.md derives every expected count below from the timing tables and the
core rules, so a change of either shows here as a changed number. KWS runs strict on both cores:
an instruction a kernel executes that the core's table does not know fails the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helia_aot.platforms import MemoryType
from helia_aot.testing.cycles import (
    BOARD_MEMORY,
    CPUS,
    STALL_KINDS,
    CycleModelError,
    line_fill_cycles,
    load_timing_table,
    main,
    measure_cycles,
    platform_at_clock,
    platform_named,
    wait_states_at,
)

DATA = Path(__file__).resolve().parents[1] / "data"
UNITS = (DATA / "cycles" / "units.c", DATA / "cycles" / "units.S")
KWS = DATA / "models" / "mlperf_kws_dscnn_int8.tflite"

# (instructions, cycles, non-zero stall parts) per region, in units.c's order; docs/cycles.md.
EXPECTED = {
    "cortex-m4": [
        (4, 8, {"issue": 8}),  # load chain: 4 x 2, no pipelining (each address waits)
        (4, 5, {"issue": 5}),  # load burst: 2 + 1 + 1 + 1
        (9, 15, {"issue": 9, "branch": 6}),  # loop: 9 x 1 + 3 taken x P=2
        (1, 2, {"issue": 2}),  # one load from DTCM: 0 wait states
        (1, 4, {"issue": 2, "memory": 2}),  # one load from MRAM: apollo4p_evb's 2 wait states
        (4, 4, {"issue": 4}),  # four 16-bit instructions: single issue
        (1, 4, {"issue": 2, "memory": 2}),  # MRAM again: no data cache on the M4, 2 wait states again
    ],
    "cortex-m55": [
        (4, 7, {"issue": 4, "dependency": 3}),  # load chain: 1 + 3 x (1 + 1 load-use stall)
        (4, 4, {"issue": 4}),  # load burst: 1 each
        (9, 18, {"issue": 9, "branch": 9}),  # loop: 9 x 1 + 3 taken x P=3
        (1, 1, {"issue": 1}),  # DTCM
        (
            1,
            17,
            {"issue": 1, "memory": 16},
        ),  # MRAM, a cache miss: a 32-byte line fill, 4 beats x (1 + 3 waits)
        (4, 2, {"issue": 2}),  # two dual-issued pairs (ADDS + MOVS immediate)
        (10, 7, {"issue": 7}),  # DLS/LE loop: the LE runs once, then the loop cache branches back for it
        (2, 4, {"issue": 4}),  # VADD, VADD: same pipe, 2 + 2 beats
        (2, 3, {"issue": 3}),  # VADD, VMUL: different pipes, one beat overlaps
        (2, 4, {"issue": 3, "dependency": 1}),  # VMUL -> VADD: the overlap waits on latency 2
        (2, 5, {"issue": 4, "store_load": 1}),  # VSTRW then VLDRW: one cycle stall
        (1, 2, {"issue": 2}),  # VLDRW from DTCM: two beats
        (1, 18, {"issue": 2, "memory": 16}),  # VLDRW from MRAM, a cache miss: two beats and a line fill
        (1, 2, {"issue": 2}),  # the same VLDRW again: a cache hit, two beats
        (1, 1, {"issue": 1}),  # the first MRAM load's line again: a hit
    ],
}


@pytest.mark.parametrize("cpu", sorted(CPUS))
def test_timing_tables_load_with_every_rule(cpu):
    table = load_timing_table(cpu)
    assert table.cpu == cpu
    assert set(table.params) >= {"taken_branch", "ls_pipeline", "beat_overlap", "words_per_cycle"}
    assert len(table.rows) > 150
    assert all(row.beats >= 1 and row.latency >= 1 for row in table.rows.values())


@pytest.mark.parametrize(
    ("cpu", "mnemonic", "operands", "key", "beats", "latency"),
    [
        ("cortex-m4", "ldr.w", "r2, [r3, #4]", "ldr", 2, 2),
        ("cortex-m4", "lsls", "r0, r1, #2", "lsl", 1, 1),
        ("cortex-m4", "addeq", "r0, r1", "add", 1, 1),
        ("cortex-m4", "smlad", "r0, r1, r2, r3", "smlad", 1, 1),
        ("cortex-m4", "sdiv", "r0, r1, r2", "sdiv", 7, 7),
        ("cortex-m4", "vfma.f32", "s0, s1, s2", "vfma", 3, 3),
        ("cortex-m55", "vldrb.s8", "q0, [r0], #16", "vldrb", 2, 1),
        ("cortex-m55", "vmlava.s8", "r0, q3, q2", "vmlava.mve", 2, 2),
        ("cortex-m55", "vqrdmulh.s32", "q0, q0, r2", "vqrdmulh.mve", 2, 2),
        ("cortex-m55", "vqmovnb.s32", "q1, q0", "vqmovnb", 2, 3),
        ("cortex-m55", "vmlaldava.s16", "r0, r1, q0, q1", "vmlaldava", 2, 3),
        ("cortex-m55", "vaddt.i32", "q0, q1, q2", "vadd.mve", 2, 1),
        ("cortex-m55", "vadd.f32", "q0, q1, q2", "vadd.f", 2, 1),
        ("cortex-m55", "vadd.f32", "s0, s1, s2", "vadd", 1, 2),
        ("cortex-m55", "letp", "lr, 18 <f+0x18>", "letp", 1, 1),
    ],
)
def test_lookup_keys(cpu, mnemonic, operands, key, beats, latency):
    row = load_timing_table(cpu).lookup(mnemonic, operands)
    assert row is not None and (row.mnemonic, row.beats, row.latency) == (key, beats, latency)


def test_unknown_mnemonic_has_no_row():
    assert load_timing_table("cortex-m55").lookup("vfoo.i8", "q0, q1") is None
    assert load_timing_table("cortex-m4").lookup("vldrb.u8", "q0, [r0]") is None  # no Helium on M4


def test_unknown_cpu_is_a_typed_error():
    with pytest.raises(CycleModelError, match="no timing model for CPU 'cortex-m7'"):
        load_timing_table("cortex-m7")


def test_apollo_platforms_declare_clock_and_wait_states():
    apollo510 = platform_named("apollo510_evb")
    assert apollo510.clock_mhz == 250
    assert apollo510.wait_states_of(MemoryType.DTCM) == 0 and apollo510.wait_states_of("mram") == 3
    apollo4 = platform_named("apollo4p_evb")
    assert (apollo4.clock_mhz, apollo4.wait_states_of("mram")) == (192, 2)
    # Every board range maps to a memory its default platform declares.
    for cpu, platform in (("cortex-m55", apollo510), ("cortex-m4", apollo4)):
        assert {memory for _, _, memory in BOARD_MEMORY[CPUS[cpu]]} <= set(platform.memory_types)


@pytest.fixture(scope="module")
def unit_elves(tmp_path_factory) -> dict[str, Path]:
    from helia_aot.testing import require_toolchain
    from helia_aot.testing.cross import cross_build_program

    require_toolchain()
    root = tmp_path_factory.mktemp("cycle_units")
    return {cpu: cross_build_program(UNITS, root / core, core) for cpu, core in CPUS.items()}


@pytest.mark.cross
@pytest.mark.parametrize("cpu", sorted(CPUS))
def test_unit_programs_give_the_documented_cycles(unit_elves, cpu):
    run = measure_cycles(unit_elves[cpu], cpu)
    assert run.run.returncode == 0, run.run.stdout
    got = [(r.instructions, r.cycles, {k: v for k, v in r.stalls.items() if v}) for r in run.regions]
    assert got == EXPECTED[cpu]
    for region in run.regions:
        assert set(region.stalls) == set(STALL_KINDS)
        assert sum(region.stalls.values()) == region.cycles


@pytest.mark.cross
def test_wait_states_follow_the_platform(unit_elves):
    # apollo3_evb declares 1 MRAM wait state at 48 MHz: the MRAM load costs 2 + 1.
    run = measure_cycles(unit_elves["cortex-m4"], "cortex-m4", "apollo3_evb")
    assert [r.cycles for r in run.regions][3:5] == [2, 3]
    assert run.milliseconds(48_000) == pytest.approx(1.0)


@pytest.mark.cross
def test_command_prints_json_per_region(unit_elves, capsys):
    assert main(["--cpu", "cortex-m55", "--platform", "apollo510_evb", str(unit_elves["cortex-m55"])]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["cpu"], doc["platform"], doc["clock_mhz"], doc["exit_status"]) == (
        "cortex-m55",
        "apollo510_evb",
        250.0,
        0,
    )
    assert [(r["instructions"], r["cycles"]) for r in doc["regions"]] == [
        e[:2] for e in EXPECTED["cortex-m55"]
    ]
    assert doc["regions"][0]["cpi"] == 1.75 and doc["regions"][0]["ms"] == round(7 / 250e3, 6)
    assert doc["unknown_instructions"] == []


def test_command_rejects_a_missing_elf(tmp_path, capsys):
    assert main(["--cpu", "cortex-m4", str(tmp_path / "none.elf")]) == 1
    assert "no such ELF" in capsys.readouterr().err


@pytest.mark.cross
@pytest.mark.parametrize("target", ["m55", "m4"])
def test_kws_kernels_are_all_in_the_timing_table(tmp_path, target):
    """KWS under the plugin, strict: every executed instruction has a row; cycles add up."""
    from helia_aot import AotConverter, ConvertArgs
    from helia_aot.testing import require_toolchain
    from helia_aot.testing.profiling import profile_module

    require_toolchain()
    config = {"model": {"path": str(KWS)}, "module": {"path": str(tmp_path / "kws")}}
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    profile = profile_module(result.output, result.plan, target, strict=True)
    assert profile.unknown_instructions == []
    assert len(profile.operators) == 12 and all(op.cycles > 0 for op in profile.operators)
    assert sum(op.cycles for op in profile.operators) + profile.runtime_cycles == profile.total_cycles
    # Loads, multiplies, branches and Helium beats cost more than one cycle each on average.
    assert profile.inference_cycles > profile.inference_instructions


@pytest.mark.cross
def test_an_executed_instruction_missing_from_the_table_fails_strict_runs(unit_elves, monkeypatch):
    from helia_aot.testing import cycles

    full = load_timing_table("cortex-m4")
    rows = {k: v for k, v in full.rows.items() if k != "ldr"}
    without_ldr = cycles.TimingTable(full.cpu, full.params, rows)
    monkeypatch.setattr(cycles, "load_timing_table", lambda cpu: without_ldr)
    with pytest.raises(CycleModelError, match=r"does not know .*executed instruction.*ldr") as caught:
        measure_cycles(unit_elves["cortex-m4"], "cortex-m4")
    assert "cortex-m4.tsv" in caught.value.hint
    lenient = measure_cycles(unit_elves["cortex-m4"], "cortex-m4", strict=False)
    assert lenient.unknown and all("ldr" in text for text in lenient.unknown)
    assert lenient.regions[0].stalls["unknown"] == 4  # the load chain's four loads, one cycle each


def test_wait_states_scale_with_the_clock():
    # A memory's access time is fixed: 3 wait states at 250 MHz (4 cycles, 16 ns) are 1 at 96 MHz
    # (16 ns = 1.54 cycles, rounded up to 2) and stay 3 at 250 MHz; a zero-wait memory stays so.
    assert [wait_states_at(3, 250, mhz) for mhz in (96, 250)] == [1, 3]
    assert wait_states_at(0, 250, 96) == 0
    assert wait_states_at(2, 0, 96) == 2  # no declared clock: nothing to scale from
    slow = platform_at_clock(platform_named("apollo510_evb"), 96)
    assert slow.clock_mhz == 96
    assert [slow.wait_states_of(m) for m in ("dtcm", "itcm", "sram", "mram", "psram")] == [0, 0, 1, 1, 3]


def test_line_fill_is_beats_of_the_memory():
    # The M55's 32-byte line arrives in four 64-bit beats, each one access; the M4 has no cache.
    assert line_fill_cycles("cortex-m55", 3) == 16
    assert line_fill_cycles("cortex-m55", 0) == 4
    assert line_fill_cycles("cortex-m4", 2) == 0
