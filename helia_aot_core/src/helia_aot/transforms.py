"""Graph transforms for scripts: the base class, the pipeline, and the default registrations.

A conversion runs transforms itself (``helia_aot.pipeline.transform``), from the ``transforms``
registry of its context and the ``transforms[]`` configuration. This module is the product's
public surface for doing the same by hand: :class:`AirTransform` to subclass,
:class:`TransformPipeline` to run a chosen list over a model, :class:`TransformSpec` (one
``transforms[]`` entry) and :func:`register_default_transforms` to fill a registry with the
transforms a default context has. It sits above the pipeline and the context building it reuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from helia_aot.air import AirModel, verify_model
from helia_aot.config.rules import TransformConfig
from helia_aot.errors import OperatorOrderError
from helia_aot.pipeline.transform import select_transforms
from helia_aot.registry import build_default_registry_context
from helia_aot.registry.context import RegistryContext
from helia_aot.registry.registry import Registry

TransformSpec = TransformConfig
"""One ``transforms[]`` entry: ``name`` (or ``"*"``), ``enabled``, ``options``."""


class NoOptions(BaseModel):
    """The ``OPTIONS`` of a transform that takes none: any key is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class AirTransform:
    """Base class of a graph rewrite: ``NAME``, ``OPTIONS``, ``ORDER`` and :meth:`apply`.

    ``OPTIONS`` is the pydantic model (or dataclass) of the options ``transforms[].options`` may
    set, ``None`` or :class:`NoOptions` for none; a conversion validates them and constructs the
    transform with the validated value as its first argument. ``ORDER`` places it in the run order
    (lower first, ties by name); ``ENABLED_BY_DEFAULT`` says whether it runs without an entry.
    """

    NAME: ClassVar[str] = ""
    OPTIONS: ClassVar[type | None] = None
    ORDER: ClassVar[int] = 100
    ENABLED_BY_DEFAULT: ClassVar[bool] = True
    ADDED_DTYPES: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """Operator key -> element types this transform makes convertible by rewriting the operator
    onto types its kernels take (the catalogue lists them with the operator's own types)."""
    rewrote: bool = True
    """Set by :meth:`apply`: False when it found nothing to rewrite, so a conversion skips the AIR
    verifier after it (``helia_aot.pipeline.transform``); left True, the graph is verified."""

    def __init__(self, options: Any = None, *, enabled: bool = True) -> None:
        self.options = options
        self.enabled = enabled

    @property
    def name(self) -> str:
        """The registered name (``NAME``, or the class name when it declares none)."""
        return self.NAME or type(self).__name__

    def apply(self, model: AirModel, context: RegistryContext) -> AirModel | None:
        """Rewrite ``model`` (in place or by returning a new one); subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__} does not implement apply()")


class TransformPipeline:
    """An ordered list of transform instances, run one after another over a model."""

    def __init__(self, transforms: Sequence[Any]) -> None:
        self.transforms = list(transforms)

    @classmethod
    def from_config(
        cls,
        entries: Sequence[TransformConfig | Mapping[str, Any]] | None = None,
        context: RegistryContext | None = None,
    ) -> TransformPipeline:
        """The transforms a conversion would run for ``entries`` with ``context`` (default: built-ins).

        An entry is a :class:`TransformSpec` or the mapping a ``transforms[]`` item holds in YAML.
        Raises InvalidConfigError for what a conversion refuses (unknown or repeated names,
        options on ``"*"``, options a transform rejects).
        """
        context = context or build_default_registry_context()
        specs = [
            e if isinstance(e, TransformConfig) else TransformConfig.model_validate(e) for e in entries or ()
        ]
        return cls(select_transforms(specs, context))

    def apply(self, model: AirModel, context: RegistryContext | None = None) -> AirModel:
        """Run every enabled transform; each must leave a graph the AIR verifier accepts."""
        context = context or build_default_registry_context()
        for transform in self.transforms:
            if not getattr(transform, "enabled", True):
                continue
            model = transform.apply(model, context) or model
            problems = verify_model(model)
            if problems:
                raise OperatorOrderError(
                    f"transform {getattr(transform, 'NAME', type(transform).__name__)} left an invalid "
                    f"graph: {problems[0]}",
                    hint="leave the transform out of the pipeline and report the model",
                    details=problems,
                )
        return model


def register_default_transforms(registry: Registry[type]) -> None:
    """Register, with overwrite, every transform a default context has (the installed plugins').

    The core itself ships no graph rewrite; the transforms are those the installed operator
    packs register, so this fills ``registry`` with what a conversion would run.
    """
    for name, transform in build_default_registry_context().transforms.items():
        registry.register(name, transform, overwrite=True)


__all__ = ["AirTransform", "NoOptions", "TransformPipeline", "TransformSpec", "register_default_transforms"]
