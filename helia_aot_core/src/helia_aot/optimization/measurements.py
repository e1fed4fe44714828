"""Measurement records: what a setting's value was measured to gain, on which target and core.

The report quotes these next to a hint, so a suggestion says what it was measured to do and where;
nothing is extrapolated to another target, core or setting. The packaged ``measurements.json``
has the product's format (``format_version`` 1: ``{"format_version": 1, "records": [...]}``, no
other top-level key) so a file of either tool reads with the other. This release ships no
measurements of its own yet (``records`` is empty): a number enters the file only with the run
that produced it named in ``source``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

MEASUREMENTS_FORMAT_VERSION = 1
"""The ``format_version`` this release reads and writes."""


class MeasurementRecord(BaseModel):
    """One measured effect of setting ``setting`` to ``value`` on ``target`` / ``cpu``.

    Every field is text, as measured results are quoted rather than computed with. Unknown keys in
    a record are ignored on read (a later format may add some); ``core`` is read as ``cpu``.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    setting: str
    value: str
    target: str
    cpu: str = Field(validation_alias=AliasChoices("cpu", "core"))
    cmsis_nn: str
    helia_aot: str
    subject: str
    gain: str
    accuracy: str
    conditions: str
    source: str
    generated_by: str


class _MeasurementsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format_version: int
    records: list[MeasurementRecord]


def _parse(data: Any, origin: str) -> tuple[MeasurementRecord, ...]:
    version = data.get("format_version") if isinstance(data, dict) else None
    if version != MEASUREMENTS_FORMAT_VERSION:
        raise ValueError(f"unsupported measurements format {version} in {origin}")
    return tuple(_MeasurementsFile.model_validate(data).records)


@lru_cache(maxsize=1)
def _packaged() -> tuple[MeasurementRecord, ...]:
    text = resources.files(__package__).joinpath("measurements.json").read_text(encoding="utf-8")
    return _parse(json.loads(text), "the packaged measurements.json")


def load_measurements(path: str | Path | None = None) -> tuple[MeasurementRecord, ...]:
    """The records of the packaged file (read once), or of the file at ``path`` (ours: any file).

    Another ``format_version`` raises ValueError ``unsupported measurements format N``; a record
    missing a field or a file with an extra top-level key is a pydantic ValidationError.
    """
    if path is None:
        return _packaged()
    return _parse(json.loads(Path(path).read_text(encoding="utf-8")), str(path))


def measurements_for(
    setting: str,
    target: str,
    cpu: str,
    records: tuple[MeasurementRecord, ...] | None = None,
) -> list[MeasurementRecord]:
    """The records for exactly this setting, target and cpu (no extrapolation), in file order.

    ``records`` defaults to :func:`load_measurements` (ours: pass another file's records).
    """
    source = load_measurements() if records is None else records
    return [r for r in source if (r.setting, r.target, r.cpu) == (setting, target, cpu)]


__all__ = ["MEASUREMENTS_FORMAT_VERSION", "MeasurementRecord", "load_measurements", "measurements_for"]
