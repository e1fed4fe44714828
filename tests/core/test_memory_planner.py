"""Properties of the arena planners: valid, aligned, deterministic plans no smaller than the bound."""

from __future__ import annotations

import pytest
from helia_aot.errors import InvalidConfigError
from helia_aot.memory import ArenaPlan, BufferRequest, inplace_pairs, peak_live
from helia_aot.registry import RegistryContext
from helia_aot.registry.build import build_default_registry_context
from hypothesis import given, settings
from hypothesis import strategies as st

ALIGNMENTS = [1, 2, 4, 8, 16, 32]

PLANNERS = build_default_registry_context(plugins={"enabled": ["core"]}).memory_planners
"""The planners the core registers: every property below must hold for each of them."""


def plan_arena(buffers, planner="hill_climb", **kwargs):
    """Run the planner registered under ``planner``, as the Plan stage does."""
    return PLANNERS.get(planner)(buffers, **kwargs)


@st.composite
def buffer_sets(draw, max_buffers: int = 14, aligned_sizes: bool = False) -> list[BufferRequest]:
    """Random lifetimes, sizes and alignments; about a third ask to be in place of another buffer
    (mostly of one that ends where they begin, sometimes of one that does not)."""
    n = draw(st.integers(0, max_buffers))
    shapes = []
    for i in range(n):
        first = draw(st.integers(0, 8))
        last = first + draw(st.integers(0, 4))
        size = draw(st.integers(1, 24)) * 16 if aligned_sizes else draw(st.integers(1, 300))
        shapes.append((f"b{i}", size, first, last, draw(st.sampled_from(ALIGNMENTS))))
    out = []
    for name, size, first, last, align in shapes:
        inplace = None
        if shapes and draw(st.integers(0, 2)) == 0:
            ending_here = [s[0] for s in shapes if s[3] == first and s[0] != name]
            pool = ending_here if ending_here and draw(st.booleans()) else [s[0] for s in shapes]
            inplace = draw(st.sampled_from(pool))
        out.append(BufferRequest(name, size, first, last, align, inplace))
    return out


def assert_valid(buffers: list[BufferRequest], plan: ArenaPlan) -> None:
    """The plan places every buffer aligned, and buffers needed at the same time share bytes only
    as a requested in-place pair at one offset (checked from the requests, not the planner's view)."""
    assert list(plan.offsets) == [b.id for b in buffers]
    for b in buffers:
        offset = plan.offsets[b.id]
        assert offset >= 0 and offset % b.alignment == 0, (b, offset)
    assert plan.used == max((plan.offsets[b.id] + b.size for b in buffers), default=0)
    assert plan.peak_live == peak_live(buffers)
    assert plan.used >= plan.peak_live
    for i, a in enumerate(buffers):
        for b in buffers[i + 1 :]:
            if not a.overlaps_in_time(b):
                continue
            oa, ob = plan.offsets[a.id], plan.offsets[b.id]
            if oa + a.size <= ob or ob + b.size <= oa:
                continue
            assert oa == ob and (may_share(a, b) or may_share(b, a)), f"{a} and {b} overlap at {oa}/{ob}"


def may_share(child: BufferRequest, partner: BufferRequest) -> bool:
    """The request-level rule: ``child`` asked for ``partner``'s bytes, which free up as it starts."""
    return child.inplace_of == partner.id and partner.last == child.first and child.size <= partner.size


@pytest.mark.parametrize("planner", list(PLANNERS))
@settings(max_examples=150)
@given(buffers=buffer_sets())
def test_plans_are_valid_and_deterministic(planner, buffers):
    plan = plan_arena(buffers, planner, seed=3)
    assert plan.planner == planner
    assert_valid(buffers, plan)
    assert plan_arena(list(buffers), planner, seed=3) == plan


