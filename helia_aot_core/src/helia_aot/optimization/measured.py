"""Our own measurements of the knob values: instructions, code and constant bytes per family.

``measured.json`` (beside this module) is written by ``bench/knob_measurements.py``, which
converts one small model per kernel family with each knob value, runs it on the Cortex-M55 and
Cortex-M4 under QEMU and links it for the target. The report's goal hints quote its code bytes
and instructions (``helia_aot.pipeline.knob_hints``). It decides no choice: which kernel a goal
takes for a layer is the operator's, by modeled cycles per layer shape
(``AotOperator.modeled_knob_choice``; the built-in pack's kernel cycle table, written by
``bench/kernel_cycles.py``), else the knob's ``auto`` table.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict

MEASURED_FORMAT_VERSION = 1


class MeasuredKnob(BaseModel):
    """One family, knob value and CPU: instructions per inference of the bench model and its bytes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: str
    knob: str
    value: str
    cpu: str
    instructions: int
    code_bytes: int
    const_bytes: int
    scratch_bytes: int
    subject: str


class _MeasuredFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format_version: int
    generated_by: str
    entries: list[MeasuredKnob]


@lru_cache(maxsize=1)
def measured_table() -> tuple[MeasuredKnob, ...]:
    """The packaged table (read once); an unknown format_version is refused with ValueError."""
    text = resources.files(__package__).joinpath("measured.json").read_text(encoding="utf-8")
    data: Any = json.loads(text)
    if data.get("format_version") != MEASURED_FORMAT_VERSION:
        raise ValueError(f"unsupported measured.json format {data.get('format_version')}")
    return tuple(_MeasuredFile.model_validate(data).entries)


def measured_for(family: str, knob: str, cpu: str = "cortex-m55") -> dict[str, MeasuredKnob]:
    """The entries of one family and knob on ``cpu``, by knob value."""
    return {e.value: e for e in measured_table() if (e.family, e.knob, e.cpu) == (family, knob, cpu)}


__all__ = ["MEASURED_FORMAT_VERSION", "MeasuredKnob", "measured_for", "measured_table"]
