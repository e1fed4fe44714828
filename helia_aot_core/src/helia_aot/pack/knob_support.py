"""register_knob_values: how a pack makes a knob reach its own operator type.

The knobs live in the registry context's ``knobs`` registry (one ``KnobSpec`` each). A pack whose
operator has kernel variants registers the knob for its operator type here, naming the values
its kernels offer; the operator class then lists those values (``KNOB_VALUES`` or
``knob_values()``), reads the resolved one with ``self.knob(name)`` in ``on_resolve`` and
``emit``, and may describe each variant's costs through ``kernel_variants()``. The goal's
``auto`` table, the ``operators[]`` overrides, the plan's knob records and the
``knob_not_honoured`` hint then work for it exactly as for the built-in operators.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from helia_aot.optimization.knobs import KnobSpec

if TYPE_CHECKING:
    from helia_aot.registry.context import RegistryContext


def register_knob_values(
    context: RegistryContext, knob: str, op_type: str, values: tuple[str, ...] = ()
) -> KnobSpec:
    """Make knob ``knob`` apply to ``op_type`` (and accept ``values``); returns the spec registered.

    ``values`` may add values the knob did not have (a pack's own variant); the configuration
    accepts only the values its schema knows, so a new value is reached through the ``auto``
    tables or the operator's preference order. An unknown knob raises KeyError naming it.
    """
    registry = context.knobs
    if knob not in registry:
        raise KeyError(knob)
    spec: KnobSpec = registry.get(knob)
    merged = spec.values + tuple(v for v in values if v not in spec.values)
    # Registered beside the built-in (key "<knob>:<op type>") rather than over it, so a pack never
    # replaces a core registration; resolution reads every spec whose applies_to names the type.
    own = dataclasses.replace(spec, values=merged, applies_to=frozenset({op_type}), operator_auto={})
    registry.register(f"{knob}:{op_type}", own)
    return own


__all__ = ["register_knob_values"]