@settings(max_examples=100)
@given(buffers=buffer_sets(), seed=st.integers(0, 2**32))
def test_hill_climb_never_loses_to_the_greedy_planners(buffers, seed):
    plan = plan_arena(buffers, "hill_climb", seed=seed, options={"iterations": 50})
    assert_valid(buffers, plan)
    for other in ("greedy", "greedy_by_size"):
        assert plan.used <= plan_arena(buffers, other).used


@settings(max_examples=100)
@given(buffers=buffer_sets())
def test_peak_live_without_in_place_is_the_largest_live_sum(buffers):
    plain = [BufferRequest(b.id, b.size, b.first, b.last, b.alignment) for b in buffers]
    horizon = max((b.last for b in plain), default=0)
    expected = max(
        (sum(b.size for b in plain if b.first <= t <= b.last) for t in range(horizon + 1)), default=0
    )
    assert peak_live(plain) == expected


@settings(max_examples=100)
@given(buffers=buffer_sets())
def test_honoured_in_place_pairs_are_disjoint_at_each_index(buffers):
    by_id = {b.id: b for b in buffers}
    pairs = inplace_pairs(buffers)
    seen: set[tuple[str, int]] = set()
    for child, partner in pairs.items():
        t = by_id[child].first
        assert by_id[child].inplace_of == partner and by_id[partner].last == t
        assert by_id[child].size <= by_id[partner].size
        for key in ((child, t), (partner, t)):
            assert key not in seen
            seen.add(key)


