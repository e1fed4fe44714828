"""First-fit into consecutive segments of one offset space (helia_aot.memory.segments)."""

from __future__ import annotations

from helia_aot.memory import BufferRequest, Placer
from helia_aot.memory.segments import hot_first, place_in_segments, segment_starts
from hypothesis import given, settings
from hypothesis import strategies as st


def test_a_buffer_that_would_straddle_a_cut_moves_to_the_next_segment():
    # a and b live together; b no longer fits the 96 bytes a leaves in the first segment.
    buffers = [BufferRequest("a", 64, 0, 1), BufferRequest("b", 64, 0, 1), BufferRequest("c", 32, 2, 2)]
    offsets, segment = place_in_segments(Placer(buffers), [0, 1, 2], [96, None])
    assert (offsets, segment) == ([0, 96, 0], [0, 1, 0])


def test_a_pinned_buffer_stays_in_its_segment_or_finds_no_room():
    buffers = [BufferRequest("a", 64, 0, 0), BufferRequest("b", 32, 0, 0)]
    offsets, segment = place_in_segments(Placer(buffers), [0, 1], [128, 64, None], {0: 1})
    assert (offsets, segment) == ([128, 0], [1, 0])
    assert place_in_segments(Placer(buffers), [0, 1], [128, 32, None], {0: 1}) is None
    assert place_in_segments(Placer(buffers), [0, 1], [64, 16]) is None


def test_segments_start_aligned_after_the_ones_before():
    assert segment_starts([100, 50, None], 16) == [0, 96, 144]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 20), st.integers(0, 6), st.integers(0, 3)), min_size=1, max_size=12),
    st.lists(st.integers(0, 40), min_size=1, max_size=3),
)
def test_every_buffer_lies_inside_one_segment_clear_of_those_live_with_it(specs, caps):
    buffers = [
        BufferRequest(f"t{i}", 16 * size, first, first + span) for i, (size, first, span) in enumerate(specs)
    ]
    caps16 = [16 * c for c in caps] + [None]
    offsets, segment = place_in_segments(Placer(buffers), range(len(buffers)), caps16)
    starts = segment_starts(caps16, 16)
    for i, b in enumerate(buffers):
        k = segment[i]
        assert starts[k] <= offsets[i]
        assert caps16[k] is None or offsets[i] + b.size <= starts[k] + caps16[k]
        for j, c in enumerate(buffers[:i]):
            if b.overlaps_in_time(c):
                assert offsets[i] + b.size <= offsets[j] or offsets[j] + c.size <= offsets[i]


def _live_peak(buffers: list[BufferRequest], chosen: set[int]) -> int:
    """Most bytes of ``chosen`` live at one operator, counted here from the lifetimes."""
    steps = {s for i in chosen for s in range(buffers[i].first, buffers[i].last + 1)}
    return max(
        (sum(buffers[i].size for i in chosen if buffers[i].first <= s <= buffers[i].last) for s in steps),
        default=0,
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 20), st.integers(0, 6), st.integers(0, 3), st.integers(0, 50)),
        min_size=1,
        max_size=12,
    ),
    st.integers(0, 40),
    st.integers(0, 8),
)
def test_the_first_segment_takes_what_keeps_the_split_within_the_budget(specs, room, slack):
    buffers = [
        BufferRequest(f"t{i}", 16 * size, first, first + span)
        for i, (size, first, span, _) in enumerate(specs)
    ]
    heat = [float(h) for *_, h in specs]
    whole = _live_peak(buffers, set(range(len(buffers))))
    budget = whole + 16 * slack
    found = hot_first(Placer(buffers), heat, 16 * room, budget)
    if found is None:
        return
    taken, used = found
    offsets = Placer(buffers).place(taken)[0]
    # Inside the segment, clear of every buffer live with it.
    assert used <= 16 * room
    for a in taken:
        assert offsets[a] + buffers[a].size <= used
        for b in taken:
            if a < b and buffers[a].overlaps_in_time(buffers[b]):
                assert (
                    offsets[a] + buffers[a].size <= offsets[b] or offsets[b] + buffers[b].size <= offsets[a]
                )
    # The segment's bytes and what the other memories must hold at once stay within the budget.
    rest = set(range(len(buffers))) - set(taken)
    assert 16 * room + _live_peak(buffers, rest) <= budget or not rest
    # A buffer left out found no room there: placed after the others, it would cross the segment.
    for i in sorted(rest, key=lambda i: -heat[i]):
        assert Placer(buffers).place([*taken, i])[0][i] + buffers[i].size > 16 * room
