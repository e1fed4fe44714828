"""Arena planners: the orders in which first-fit places buffers.

Each is a function ``planner(buffers, *, seed=0, options=None) -> ArenaPlan``; the core registers
these three in ``RegistryContext.memory_planners`` under ``greedy``, ``greedy_by_size`` and
``hill_climb``, and ``memory.planner`` picks one from that registry, a plugin's planner exactly
like a built-in one. A planner checks its own ``options`` and raises InvalidConfigError for one it
does not take.

``greedy`` places by start of life, ``greedy_by_size`` largest first (TFLM's default), and
``hill_climb`` searches placement orders from the better of the two. Every planner is deterministic:
ties break on request ids, and the search draws from a ``random.Random`` seeded by the caller.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from helia_aot.errors import InvalidConfigError
from helia_aot.memory.placement import Placer, peak_live
from helia_aot.memory.types import ArenaPlan, BufferRequest

DEFAULT_ITERATIONS = 300
"""Hill-climb steps when ``options["iterations"]`` is not given: enough to close most of the gap
the greedy orders leave on model-sized graphs, while a plan still takes well under a second."""


def _plan(placer: Placer, order: Sequence[int], lower_bound: int, name: str) -> ArenaPlan:
    offsets, used = placer.place(order)
    return ArenaPlan(
        offsets={b.id: offsets[i] for i, b in enumerate(placer.buffers)},
        used=used,
        peak_live=lower_bound,
        planner=name,
    )


def _order_by_first(buffers: Sequence[BufferRequest]) -> list[int]:
    return sorted(range(len(buffers)), key=lambda i: (buffers[i].first, buffers[i].id))


def _order_by_size(buffers: Sequence[BufferRequest]) -> list[int]:
    return sorted(range(len(buffers)), key=lambda i: (-buffers[i].size, buffers[i].first, buffers[i].id))


def _check_options(
    name: str, options: Mapping[str, object] | None, known: tuple[str, ...]
) -> dict[str, object]:
    given = dict(options or {})
    unknown = sorted(str(k) for k in given if k not in known)
    if unknown:
        accepted = ", ".join(known) if known else "none"
        raise InvalidConfigError(
            f"memory planner {name!r} has no option {', '.join(map(repr, unknown))}.",
            hint=f"Options {name!r} accepts: {accepted}.",
        )
    return given


def plan_greedy(
    buffers: Sequence[BufferRequest], *, seed: int = 0, options: Mapping[str, object] | None = None
) -> ArenaPlan:
    """First-fit in order of first use (then id): predictable, and good on chain-shaped graphs."""
    _check_options("greedy", options, ())
    placer = Placer(buffers)
    return _plan(placer, _order_by_first(placer.buffers), peak_live(placer.buffers), "greedy")


def plan_greedy_by_size(
    buffers: Sequence[BufferRequest], *, seed: int = 0, options: Mapping[str, object] | None = None
) -> ArenaPlan:
    """First-fit largest buffer first, as TFLM's greedy planner does: big tensors pin the layout
    early and small ones fill the holes between them."""
    _check_options("greedy_by_size", options, ())
    placer = Placer(buffers)
    return _plan(placer, _order_by_size(placer.buffers), peak_live(placer.buffers), "greedy_by_size")


def plan_hill_climb(
    buffers: Sequence[BufferRequest], *, seed: int = 0, options: Mapping[str, object] | None = None
) -> ArenaPlan:
    """Local search over placement orders, starting from the better greedy order.

    Any packing is reproduced or improved by first-fit in the order of its offsets, so searching
    orders loses nothing. Each step perturbs the order (swap two buffers, move one, or pull a buffer
    that reaches the top of the arena earlier), re-places, and keeps the change unless ``used``
    grows; accepting ties lets the search drift across plateaus. It stops after
    ``options["iterations"]`` steps (default :data:`DEFAULT_ITERATIONS`) or as soon as ``used``
    equals ``peak_live``, which no plan can beat. ``options["seed"]`` replaces ``seed`` (the
    configuration's ``memory.planner_options.seed``) and ``options["max_stall_iterations"]`` (an
    integer from 1, or None for no limit) also stops it after that many steps in a row that did not
    lower ``used``.
    """
    given = _check_options("hill_climb", options, ("iterations", "seed", "max_stall_iterations"))
    iterations = given.get("iterations", DEFAULT_ITERATIONS)
    seed = given.get("seed", seed)  # type: ignore[assignment]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidConfigError(
            f"memory planner option 'seed' must be an integer, not {seed!r}.",
            hint="Give any integer; the same seed gives the same plan.",
        )
    stall_limit = given.get("max_stall_iterations")
    if stall_limit is not None and (
        isinstance(stall_limit, bool) or not isinstance(stall_limit, int) or stall_limit < 1
    ):
        raise InvalidConfigError(
            f"memory planner option 'max_stall_iterations' must be an integer from 1, not {stall_limit!r}.",
            hint="Give how many non-improving steps in a row end the search, e.g. 50, or null for no limit.",
        )
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise InvalidConfigError(
            f"memory planner option 'iterations' must be a non-negative integer, not {iterations!r}.",
            hint="Give the number of hill-climb steps, e.g. 300 (0 keeps the better greedy plan).",
        )
    placer = Placer(buffers)
    bound = peak_live(placer.buffers)
    starts = [_order_by_first(placer.buffers), _order_by_size(placer.buffers)]
    placed = [placer.place(order) for order in starts]
    pick = min(range(len(starts)), key=lambda k: placed[k][1])
    order = starts[pick]
    offsets, used = placed[pick]
    n = len(order)
    rng = random.Random(seed)
    stalled = 0
    for _ in range(iterations):
        if used <= bound or n < 2 or (stall_limit is not None and stalled >= stall_limit):
            break
        candidate = _perturb(order, offsets, used, placer, rng)
        new_offsets, new_used = placer.place(candidate)
        stalled = 0 if new_used < used else stalled + 1
        if new_used <= used:
            order, offsets, used = candidate, new_offsets, new_used
    return _plan(placer, order, bound, "hill_climb")


def _perturb(
    order: list[int], offsets: list[int], used: int, placer: Placer, rng: random.Random
) -> list[int]:
    """A neighbouring order: one of three moves, picked at random."""
    n = len(order)
    candidate = list(order)
    move = rng.randrange(3)
    if move == 0:
        # Buffers that end at the top of the arena are what ``used`` measures; placing one of them
        # earlier is the move most likely to lower it.
        tops = [pos for pos, i in enumerate(order) if offsets[i] + placer.size[i] == used and pos > 0]
        if tops:
            pos = rng.choice(tops)
            candidate.insert(rng.randrange(pos), candidate.pop(pos))
            return candidate
    if move == 1:
        a, b = rng.sample(range(n), 2)
        candidate[a], candidate[b] = candidate[b], candidate[a]
        return candidate
    a, b = rng.sample(range(n), 2)
    candidate.insert(b, candidate.pop(a))
    return candidate
