"""Knobs: the per-operator choices an optimization goal resolves (``accumulation``, ``kernel``).

A knob is a choice an operator may offer, with the values it can take, the value it has when
nothing asks otherwise, and the value each ``optimization.goal`` picks when it is left on ``auto``.

Where knobs live: the registry context's ``knobs`` registry is the one source of truth a
conversion reads, so a plugin can add a knob exactly as it adds an operator. :data:`KNOBS` is the
tuple of built-in specs the core plugin registers there; the module-level helpers below
(:func:`knob`, :func:`knob_names`, :func:`default_knob_values`) read that same tuple, for scripts
that want the defaults without building a context. The tuple and its frozen specs cannot be
changed, so they can never disagree with what was registered; a context with extra knobs from a
plugin is read through ``context.knobs``. (This issue makes the knobs exist, resolve to their
defaults and be documented; the optimization issue makes them change the generated code.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from helia_aot.config.enums import OptimizationGoal

_EMPTY: Mapping[str, Mapping[OptimizationGoal, str]] = MappingProxyType({})


def _goals(latency: str, balanced: str, size: str, accuracy: str) -> Mapping[OptimizationGoal, str]:
    return MappingProxyType(
        {
            OptimizationGoal.LATENCY: latency,
            OptimizationGoal.BALANCED: balanced,
            OptimizationGoal.SIZE: size,
            OptimizationGoal.ACCURACY: accuracy,
        }
    )


@dataclass(frozen=True)
class KnobSpec:
    """One knob: its values, default, what each goal picks on ``auto``, and where it applies.

    ``approximate_values`` may differ from the reference kernels' results: ``auto`` picks one only
    with ``optimization.allow_approximate``, otherwise the default. ``applies_to`` names the
    operator types (canonical keys) that offer the knob; ``operator_auto`` overrides ``auto`` for
    one operator type and goal.
    """

    name: str
    values: tuple[str, ...]
    default: str
    approximate_values: frozenset[str]
    auto: Mapping[OptimizationGoal, str]
    applies_to: frozenset[str]
    summary: str
    operator_auto: Mapping[str, Mapping[OptimizationGoal, str]] = field(default_factory=lambda: _EMPTY)

    def __post_init__(self) -> None:
        if self.default not in self.values:
            raise ValueError(f"knob {self.name}: default {self.default!r} is not one of {self.values}")
        unknown = (set(self.approximate_values) | set(self.auto.values())) - set(self.values)
        for per_goal in self.operator_auto.values():
            unknown |= set(per_goal.values()) - set(self.values)
        if unknown:
            raise ValueError(f"knob {self.name}: {sorted(unknown)} are not among its values {self.values}")

    def resolve(
        self, goal: OptimizationGoal | str, *, op_type: str | None = None, allow_approximate: bool = False
    ) -> str:
        """What ``auto`` means for ``goal`` (and ``op_type``); approximate only when allowed."""
        goal = OptimizationGoal(str(goal).lower())
        table = self.operator_auto.get(op_type, self.auto) if op_type is not None else self.auto
        value = table.get(goal, self.auto.get(goal, self.default))
        if value in self.approximate_values and not allow_approximate:
            return self.default
        return value


KNOBS: tuple[KnobSpec, ...] = (
    KnobSpec(
        name="accumulation",
        values=("precise", "fast"),
        default="precise",
        approximate_values=frozenset({"fast"}),
        auto=_goals(latency="fast", balanced="precise", size="precise", accuracy="precise"),
        applies_to=frozenset({"FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D"}),
        summary="How reductions accumulate: bit-exact with the reference (precise) or faster (fast).",
    ),
    KnobSpec(
        name="kernel",
        values=("specialized", "generic"),
        default="specialized",
        approximate_values=frozenset(),
        auto=_goals(latency="specialized", balanced="specialized", size="generic", accuracy="specialized"),
        applies_to=frozenset({"DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "CONV_2D", "RESIZE_BILINEAR"}),
        summary="Shape-specialized kernels (faster, more code) or one generic kernel per type (smaller).",
        # goal size: the int8 convolutions run their fast loops from the model's own bias (no
        # folded constants, no fast-path buffer; see the operator pack), and fully connected
        # keeps its fast path (4 B per output channel of constants for ~10x fewer instructions).
        operator_auto=MappingProxyType(
            {
                op_type: MappingProxyType({OptimizationGoal.SIZE: "specialized"})
                for op_type in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
            }
        ),
    ),
)
"""The built-in knobs, in the order reports list them (registered into ``context.knobs``)."""

_BY_NAME: Mapping[str, KnobSpec] = MappingProxyType({spec.name: spec for spec in KNOBS})


def knob(name: str) -> KnobSpec:
    """The built-in knob called ``name``; an unknown name raises KeyError(name)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(name) from None


def knob_names() -> frozenset[str]:
    """The names of the built-in knobs."""
    return frozenset(_BY_NAME)


def default_knob_values() -> dict[str, str]:
    """Each built-in knob's default value, by name (a new dict each call)."""
    return {spec.name: spec.default for spec in KNOBS}


__all__ = ["KNOBS", "KnobSpec", "default_knob_values", "knob", "knob_names"]
