"""Transform: apply the registered graph rewrites that ``transforms[]`` enables, in their declared order.

A transform is a class with ``NAME``, optional ``OPTIONS`` (a pydantic model or dataclass, or None
for none), ``ENABLED_BY_DEFAULT``, optional ``ORDER`` (an int: lower runs first, default
:data:`helia_aot.registry.DEFAULT_TRANSFORM_ORDER`; ties run by name) and
``apply(model, context) -> AirModel``. The order is the transforms' own declaration, never the order
plugins happened to register them. Configuration entries either name a transform or ``"*"`` (all
of them, without options).

The AIR verifier runs after every transform that rewrote the graph and once more at the end of the
stage. A transform says it left the graph alone by setting ``rewrote = False`` on itself in
``apply`` (see :func:`transform_rewrote`); one that says nothing counts as having rewritten it. A
thousand-operator model runs six transforms of which most find nothing to do, and a verifier run
is a walk over every tensor and operator.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from helia_aot.air import AirModel, verify_model
from helia_aot.config.args import ConvertArgs
from helia_aot.config.rules import TransformConfig
from helia_aot.errors import InvalidConfigError, OperatorOrderError
from helia_aot.registry.context import RegistryContext


def select_transforms(config_entries: list[TransformConfig], context: RegistryContext) -> list[Any]:
    """Instantiate the enabled transforms in their declared order, validating the configuration.

    Raises InvalidConfigError for an unknown name (with the nearest and every registered name), a
    name listed twice, options on ``"*"`` and options a transform's ``OPTIONS`` rejects.
    """
    ordered = context.ordered_transforms()
    enabled = {name: bool(getattr(cls, "ENABLED_BY_DEFAULT", True)) for name, cls in ordered}
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
        name, _ = context.transforms.select(name, setting="transforms[].name")
        enabled[name] = entry.enabled
        if entry.options:
            options[name] = dict(entry.options)
    selected = []
    for name, cls in ordered:
        if not enabled[name]:
            continue
        spec = getattr(cls, "OPTIONS", None)
        raw = options.get(name, {})
        if spec is None:
            if raw:
                raise InvalidConfigError(f"transform {name} takes no options", hint="remove its options")
            selected.append(cls())
            continue
        try:
            value = TypeAdapter(spec).validate_python(raw)
        except ValidationError as exc:
            accepted = ", ".join(_option_names(spec)) or "none"
            raise InvalidConfigError(
                f"transform {name}: options rejected: {exc}",
                hint=f"{name} takes the options: {accepted} (the fields of its OPTIONS type); "
                "`helia-aot plugins` names the pack that registered it",
            ) from exc
        selected.append(cls(value))
    return selected


def _option_names(spec: Any) -> list[str]:
    """The option names a transform's ``OPTIONS`` (pydantic model or dataclass) declares."""
    fields = getattr(spec, "model_fields", None) or getattr(spec, "__dataclass_fields__", None) or {}
    return sorted(str(name) for name in fields)


def transform_rewrote(transform: Any) -> bool:
    """Whether ``transform``'s last ``apply`` may have changed the graph.

    A transform reports ``rewrote = False`` when it found nothing to rewrite; anything else
    (``True``, no attribute: a plugin written before the attribute existed) counts as a rewrite,
    so the verifier never skips a graph it has not been told is unchanged.
    """
    return getattr(transform, "rewrote", True) is not False


def run_transforms(model: AirModel, config: ConvertArgs, context: RegistryContext) -> AirModel:
    """Run the selected transforms; each must leave a model the verifier accepts.

    The verifier runs after each transform that rewrote the graph (so a broken graph is blamed on
    the transform that broke it); when none did, it runs once at the end, so the graph leaving
    the stage has always been verified.
    """
    verified = False  # whether the verifier has seen the graph as it is now
    for transform in select_transforms(config.transforms, context):
        model = transform.apply(model, context) or model
        if transform_rewrote(transform):
            _check(model, f"transform {getattr(transform, 'NAME', type(transform).__name__)}")
            verified = True
    if not verified:
        _check(model, "the Transform stage")
    return model


def _check(model: AirModel, blamed: str) -> None:
    """Raise OperatorOrderError when the verifier finds a problem in ``model`` after ``blamed``."""
    problems = verify_model(model)
    if problems:
        raise OperatorOrderError(
            f"{blamed} left an invalid graph: {problems[0]}",
            hint="disable the transform in transforms[] and report the model",
            details=problems,
        )
