"""The hooks a helia-aot plugin may implement, grouped by the phase that calls them.

A plugin is a module (or object) exposed through the ``helia_aot`` entry-point group; each function
marked with ``@helia_aot.plugins.hookimpl`` whose name matches a hook below is called by the core.
Built-in operators, platforms and planners arrive through these same hooks: the core imports no
plugin.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from helia_aot.platforms.model import SocPlatform
from helia_aot.plugins.markers import PROJECT, hookspec

if TYPE_CHECKING:  # pragma: no cover - the context is built by the layer above, which loads these hooks
    from helia_aot.config.args import ConvertArgs
    from helia_aot.converters.loaders import ModelLoader
    from helia_aot.registry.context import RegistryContext

__all__ = [
    "PROJECT",
    "helia_aot_model_loaders",
    "helia_aot_platforms",
    "helia_aot_register",
    "helia_aot_stage_finished",
    "helia_aot_stage_started",
    "hookspec",
]


# -- registration: called once per RegistryContext ------------------------------------------------
@hookspec
def helia_aot_register(context: RegistryContext) -> None:
    """Register parsers, options classes, operator classes, model hooks, transforms and planners.

    ``context`` is the RegistryContext being built, before customizers run and before it is frozen.
    The contract is the one of a customizer passed to ``build_default_registry_context``: call
    ``context.<registry>.register(key, value)``. A key another plugin already registered fails the
    build with one DuplicateRegistrationError naming both plugins; pass ``overwrite=True`` only for
    a key your own plugin registered. A customizer function ``customize_registry(context)`` becomes
    this hook unchanged: ``helia_aot_register = hookimpl(customize_registry)``.
    """


@hookspec
def helia_aot_platforms() -> Iterable[SocPlatform]:
    """Return the target platforms this plugin provides, as ``SocPlatform`` records.

    They are registered into the context's ``platforms`` registry under their names, right after
    the plugin's ``helia_aot_register``; registering them there directly is equivalent. The core
    validates every record and rejects two plugins providing the same platform name.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations only


@hookspec
def helia_aot_model_loaders() -> Iterable[ModelLoader]:
    """Return the model loaders (front ends) this plugin provides, as ``ModelLoader`` records.

    They are registered into the context's ``model_loaders`` registry under their formats, right
    after the plugin's ``helia_aot_platforms``; a conversion picks the one whose ``claims`` accepts
    the model file's first bytes, or the one ``model.format`` names. The core's LiteRT reader
    comes through this hook too. Two plugins providing the same format are rejected.
    """
    raise NotImplementedError  # a specification: pluggy calls the plugins' implementations only


# -- observation: called around each pipeline stage ------------------------------------------------
@hookspec
def helia_aot_stage_started(stage: str, config: ConvertArgs) -> None:
    """A pipeline stage (``load``, ``transform``, ``resolve``, ``plan``, ``emit``, ``export``) begins.

    Observers must not change ``config``; exceptions they raise fail the conversion with a
    PluginError naming the plugin.
    """


@hookspec
def helia_aot_stage_finished(
    stage: str, config: ConvertArgs, seconds: float, details: Mapping[str, Any]
) -> None:
    """A pipeline stage ended successfully after ``seconds`` of wall time.

    ``details`` carries stage figures: operator and tensor counts after load, arena sizes after
    plan, the output path after export.
    """
