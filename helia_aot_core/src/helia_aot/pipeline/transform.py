"""Transform: apply the registered graph rewrites that ``transforms[]`` enables, in registry order.

A transform is a class with ``NAME``, optional ``OPTIONS`` (a pydantic model or dataclass, or None
for none), ``ENABLED_BY_DEFAULT`` and ``apply(model, context) -> AirModel``. Configuration entries
either name a transform or ``"*"`` (all of them, without options).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from helia_aot.air import AirModel, verify_model
from helia_aot.errors import InvalidConfigError, OperatorOrderError


def select_transforms(config_entries: list[Any], registry: Any) -> list[Any]:
    """Instantiate the enabled transforms in registry order, validating the configuration."""
    known = registry.keys()
    enabled = {name: bool(getattr(registry.get(name), "ENABLED_BY_DEFAULT", True)) for name in known}
    options: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for entry in config_entries or ():
        name = entry.name
        if name in seen:
            raise InvalidConfigError(
                f"transform {name!r} is listed twice in transforms[]", hint="list each transform once"
            )
        seen.add(name)
        if name == "*":
            if entry.options:
                raise InvalidConfigError(
                    "options are not accepted on the '*' transform entry",
                    hint="give options on a named entry",
                )
            for key in enabled:
                enabled[key] = entry.enabled
            continue
        if name not in enabled:
            raise InvalidConfigError(
                f"unknown transform {name!r}", hint=f"registered transforms: {', '.join(known) or '(none)'}"
            )
        enabled[name] = entry.enabled
        if entry.options:
            options[name] = dict(entry.options)
    selected = []
    for name in known:
        if not enabled[name]:
            continue
        cls = registry.get(name)
        spec = getattr(cls, "OPTIONS", None)
        raw = options.get(name, {})
        if spec is None:
            if raw:
                raise InvalidConfigError(f"transform {name} takes no options", hint="remove its options")
            value = None
        else:
            try:
                value = TypeAdapter(spec).validate_python(raw)
            except ValidationError as exc:
                raise InvalidConfigError(
                    f"transform {name}: options rejected: {exc}",
                    hint=f"the options {name} takes are the fields of its OPTIONS type; `helia-aot plugins` "
                    "names the pack that registered it",
                ) from exc
        selected.append(cls(value) if spec is not None else cls())
    return selected


def run_transforms(model: AirModel, config: Any, context: Any) -> AirModel:
    """Run the selected transforms; each must leave a model the verifier accepts."""
    for transform in select_transforms(config.transforms, context.transforms):
        model = transform.apply(model, context) or model
        problems = verify_model(model)
        if problems:
            raise OperatorOrderError(
                f"transform {getattr(transform, 'NAME', type(transform).__name__)} left an invalid "
                f"graph: {problems[0]}",
                hint="disable the transform in transforms[] and report the model",
                details=problems,
            )
    return model
