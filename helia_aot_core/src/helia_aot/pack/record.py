"""OperatorRecord and register_operators: everything a pack registers for one operator, in one value.

A pack lowers an operator with five things under one canonical key: the parser (under each LiteRT
key it handles), the typed options class, the operator class, the kernel files that class copies
into a module and the input and output counts the operator's LiteRT kernel accepts. Registering
them one registry at a time lets them drift apart (a parser without a class, a class whose
``TYPE`` is another key); a record states them together and
:func:`register_operators` registers them in a fixed order after checking that they agree. The
built-in operators and third-party packs register through the same function.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from helia_aot.air import AirOperatorOptions, custom_code_to_op_key
from helia_aot.aot.operators import AotOperator
from helia_aot.converters.litert.parser_types import LiteRTParser
from helia_aot.converters.litert.view import Arity
from helia_aot.errors import PluginError
from helia_aot.pack.template_operator import TemplateOperator
from helia_aot.registry import RegistryContext

_CANONICAL = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass(frozen=True, slots=True)
class OperatorRecord:
    """One operator type a pack lowers: its key, parser, options class, operator class and arity.

    ``litert_keys`` are the LiteRT keys the parser is registered under; left empty it is
    ``(key,)``, and it lists more than one when several LiteRT codes lower into the same type.
    ``options`` is None for a parser that carries no decoded options. ``arity`` is how many
    inputs and outputs the LiteRT kernel accepts: Load checks every node of the record's LiteRT
    keys against it before the parser reads the node (so a parser never indexes past a malformed
    node's inputs); None leaves the node unchecked, and the parser must check what it reads. The
    core's validator knows no operator's counts: it asks the registered records (the context's
    ``litert_arities``). The kernel files are
    declared on the operator class (``KERNEL_LIBRARY`` and ``KERNELS`` of a
    :class:`TemplateOperator`); :attr:`kernel_files` reads them from there, so there is one
    declaration to keep up to date.
    """

    key: str
    parser: LiteRTParser
    options: type[AirOperatorOptions] | None
    operator: type[AotOperator]
    litert_keys: tuple[str, ...] = ()
    arity: Arity | None = None

    def __post_init__(self) -> None:
        if not self.litert_keys:
            object.__setattr__(self, "litert_keys", (self.key,))
        else:
            object.__setattr__(self, "litert_keys", tuple(self.litert_keys))

    @property
    def kernel_files(self) -> list[Path]:
        """The library files the operator class declares (its ``KERNELS``, dependencies first).

        Empty for a class that declares none; an operator that picks families per instance (by
        dtype) copies those at conversion time through ``kernel_sources()``.
        """
        operator = self.operator
        if not (isinstance(operator, type) and issubclass(operator, TemplateOperator)):
            return []
        if not operator.KERNELS or operator.KERNEL_LIBRARY is None:
            return []
        return operator.KERNEL_LIBRARY.sources(*operator.KERNELS)

    def problems(self) -> list[str]:
        """Every way the record's parts disagree (empty when they agree); cheap, no file access."""
        key = self.key
        if not isinstance(key, str) or not _CANONICAL.fullmatch(key) or custom_code_to_op_key(key) != key:
            return [
                f"{key!r} is not a canonical key (upper case letters, digits and '_'; derive it "
                "from a customCode with custom_code_to_op_key)"
            ]
        problems = []
        for litert_key in self.litert_keys:
            if not isinstance(litert_key, str) or not litert_key:
                problems.append(f"{key}: LiteRT key {litert_key!r} is not a non-empty string")
        if not callable(self.parser):
            problems.append(f"{key}: the parser {self.parser!r} is not callable")
        if self.arity is not None and not isinstance(self.arity, Arity):
            problems.append(f"{key}: the arity {self.arity!r} is not an Arity(min_inputs, max_inputs, ...)")
        options = self.options
        if options is not None and not (
            isinstance(options, type) and issubclass(options, AirOperatorOptions)
        ):
            problems.append(f"{key}: the options class {options!r} does not derive from AirOperatorOptions")
        operator = self.operator
        if not (isinstance(operator, type) and issubclass(operator, AotOperator)):
            problems.append(f"{key}: the operator class {operator!r} does not derive from AotOperator")
            return problems
        if str(operator.TYPE) != key:
            problems.append(
                f"{key}: {operator.__name__}.TYPE is {str(operator.TYPE)!r}, not the record's key"
            )
        if issubclass(operator, TemplateOperator):
            if operator.TEMPLATE is None and operator.emit is TemplateOperator.emit:
                problems.append(f"{key}: {operator.__name__} sets no TEMPLATE and does not override emit()")
            if operator.KERNELS and operator.KERNEL_LIBRARY is None:
                problems.append(
                    f"{key}: {operator.__name__} declares KERNELS {list(operator.KERNELS)} "
                    "but no KERNEL_LIBRARY"
                )
        elif operator.emit is AotOperator.emit:
            problems.append(f"{key}: {operator.__name__} does not implement emit()")
        return problems


_observers: ContextVar[list[OperatorRecord] | None] = ContextVar("helia_aot_pack_records", default=None)


@contextmanager
def recorded_operators() -> Iterator[list[OperatorRecord]]:
    """Collect every record :func:`register_operators` registers inside the block (for checks)."""
    seen: list[OperatorRecord] = []
    token = _observers.set(seen)
    try:
        yield seen
    finally:
        _observers.reset(token)


def register_operators(context: RegistryContext, records: Iterable[OperatorRecord]) -> None:
    """Register each record's parser, options class and operator class into ``context``.

    For each record, in order: the parser (and the arity, when the record declares one) under
    every LiteRT key, the options class (when there is one) and the operator class under the
    record's key. Call it from the pack's ``helia_aot_register(context)`` hook or from a customizer.

    Raises:
        PluginError: If a record's parts disagree (see :meth:`OperatorRecord.problems`), or its
            arity differs from the one another pack declared for a LiteRT key; nothing of that
            record is registered.
        DuplicateRegistrationError: If a key is already registered.
    """
    observed = _observers.get()
    for record in records:
        if not isinstance(record, OperatorRecord):
            raise PluginError(
                f"register_operators takes OperatorRecord values, not {type(record).__name__}",
                hint="describe each operator as "
                "helia_aot.pack.OperatorRecord(key, parser, options, operator)",
            )
        problems = record.problems()
        if problems:
            provider = context.aot_operator_classes.active_provider
            raise PluginError(
                f"{provider or 'a pack'} registers an inconsistent operator record: " + "; ".join(problems),
                hint="the record's key, the operator class's TYPE and the op_type the parser writes "
                "must be one and the same name",
                details={"key": str(record.key), "problems": problems},
            )
        for litert_key in record.litert_keys:
            check_arity(context, litert_key, record.arity)
        for litert_key in record.litert_keys:
            context.litert_parsers.register(litert_key, record.parser)
            declare_arity(context, litert_key, record.arity)
        if record.options is not None:
            context.air_options.register(record.key, record.options)
        context.aot_operator_classes.register(record.key, record.operator)
        if observed is not None:
            observed.append(record)


def check_arity(context: RegistryContext, litert_key: str, arity: Arity | None) -> None:
    """Raise PluginError when ``litert_key`` already has an arity other than ``arity`` (two packs
    disagree on one LiteRT kernel); nothing is registered."""
    known = context.litert_arities.get(litert_key)
    if arity is not None and known is not None and known != arity:
        raise PluginError(
            f"{litert_key}: two packs declare different input and output counts ({known} and {arity})",
            hint="one LiteRT kernel accepts one set of counts; remove one declaration",
        )


def declare_arity(context: RegistryContext, litert_key: str, arity: Arity | None) -> None:
    """Keep ``arity`` as the counts Load checks ``litert_key``'s nodes against (None: unchecked);
    call :func:`check_arity` first."""
    if arity is not None:
        context.litert_arities[litert_key] = arity