@st.composite
def chains(draw, in_place: bool) -> list[BufferRequest]:
    """Tensors of a single-path graph: tensor i is written by operator i-1 and read by operator i.

    With ``in_place``, some operators write over their input (same size or smaller)."""
    n = draw(st.integers(2, 12))
    out: list[BufferRequest] = []
    for i in range(n):
        first, last = max(i - 1, 0), min(i, n - 2)
        if in_place and out and draw(st.booleans()):
            size = draw(st.integers(1, out[-1].size // 16)) * 16
            out.append(BufferRequest(f"t{i}", size, first, last, inplace_of=out[-1].id))
        else:
            out.append(BufferRequest(f"t{i}", draw(st.integers(1, 64)) * 16, first, last))
    return out


@settings(max_examples=60)
@given(buffers=chains(in_place=False))
def test_hill_climb_reaches_the_bound_on_chains(buffers):
    plan = plan_arena(buffers, "hill_climb")
    assert_valid(buffers, plan)
    assert plan.used == plan.peak_live


@settings(max_examples=60)
@given(buffers=chains(in_place=True))
def test_hill_climb_reaches_the_bound_on_chains_with_in_place_steps(buffers):
    plan = plan_arena(buffers, "hill_climb")
    assert_valid(buffers, plan)
    assert plan.used == plan.peak_live


@pytest.mark.parametrize("planner", list(PLANNERS))
def test_elementwise_chain_runs_in_one_buffer(planner):
    buffers = [BufferRequest("x", 64, 0, 0)]
    buffers += [
        BufferRequest(f"y{i}", 64, i, i + 1, inplace_of=buffers[-1].id if i == 0 else f"y{i - 1}")
        for i in range(5)
    ]
    plan = plan_arena(buffers, planner)
    assert set(plan.offsets.values()) == {0}
    assert plan.used == plan.peak_live == 64


def test_in_place_is_ignored_unless_the_partner_dies_where_the_buffer_is_born():
    # "a" still lives at index 2, so "b" cannot take its bytes; "c" is larger than "a".
    buffers = [
        BufferRequest("a", 32, 0, 2),
        BufferRequest("b", 32, 1, 3, inplace_of="a"),
        BufferRequest("c", 64, 2, 3, inplace_of="a"),
    ]
    assert inplace_pairs(buffers) == {}
    assert peak_live(buffers) == 128
    for planner in PLANNERS:
        assert_valid(buffers, plan_arena(buffers, planner))


def test_a_partner_keeps_one_child():
    buffers = [
        BufferRequest("a", 32, 0, 1),
        BufferRequest("b", 32, 1, 2, inplace_of="a"),
        BufferRequest("c", 32, 1, 2, inplace_of="a"),
    ]
    assert inplace_pairs(buffers) == {"b": "a"}
    assert peak_live(buffers) == 64


def test_greedy_orders_match_their_definitions():
    # Placed by first use, "small" takes offset 0 and "big" must go above it; largest-first puts
    # "big" at 0 instead.
    buffers = [
        BufferRequest("small", 16, 0, 1),
        BufferRequest("big", 64, 1, 2),
        BufferRequest("late", 16, 2, 2),
    ]
    assert plan_arena(buffers, "greedy").offsets == {"small": 0, "big": 16, "late": 0}
    assert plan_arena(buffers, "greedy_by_size").offsets == {"small": 64, "big": 0, "late": 64}


def test_alignment_is_respected_in_gaps():
    buffers = [BufferRequest("a", 5, 0, 1, alignment=1), BufferRequest("b", 8, 0, 1, alignment=8)]
    plan = plan_arena(buffers, "greedy")
    assert plan.offsets == {"a": 0, "b": 8} and plan.used == 16 and plan.peak_live == 13


def test_empty_request_set():
    for planner in PLANNERS:
        assert plan_arena([], planner) == ArenaPlan({}, 0, 0, planner)


def test_the_core_registers_three_planners_each_naming_itself_in_its_plans():
    assert sorted(PLANNERS) == ["greedy", "greedy_by_size", "hill_climb"]
    for name in PLANNERS:
        assert plan_arena([BufferRequest("a", 16, 0, 0)], name).planner == name


def test_unknown_planner_names_the_valid_ones():
    with pytest.raises(InvalidConfigError) as err:
        PLANNERS.select("best_fit", setting="memory.planner")
    assert err.value.exit_code == 2 and "memory.planner 'best_fit'" in err.value.message
    for name in PLANNERS:
        assert name in err.value.hint
    with pytest.raises(InvalidConfigError, match="did you mean 'greedy'"):
        PLANNERS.select("gredy", setting="memory.planner")
    assert PLANNERS.select("Greedy_By_Size", setting="memory.planner")[0] == "greedy_by_size"
    assert RegistryContext().memory_planners.keys() == []  # nothing but what a context registers


@pytest.mark.parametrize(
    "options", [{"iterations": -1}, {"iterations": True}, {"iterations": "10"}, {"restarts": 2}]
)
def test_bad_hill_climb_options_are_config_errors(options):
    with pytest.raises(InvalidConfigError):
        plan_arena([BufferRequest("a", 16, 0, 0)], "hill_climb", options=options)


def test_greedy_planners_take_no_options():
    with pytest.raises(InvalidConfigError, match="iterations"):
        plan_arena([BufferRequest("a", 16, 0, 0)], "greedy", options={"iterations": 3})


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(size=0),
        dict(size=-4),
        dict(first=3, last=2),
        dict(first=-1),
        dict(alignment=3),
        dict(alignment=0),
        dict(size=True),
        dict(size=1.5),
    ],
)
def test_invalid_requests_are_value_errors(kwargs):
    fields = dict(id="a", size=16, first=0, last=1) | kwargs
    with pytest.raises(ValueError):
        BufferRequest(**fields)


@pytest.mark.parametrize(
    "buffers",
    [
        [BufferRequest("a", 16, 0, 0), BufferRequest("a", 16, 1, 1)],
        [BufferRequest("a", 16, 0, 0), BufferRequest("b", 16, 0, 1, inplace_of="missing")],
    ],
)
def test_unplannable_request_sets_are_value_errors(buffers):
    for planner in PLANNERS:
        with pytest.raises(ValueError):
            plan_arena(buffers, planner)
    with pytest.raises(ValueError):
        peak_live(buffers)
