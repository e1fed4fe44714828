"""Resolve: one AotOperator per AIR operator, validated, with its constants and scratch computed.

Every operator is checked before any fails the stage, so one UnsupportedModelError lists every
operator the model cannot be converted with.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from helia_aot.air import AirModel
from helia_aot.config.rules import rule_ids, rule_reaches
from helia_aot.errors import (
    HeliaAotError,
    InvalidConfigError,
    OperatorIdError,
    PluginError,
    UnsupportedModelError,
)
from helia_aot.optimization.knobs import KNOBS, KnobSpec
from helia_aot.optimization.resolution import KnobSettings, knob_requests, resolve_knob
from helia_aot.pipeline.operator_ids import operator_aliases

if TYPE_CHECKING:
    from helia_aot.air import AirOperator
    from helia_aot.aot.operators.base import AotOperator
    from helia_aot.config.args import ConvertArgs
    from helia_aot.config.rules import OperatorRule
    from helia_aot.platforms.model import SocPlatform
    from helia_aot.registry.context import RegistryContext


def _matches(rule: OperatorRule, op: AirOperator, aliases: frozenset[str] | None = None) -> bool:
    """Whether ``rule`` reaches ``op``; ``aliases`` are the ids it may be named by (default: its id)."""
    return rule_reaches(str(rule.type or "*"), rule.id, op.op_type, aliases or {str(op.id)})


def operator_attributes(
    rules: list[OperatorRule], op: AirOperator, aliases: frozenset[str] | None = None
) -> dict[str, Any]:
    """Merge the attributes of every ``operators[]`` rule reaching ``op``; later rules win."""
    merged: dict[str, Any] = {}
    for rule in rules or ():
        if _matches(rule, op, aliases):
            merged.update(dict(rule.attributes or {}))
    return merged


def check_rule_ids(rules: list[OperatorRule], model: AirModel, subgraph: int = 0) -> None:
    """Raise OperatorIdError for a rule naming an id no operator has (by index or plan id)."""
    known = set().union(*operator_aliases(model, subgraph).values()) if model.operators else set()
    for rule in rules or ():
        for rid in rule_ids(rule.id):
            if rid not in known:
                raise OperatorIdError(
                    f"operators[] names operator id {rid!r}, which the model does not have",
                    hint=f"name an operator by its index (0..{len(model.operators) - 1}) or its plan id "
                    f"(<subgraph>:<first output tensor name>, as in <prefix>_plan.json)",
                )


def _platforms_with(context: RegistryContext, capability: str) -> list[str]:
    """The registered platforms that declare ``capability`` (lower case), sorted by name."""
    return sorted(
        p.name for _, p in context.platforms.items() if capability in {str(c).lower() for c in p.capabilities}
    )


def capability_problem(
    model: AirModel,
    op: AirOperator,
    cls: type[AotOperator],
    platform: SocPlatform,
    context: RegistryContext,
) -> str | None:
    """Why ``op`` cannot run on ``platform``: a capability its class declares for an element type
    (``DTYPE_PLATFORM_CAPABILITIES``, e.g. float16 -> FP16) that the platform lacks, or None.

    Only non-constant tensors count: constants are data the kernels may widen in portable C (the
    float16-weights + DEQUANTIZE pattern runs on every core). The sentence names the registered
    platforms that have the capability, so the fix is one ``--platform.name`` away.
    """
    needs = {str(k).lower(): str(v).lower() for k, v in cls.DTYPE_PLATFORM_CAPABILITIES.items()}
    if not needs:
        return None
    have = {str(c).lower() for c in platform.capabilities}
    for tid in (*op.input_ids, *op.output_ids):
        tensor = model.tensors.get(tid) if tid else None
        if tensor is None or tensor.is_constant:
            continue
        dtype = str(tensor.dtype.value).lower()
        capability = needs.get(dtype)
        if capability is None or capability in have:
            continue
        cap = capability.upper()
        names = _platforms_with(context, capability)
        choice = f"choose one that has it ({', '.join(names)})" if names else f"choose a platform with {cap}"
        article = "an" if cap[0] in "AEFHILMNORSX" else "a"
        return (
            f"#{op.id} {op.op_type}: {tensor.source_name or tensor.name!r} is {dtype}, which needs "
            f"{article} {cap}-capable platform; {platform.name} "
            f"({platform.cpu}) has no {cap}: {choice}"
        )
    return None


def empty_input_problem(model: AirModel, aot_op: AotOperator) -> str | None:
    """Why ``aot_op`` cannot run: an input it reads has no elements (Load lets an empty constant
    through, for an operator that does not read it, such as a RESHAPE's ``[0]`` shape operand),
    or None. Checked before the operator class computes its geometry from that input."""
    op = aot_op.op
    for position, tid in enumerate(op.input_ids):
        tensor = model.tensors.get(tid) if tid else None
        if tensor is None or tensor.size != 0 or not aot_op.reads_input(position):
            continue
        return (
            f"#{op.id} {op.op_type}: input {position} ({tensor.source_name or tensor.name!r}) has no "
            f"elements (shape {list(tensor.shape)}); its kernel reads every input it is given"
        )
    return None


def knob_specs(context: RegistryContext) -> list[KnobSpec]:
    """The knobs of the registry context (a pack may have added or widened some), else the built-ins."""
    specs = [spec for _name, spec in context.knobs.items()]
    return [s for s in specs if isinstance(s, KnobSpec)] or list(KNOBS)


def knob_resolver(
    config: ConvertArgs,
    context: RegistryContext,
    rules: list[OperatorRule],
    aliases: dict[str, frozenset[str]],
) -> Callable[[AotOperator], None]:
    """The callback AotOperator.resolve() calls to set ``resolved_knobs`` and ``knob_choices``.

    Every knob whose ``applies_to`` names the operator's type is resolved (see
    :mod:`helia_aot.optimization.resolution`); the operator then reads ``knob("kernel")``.
    """
    specs = knob_specs(context)
    settings = KnobSettings.from_config(config, [s.name for s in specs])

    def resolve(aot_op: AotOperator) -> None:
        op = aot_op.op
        aot_op.optimization_goal = settings.goal.value
        mine = [s for s in specs if op.op_type in s.applies_to]
        if not mine:
            return
        requests = knob_requests(
            mine, settings, rules, lambda rule: _matches(rule, op, aliases.get(str(op.id)))
        )
        for spec in mine:
            choice = resolve_knob(
                spec,
                requests[spec.name],
                settings,
                op.op_type,
                aot_op.knob_values(spec.name),
                aot_op.modeled_knob_choice,
            )
            aot_op.knob_choices[spec.name] = choice
            aot_op.resolved_knobs[spec.name] = choice.value

    return resolve


def resolve_operators(
    model: AirModel, platform: SocPlatform, config: ConvertArgs, context: RegistryContext
) -> list[AotOperator]:
    """Instantiate and resolve each operator in schedule order."""
    rules = list(config.operators or ())
    subgraph = config.model.subgraph
    check_rule_ids(rules, model, subgraph)
    aliases = operator_aliases(model, subgraph)
    resolver = knob_resolver(config, context, rules, aliases)
    problems: list[str] = []
    resolved = []
    for op in list(model.operators):
        if op.op_type not in context.aot_operator_classes:
            problems.append(f"#{op.id} {op.op_type}: no operator class is registered for it")
            continue
        cls = context.aot_operator_classes.get(op.op_type)
        capability = capability_problem(model, op, cls, platform, context)
        if capability is not None:
            problems.append(capability)
            continue
        try:
            aot_op = cls(
                op,
                model,
                platform,
                prefix=config.module.prefix,
                attributes=operator_attributes(rules, op, aliases.get(str(op.id))),
            )
            empty = empty_input_problem(model, aot_op)
            if empty is not None:
                problems.append(empty)
                continue
            aot_op.knob_resolver = resolver
            aot_op.resolve()
        except InvalidConfigError:
            raise
        except UnsupportedModelError as exc:
            problems.append(str(exc))
            continue
        except (ValueError, ArithmeticError) as exc:  # ConfigValueError, pack validation, overflow
            problems.append(f"#{op.id} {op.op_type}: {exc}")
            continue
        except HeliaAotError:
            raise
        except Exception as exc:  # an operator class's own bug: name it rather than crash raw
            raise PluginError(
                f"operator class {cls.__module__}.{cls.__qualname__} raised {type(exc).__name__} "
                f"on operator #{op.id} {op.op_type}: {exc}",
                hint="report it to the operator pack's authors; the model may still be valid",
                details=traceback.format_exc(),
            ) from exc
        resolved.append(aot_op)
    if problems:
        raise UnsupportedModelError(
            f"{len(problems)} operator(s) cannot be converted:\n  " + "\n  ".join(problems),
            hint="each line names the restriction its operator breaks; `helia-aot plugins` lists the "
            "operators each installed pack lowers",
            details=problems,
        )
    return resolved
