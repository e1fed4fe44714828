"""The constants of a set of modules sharing one image, placed together (issue 32, deliverable 3).

Each module of a shared image keeps its own constants, but they all sit in the same DTCM and SRAM
beside the one shared scratch buffer. :func:`helia_aot.shared_arena.set_constants` gives each
module its share of each memory for its constants when the set does not fit as each model
placed its own alone. Synthetic plans (random constants, state, scratch needs and capacities)
check its shares against the capacities and against each other, computed here from the plans.
"""

from __future__ import annotations

from helia_aot.shared_arena import _Probe, fits_together, set_constants
from hypothesis import given, settings
from hypothesis import strategies as st

FILL = ["DTCM", "SRAM"]


@st.composite
def probes(draw) -> list[_Probe]:
    caps = {"DTCM": 16 * draw(st.integers(0, 4096)), "SRAM": 16 * draw(st.integers(0, 8192))}
    made = []
    count = draw(st.integers(2, 3))
    for _ in range(count):
        movable = [
            (16 * draw(st.integers(1, 256)), draw(st.integers(0, 1 << 20)))
            for _ in range(draw(st.integers(0, 8)))
        ]
        constants = {"DTCM": sum(size for size, _ in movable)}
        needs = {"dtcm": 16 * draw(st.integers(0, 1024)), "sram": 16 * draw(st.integers(0, 1024))}
        # Each module's state fits its share of the DTCM, as each model alone must.
        state = {"DTCM": 16 * draw(st.integers(0, caps["DTCM"] // 16 // count))}
        made.append(_Probe(needs, state, constants, movable, dict(caps), list(FILL)))
    return made


@settings(max_examples=80, deadline=None)
@given(probes())
def test_each_module_gets_a_share_the_set_can_hold(made):
    shares = set_constants(made)
    if fits_together(made):
        assert shares is None  # each module keeps the plan it made alone
        return
    assert shares is not None
    caps = made[0].caps
    for memory in FILL:
        held = sum(s["constants"][memory.lower()] for s in shares)
        state = sum(p.state.get(memory, 0) for p in made)
        # The set's constants fit beside the set's state in each memory.
        assert held + state <= caps[memory]
        for index, share in enumerate(shares):
            others = sum(
                shares[j]["constants"][memory.lower()] + made[j].state.get(memory, 0)
                for j in range(len(made))
                if j != index
            )
            assert share["reserved"][memory.lower()] == others
    for share, probe in zip(shares, made, strict=True):
        # A module's share never exceeds its constants (each rounded to 16 bytes).
        assert sum(share["constants"].values()) <= sum((size + 15) // 16 * 16 for size, _ in probe.movable)


@settings(max_examples=40, deadline=None)
@given(probes())
def test_the_constants_read_most_per_byte_take_the_first_memory(made):
    shares = set_constants(made)
    if shares is None:
        return
    ranked = sorted(
        ((accessed / size, size) for p in made for size, accessed in p.movable), key=lambda row: -row[0]
    )
    room = made[0].caps["DTCM"] - sum(p.state.get("DTCM", 0) for p in made)
    # The densest constants up to the first one that does not fit are all in DTCM.
    prefix = 0
    for _, size in ranked:
        if prefix + size > room:
            break
        prefix += size
    assert sum(s["constants"]["dtcm"] for s in shares) >= prefix
