"""What the installed packs support: the operator catalogue, and one model checked against it.

``helia-aot ops`` and ``docs/operators.md`` list every operator from the same records (the
:class:`~helia_aot.pack.OperatorRecord` each pack registers, its operator class's
``SUPPORTED_DTYPES`` and ``RESTRICTIONS``, the plugin that provided it), so the list a user reads
cannot drift from what a conversion accepts. ``helia-aot check`` is the front half of a
conversion: it runs Load (and, when every operator parses, Transform) and Resolve for one model
with the conversion's registry context, without planning or writing anything, and says for each
operator of the file whether it converts and, if not, every reason why.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from helia_aot.air import AirModel
from helia_aot.config import ConvertArgs
from helia_aot.converter import check_extension_names, with_model_file
from helia_aot.converters.loaders import loader_for
from helia_aot.errors import UnsupportedModelError
from helia_aot.pack.record import OperatorRecord, recorded_operators
from helia_aot.pipeline.attribute_rules import check_operator_rules
from helia_aot.pipeline.resolve import resolve_operators
from helia_aot.pipeline.state_feedback import check_state_feedback
from helia_aot.pipeline.transform import run_transforms
from helia_aot.platforms import resolve_platform
from helia_aot.plugins.manager import Selection, plugin_host
from helia_aot.registry.build import build_default_registry_context
from helia_aot.registry.context import RegistryContext


@dataclass(frozen=True, slots=True)
class OperatorEntry:
    """One operator the installed packs lower.

    ``operator`` is the canonical key, ``litert_keys`` the LiteRT operator codes that lower into
    it, ``dtypes`` the element types its non-constant tensors may have (empty: refused at Resolve
    whatever the types), ``restrictions`` the sentences it is checked against, and ``pack`` /
    ``distribution`` the plugin that registered it.
    """

    operator: str
    litert_keys: tuple[str, ...]
    dtypes: tuple[str, ...]
    restrictions: tuple[str, ...]
    pack: str | None
    distribution: str | None
    weight_dtypes: tuple[str, ...] = ()
    """Element types constant weights may have beyond ``dtypes`` (``AotOperator.WEIGHT_DTYPES``)."""
    hybrid_weight_dtypes: tuple[str, ...] = ()
    """Constant weight types it runs hybrid with: float32 activations, those weights
    (``AotOperator.HYBRID_WEIGHT_DTYPES``)."""
    rewritten_dtypes: tuple[tuple[str, str], ...] = ()
    """(element type, transform name): types a registered transform rewrites the operator from
    onto ``dtypes`` (``AirTransform.ADDED_DTYPES``), so they convert while it is on."""

    @property
    def types_text(self) -> str:
        """The types as the catalogue prints them: ``float32, int8, int16; hybrid float32 with
        int8, int4 weights; weights also int4``."""
        if not self.dtypes:
            return "none: refused at Resolve"
        text = ", ".join(self.dtypes)
        text += "".join(f"; {dtype} through {name}" for dtype, name in self.rewritten_dtypes)
        if self.hybrid_weight_dtypes:
            text += f"; hybrid float32 with {', '.join(self.hybrid_weight_dtypes)} weights"
        return text + (f"; weights also {', '.join(self.weight_dtypes)}" if self.weight_dtypes else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "operator": self.operator,
            "litert_keys": list(self.litert_keys),
            "dtypes": list(self.dtypes),
            "weight_dtypes": list(self.weight_dtypes),
            "hybrid_weight_dtypes": list(self.hybrid_weight_dtypes),
            "rewritten_dtypes": [list(pair) for pair in self.rewritten_dtypes],
            "restrictions": list(self.restrictions),
            "pack": self.pack,
            "distribution": self.distribution,
        }


def _dtype_names(operator: Any) -> tuple[str, ...]:
    return tuple(np.dtype(t).name for t in (getattr(operator, "SUPPORTED_DTYPES", None) or ()))


def operator_catalogue(plugins: Selection = None) -> list[OperatorEntry]:
    """Every operator the selected plugins register, sorted by key.

    The records are collected while a fresh context is built (so each record's LiteRT keys are
    known); an operator class registered without a record appears with the LiteRT key of the
    same name when a parser is registered under it.
    """
    host = plugin_host(plugins)
    with recorded_operators() as seen:
        context = build_default_registry_context(plugins=plugins)
    by_key: dict[str, OperatorRecord] = {record.key: record for record in seen}
    labels = {record.label: record for record in host.records}
    rewritten: dict[str, list[tuple[str, str]]] = {}
    for name, transform in context.transforms.items():
        for key, dtypes in (getattr(transform, "ADDED_DTYPES", None) or {}).items():
            rewritten.setdefault(key, []).extend((str(dtype), str(name)) for dtype in dtypes)
    entries = []
    for key, operator in context.aot_operator_classes.items():
        record = by_key.get(key)
        if record is not None:
            litert_keys = tuple(record.litert_keys)
        else:
            litert_keys = (key,) if key in context.litert_parsers else ()
        plugin = labels.get(context.aot_operator_classes.provider(key) or "")
        entries.append(
            OperatorEntry(
                operator=key,
                litert_keys=litert_keys,
                dtypes=_dtype_names(operator),
                restrictions=tuple(str(r) for r in getattr(operator, "RESTRICTIONS", ()) or ()),
                pack=plugin.name if plugin is not None else None,
                distribution=plugin.distribution if plugin is not None else None,
                weight_dtypes=tuple(str(t) for t in getattr(operator, "WEIGHT_DTYPES", ()) or ()),
                hybrid_weight_dtypes=tuple(
                    str(t) for t in getattr(operator, "HYBRID_WEIGHT_DTYPES", ()) or ()
                ),
                rewritten_dtypes=tuple(sorted(rewritten.get(key, ()))),
            )
        )
    return sorted(entries, key=lambda e: e.operator)


@dataclass(frozen=True, slots=True)
class OperatorSupport:
    """One operator of a model file: its index and key in the file, and why it cannot convert
    (``reasons`` empty when it can)."""

    index: int
    key: str
    reasons: tuple[str, ...] = ()

    @property
    def supported(self) -> bool:
        return not self.reasons

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "key": self.key,
            "supported": self.supported,
            "reasons": list(self.reasons),
        }


_OPERATOR_ID = re.compile(r"#(\S+) ")


def _problem_operator(problem: str) -> str | None:
    """The AIR operator id a Resolve problem names (``#3 CONV_2D: ...``, ``operator #3 ...``)."""
    match = _OPERATOR_ID.search(problem)
    return match.group(1) if match else None


def _reason(problem: str) -> str:
    """A Resolve problem without its ``#id TYPE:`` prefix (the table already names the operator)."""
    head, sep, rest = problem.partition(": ")
    return rest.strip() if sep and _OPERATOR_ID.search(head + " ") else problem.strip()


def _resolve_problems(model: AirModel, config: ConvertArgs, context: RegistryContext) -> dict[int, list[str]]:
    """Resolve's problems by the file operator index each comes from."""
    platform = resolve_platform(config.platform, context)
    try:
        resolve_operators(model, platform, config, context)
    except UnsupportedModelError as error:
        by_id = {str(op.id): op for op in model.operators}
        found: dict[int, list[str]] = {}
        details = error.details if isinstance(error.details, list) else [error.message]
        for problem in details:
            op = by_id.get(_problem_operator(str(problem)) or "")
            indices = tuple(getattr(op, "source_indices", ()) or ()) if op is not None else ()
            for index in indices or (-1,):
                found.setdefault(int(index), []).append(_reason(str(problem)))
        return found
    return {}


def check_model(config: ConvertArgs, context: RegistryContext | None = None) -> list[OperatorSupport]:
    """Each operator of ``config``'s model file (its subgraph, in file order) with the reasons it
    cannot be converted for ``config``'s platform and settings; nothing is planned or written.

    This is the front half of a conversion: the same configuration checks, then Load (the same
    model hooks and checks, every unsupported tensor and operator collected), Transform and
    Resolve with the same registry context. When every operator parses, the model goes through
    them exactly as a conversion does, so the check passes exactly when a conversion gets past
    Resolve. Otherwise the operators that parse are checked by Resolve without the transforms (a
    transform may still fuse one of them away in a conversion), so every problem is reported,
    not only the first stage's. A problem of the model or configuration as a whole (a malformed
    file, a missing one, an unknown planner) raises its typed error, as the conversion does.
    """
    context = context or build_default_registry_context(plugins=config.plugins)
    check_operator_rules(config.operators, context)
    check_extension_names(config, context)
    with tempfile.TemporaryDirectory(prefix="helia_aot_check_") as work:
        config = with_model_file(config, Path(work))
        path = Path(config.model.path)
        reader = loader_for(path, config, context).open()
        loaded = reader.check(path, config, context)
        problems = {index: list(reasons) for index, reasons in loaded.problems.items()}
        air = loaded.model
        if air is not None:
            if loaded.complete:
                check_state_feedback(air, config.test.state_feedback)
                air = run_transforms(air, config, context)
            for index, reasons in _resolve_problems(air, config, context).items():
                problems.setdefault(index, []).extend(reasons)
        notes = reader.notes(path, config) if problems else []
    rows = [OperatorSupport(index, key, tuple(problems.pop(index, ()))) for index, key in loaded.operators]
    leftover = [reason for reasons in problems.values() for reason in reasons]
    if leftover:  # an operator a hook or transform made, with no file index: shown on its own row
        rows.append(OperatorSupport(-1, "(made by the converter)", tuple(leftover)))
    rows.extend(OperatorSupport(-1, label, (reason,)) for label, reason in notes)
    return rows


__all__ = ["OperatorEntry", "OperatorSupport", "check_model", "operator_catalogue"]
