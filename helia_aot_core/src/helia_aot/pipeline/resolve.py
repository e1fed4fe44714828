"""Resolve: one AotOperator per AIR operator, validated, with its constants and scratch computed.

Every operator is checked before any fails the stage, so one UnsupportedModelError lists every
operator the model cannot be converted with.
"""

from __future__ import annotations

import traceback
from typing import Any

from helia_aot.air import AirModel
from helia_aot.errors import (
    HeliaAotError,
    InvalidConfigError,
    OperatorIdError,
    PluginError,
    UnsupportedModelError,
)


def _matches(rule: Any, op: Any) -> bool:
    rule_type = str(getattr(rule, "type", "*") or "*")
    rule_id = getattr(rule, "id", None)
    return rule_type in ("*", op.op_type) and (rule_id in (None, "", op.id))


def operator_attributes(rules: list[Any], op: Any) -> dict[str, Any]:
    """Merge the attributes of every ``operators[]`` rule reaching ``op``; later rules win."""
    merged: dict[str, Any] = {}
    for rule in rules or ():
        if _matches(rule, op):
            merged.update(dict(getattr(rule, "attributes", None) or {}))
    return merged


def check_rule_ids(rules: list[Any], model: AirModel) -> None:
    ids = {op.id for op in model.operators}
    for rule in rules or ():
        rid = getattr(rule, "id", None)
        if rid not in (None, "") and str(rid) not in ids:
            raise OperatorIdError(
                f"operators[] names operator id {rid!r}, which the model does not have",
                hint=f"operator ids are 0..{len(ids) - 1}",
            )


def resolve_operators(model: AirModel, platform: Any, config: Any, context: Any) -> list[Any]:
    """Instantiate and resolve each operator in schedule order."""
    rules = list(config.operators or ())
    check_rule_ids(rules, model)
    problems: list[str] = []
    resolved = []
    for op in list(model.operators):
        if op.op_type not in context.aot_operator_classes:
            problems.append(f"#{op.id} {op.op_type}: no operator class is registered for it")
            continue
        cls = context.aot_operator_classes.get(op.op_type)
        try:
            aot_op = cls(
                op, model, platform, prefix=config.module.prefix, attributes=operator_attributes(rules, op)
            )
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
