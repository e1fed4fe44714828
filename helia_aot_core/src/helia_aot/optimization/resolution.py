"""Knob resolution: which value of each knob an operator runs with, and why.

A knob's requested value comes from, in rising precedence, nothing (``auto``, source
``default``), the model-wide ``optimization`` section (source ``model``) and every
``operators[]`` rule reaching the operator, later rules winning (source ``operator``). ``auto``
becomes a value through the goal: the knob's ``auto`` table names one, and then the operator may
prefer another by its modeled cycles (``AotOperator.modeled_knob_choice``: the built-in pack reads
a cycle table per layer shape that bench/kernel_cycles.py writes, for ``latency`` and
``balanced``). The operator then says which
values its kernels offer (``AotOperator.knob_values``): a value it does not offer falls back to
its first offered value, and when that value was asked for explicitly the report carries a
``knob_not_honoured`` hint. The result is recorded in the plan exactly as resolved, so the plan
is the single place to see why a module has the kernels it has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from helia_aot.config.enums import OptimizationGoal
from helia_aot.optimization.knobs import KnobSpec

if TYPE_CHECKING:
    from helia_aot.config.args import ConvertArgs

AUTO = "auto"

ModeledChoice = Callable[[str, str, tuple[str, ...], str], "str | None"]
"""An operator's preference by modeled cycles: (knob, goal, offered values, the ``auto`` table's
value) -> the value it prefers, or None for no say (``AotOperator.modeled_knob_choice``)."""


# Never compared, hashed (a mapping field makes it unhashable) or printed: no generated
# __eq__/__hash__/__repr__ (each costs start-up time).
@dataclass(frozen=True, eq=False, repr=False)
class KnobRequest:
    """What the configuration asks of one knob of one operator, and where the request comes from.

    ``kind`` is ``default`` (nothing asked: ``auto``), ``model`` (``optimization.<knob>``) or
    ``operator`` (an ``operators[]`` rule; ``rule`` is its ``{index, type, id}``).
    """

    value: str
    kind: str
    rule: Mapping[str, Any] | None = None

    @property
    def explicit(self) -> bool:
        return self.value != AUTO


# Never compared, hashed (a mapping field makes it unhashable) or printed: no generated
# __eq__/__hash__/__repr__ (each costs start-up time).
@dataclass(frozen=True, eq=False, repr=False)
class KnobResolution:
    """One knob of one operator: the value used and how it was reached.

    ``wanted`` is what the request or the goal's ``auto`` asked for before the operator's offer
    was consulted; ``honoured`` is False when an explicit request named a value the operator's
    kernels do not offer (or an approximate value without ``allow_approximate``).
    """

    name: str
    value: str
    request: KnobRequest
    wanted: str
    offered: tuple[str, ...]
    approximate: bool
    honoured: bool
    auto_basis: str = ""
    reason: str = ""

    def plan_record(self) -> dict[str, Any]:
        """The plan's ``KnobChoice`` of this knob (the heliaAOT 1.1 shape)."""
        rule = dict(self.request.rule) if self.request.rule is not None else None
        return {
            "value": self.value,
            "requested": self.request.value,
            "resolved_by": "explicit" if self.request.explicit else "auto_table",
            "source": {"kind": self.request.kind, "rule": rule},
            "approximate": self.approximate,
        }


# Never compared, hashed (a mapping field makes it unhashable) or printed: no generated
# __eq__/__hash__/__repr__ (each costs start-up time).
@dataclass(frozen=True, eq=False, repr=False)
class KnobSettings:
    """The model-wide settings resolution reads: goal, allow_approximate and the global knobs."""

    goal: OptimizationGoal = OptimizationGoal.BALANCED
    allow_approximate: bool = False
    requested: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: ConvertArgs, names: Iterable[str]) -> KnobSettings:
        optimization = config.optimization
        goal = OptimizationGoal(str(optimization.goal or "balanced").lower())
        requested = {}
        for name in names:
            # A knob by its name: the section has a field per built-in knob, none for a pack's own.
            value = getattr(optimization, name, None)
            requested[name] = str(getattr(value, "value", value) or AUTO).lower()
        return cls(goal, bool(optimization.allow_approximate), requested)


def knob_requests(
    specs: Sequence[KnobSpec],
    settings: KnobSettings,
    rules: Sequence[Any],
    reaches: Callable[[Any], bool],
) -> dict[str, KnobRequest]:
    """Each knob's request for one operator: global value, then every rule ``reaches`` accepts."""
    requests = {}
    for spec in specs:
        value = settings.requested.get(spec.name, AUTO)
        requests[spec.name] = KnobRequest(value, "default" if value == AUTO else "model")
    for index, rule in enumerate(rules):
        optimization = getattr(rule, "optimization", None)
        if optimization is None or not reaches(rule):
            continue
        for spec in specs:
            asked = getattr(optimization, spec.name, None)
            if asked is not None:
                ref = {
                    "index": index,
                    "type": str(getattr(rule, "type", "*")),
                    "id": getattr(rule, "id", None),
                }
                requests[spec.name] = KnobRequest(
                    str(getattr(asked, "value", asked)).lower(), "operator", ref
                )
    return requests


def resolve_knob(
    spec: KnobSpec,
    request: KnobRequest,
    settings: KnobSettings,
    op_type: str,
    offered: Sequence[str],
    modeled: ModeledChoice | None = None,
) -> KnobResolution:
    """Resolve one knob of one operator (see the module docstring for the order of sources)."""
    offer = tuple(offered) or (spec.default,)
    basis = ""
    if request.explicit:
        wanted = request.value
    else:
        wanted = spec.resolve(settings.goal, op_type=op_type, allow_approximate=settings.allow_approximate)
        basis = "auto_table"
        preferred = modeled(spec.name, settings.goal.value, offer, wanted) if modeled is not None else None
        if preferred is not None and preferred in offer and preferred != wanted:
            wanted, basis = preferred, "modeled_cycles"
    reason = ""
    honoured = True
    value = wanted
    if wanted in spec.approximate_values and not settings.allow_approximate:
        value, honoured = spec.default if spec.default in offer else offer[0], False
        reason = f"{wanted} is approximate and optimization.allow_approximate is false"
    elif wanted not in offer:
        value = offer[0]
        honoured = not request.explicit
        reason = f"{op_type} offers {', '.join(offer)} here, not {wanted}"
    return KnobResolution(
        name=spec.name,
        value=value,
        request=request,
        wanted=wanted,
        offered=offer,
        approximate=value in spec.approximate_values,
        honoured=honoured,
        auto_basis=basis,
        reason=reason,
    )


__all__ = [
    "AUTO",
    "KnobRequest",
    "ModeledChoice",
    "KnobResolution",
    "KnobSettings",
    "knob_requests",
    "resolve_knob",
]
