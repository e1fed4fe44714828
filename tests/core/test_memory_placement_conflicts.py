"""The placer's conflict lists and first-fit offsets equal an independent, brute-force placement.

Placer finds the buffers whose lifetimes intersect with a sweep over start indices, and places an
order with a sweep over the placed buffers sorted by offset; both are quick, and both go wrong
quietly at the boundaries (a buffer that ends exactly where another begins, a gap exactly the
buffer's size). Here every pair is compared directly and every offset is searched from the
definition: the lowest aligned offset, trying an honoured in-place partner's offset first, whose
bytes meet no placed buffer live at the same time (except that partner). Plan validity alone
(test_memory_planner.py) would accept a placer that wastes bytes; this pins its exact answer.
"""

from __future__ import annotations

import random

from helia_aot.memory import BufferRequest, inplace_pairs
from helia_aot.memory.placement import Placer
from hypothesis import given, settings
from hypothesis import strategies as st

from .test_memory_planner import buffer_sets


def live_together(a: BufferRequest, b: BufferRequest) -> bool:
    """Inclusive lifetimes [first, last] share an operator index."""
    return max(a.first, b.first) <= min(a.last, b.last)


def bytes_meet(a_at: int, a_size: int, b_at: int, b_size: int) -> bool:
    return a_at < b_at + b_size and b_at < a_at + a_size


def brute_force_place(buffers: list[BufferRequest], order: list[int]) -> tuple[list[int], int]:
    """First fit from the definition, over every candidate offset (0 and each placed end)."""
    partners: dict[int, list[int]] = {i: [] for i in range(len(buffers))}
    index = {b.id: i for i, b in enumerate(buffers)}
    for child, partner in inplace_pairs(buffers).items():  # tried in the order the pairs are listed
        partners[index[child]].append(index[partner])
        partners[index[partner]].append(index[child])
    offsets: dict[int, int] = {}

    def free(i: int, at: int, may_share: list[int]) -> bool:
        b = buffers[i]
        for j, other_at in offsets.items():
            other = buffers[j]
            if j == i or not live_together(b, other) or not bytes_meet(at, b.size, other_at, other.size):
                continue
            if not (other_at == at and j in may_share):
                return False
        return True

    for i in order:
        b = buffers[i]
        chosen = None
        for p in partners[i]:
            at = offsets.get(p)
            if at is not None and at % b.alignment == 0 and free(i, at, partners[i]):
                chosen = at
                break
        if chosen is None:
            ends = [at + buffers[j].size for j, at in offsets.items()]
            candidates = sorted({0, *(-(-end // b.alignment) * b.alignment for end in ends)})
            chosen = next(at for at in candidates if free(i, at, []))
        offsets[i] = chosen
    placed = [offsets[i] for i in range(len(buffers))]
    return placed, max((placed[i] + b.size for i, b in enumerate(buffers)), default=0)


@st.composite
def touching_sets(draw) -> list[BufferRequest]:
    """Lifetimes drawn from three operator indices and sizes from a few multiples of 16, so
    buffers often end exactly where others begin and gaps often fit a buffer exactly."""
    n = draw(st.integers(1, 10))
    out = []
    for i in range(n):
        first = draw(st.integers(0, 2))
        last = first + draw(st.integers(0, 2 - first))
        size = draw(st.sampled_from([16, 32, 48, 64, 8, 24]))
        align = draw(st.sampled_from([1, 8, 16, 32]))
        partner = None
        if i and draw(st.booleans()):
            partner = f"b{draw(st.integers(0, i - 1))}"
        out.append(BufferRequest(f"b{i}", size, first, last, align, partner))
    return out


@settings(max_examples=200)
@given(buffers=st.one_of(buffer_sets(max_buffers=12), touching_sets()))
def test_conflict_lists_are_exactly_the_pairs_live_together(buffers):
    placer = Placer(buffers)
    for i, b in enumerate(buffers):
        expected = {j for j, other in enumerate(buffers) if j != i and live_together(b, other)}
        assert sorted(placer.conflicts[i]) == sorted(expected), (b, placer.conflicts[i])


@settings(max_examples=200)
@given(buffers=st.one_of(buffer_sets(max_buffers=12), touching_sets()), seed=st.integers(0, 2**16))
def test_first_fit_places_every_order_as_the_brute_force_does(buffers, seed):
    placer = Placer(buffers)
    orders = [list(range(len(buffers)))]
    rng = random.Random(seed)
    for _ in range(3):
        order = list(range(len(buffers)))
        rng.shuffle(order)
        orders.append(order)
    for order in orders:
        assert placer.place(order) == brute_force_place(buffers, order), order


def test_buffers_that_touch_in_time_do_not_share_bytes():
    # b ends at index 1, c starts there: both are live at 1, so c must go above b.
    buffers = [BufferRequest("a", 32, 0, 0), BufferRequest("b", 32, 0, 1), BufferRequest("c", 32, 1, 2)]
    offsets, used = Placer(buffers).place([0, 1, 2])
    assert offsets == [0, 32, 0] and used == 64


def test_a_gap_of_exactly_the_size_is_taken():
    buffers = [
        BufferRequest("low", 16, 0, 2),
        BufferRequest("gone", 16, 0, 0),
        BufferRequest("high", 16, 0, 2),
        BufferRequest("new", 16, 1, 2),
    ]
    offsets, used = Placer(buffers).place([0, 1, 2, 3])
    assert offsets == [0, 16, 32, 16] and used == 48
