"""The contract check of an operator pack: are its registrations consistent, do its templates render?

The rules (docs/plugin-author-guide.md):

- one canonical key per operator, used by the parser's registration, the ``op_type`` the parser
  writes and the operator class's registration (and its ``TYPE``); an options class sits under a
  key that has a parser;
- an operator class subclasses ``AotOperator`` and implements ``emit``; its ``ATTRIBUTES`` is a
  pydantic dataclass deriving from ``OperatorAttributes`` whose defaults validate;
- a pack adds keys and never replaces a built-in (that is a customizer's job, with
  ``allow_override=True``);
- each ``helia_aot.pack.OperatorRecord`` the pack registers agrees with itself (the checks
  ``register_operators`` makes), its operator class's kernel families resolve in its
  ``KERNEL_LIBRARY`` and its ``TEMPLATE`` is in one of its ``TEMPLATE_DIRS`` (or the core's);
- every Mako template next to the pack's modules compiles, and for each sample model the
  conversion renders the pack's operators into files that follow the emitted C contract and
  compile and link with warnings as errors.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mako.lookup import TemplateLookup
from pydantic import TypeAdapter, ValidationError
from pydantic.dataclasses import is_pydantic_dataclass

from helia_aot.air import AirOperatorOptions, c_identifier, custom_code_to_op_key
from helia_aot.aot.operators import AotOperator, OperatorAttributes
from helia_aot.codegen.templates import CORE_TEMPLATE_DIR
from helia_aot.config.args import ConvertArgs
from helia_aot.converter import AotConverter
from helia_aot.errors import HeliaAotError
from helia_aot.pack import recorded_operators
from helia_aot.registry.build import build_default_registry_context
from helia_aot.testing.packs import PackSource, compile_module, pack_customizer, plugin_selection

if TYPE_CHECKING:
    from helia_aot.pack import OperatorRecord

_REGISTRIES = ("litert_parsers", "air_options", "aot_operator_classes")
_KEY = re.compile(r"[A-Z][A-Z0-9_]*")
_PROVIDER = "pack under contract check"


@dataclass(slots=True)
class PackContractReport:
    """What a pack registered and every way it breaks the contract (empty when it keeps it)."""

    pack: str
    registered: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    records: list[OperatorRecord] = field(default_factory=list)
    """The ``OperatorRecord`` values the pack registered through ``register_operators``."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def operator_keys(self) -> list[str]:
        keys = {k for name in _REGISTRIES for k in self.registered.get(name, [])}
        return sorted(keys)

    def assert_ok(self) -> None:
        """Fail with every problem, one per line."""
        if self.problems:
            raise AssertionError(
                f"{self.pack} breaks the operator-pack contract:\n  - " + "\n  - ".join(self.problems)
            )


def attribute_problems(attributes: Any) -> list[str]:
    """Why an ``ATTRIBUTES`` value is not a usable attribute model (empty when it is)."""
    if not (isinstance(attributes, type) and issubclass(attributes, OperatorAttributes)):
        return [f"ATTRIBUTES {attributes!r} does not derive from OperatorAttributes"]
    own = list(attributes.__dict__.get("__annotations__", {}))
    if not is_pydantic_dataclass(attributes) or not set(own) <= set(attributes.__pydantic_fields__):
        # An undecorated subclass inherits the base's fields and silently drops its own.
        return [
            f"ATTRIBUTES {attributes.__name__} declares {own} without "
            "@pydantic.dataclasses.dataclass, so a rule cannot set them"
        ]
    fields = attributes.__pydantic_fields__
    problems = []
    required = {name for name, info in fields.items() if info.is_required()}
    for name, info in fields.items():
        if info.is_required() or info.default_factory is not None:
            continue
        # pydantic leaves defaults unvalidated, so a bad one would only surface in a user's build.
        # A type form (the field's annotation, or it wrapped in Annotated with its constraints).
        annotation: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        try:
            TypeAdapter(annotation).validate_python(info.default)
        except ValidationError as exc:
            problems.append(
                f"ATTRIBUTES {attributes.__name__}: the default of {name} "
                f"({info.default!r}) is invalid: {exc.errors()[0]['msg']}"
            )
    try:
        attributes()
    except ValidationError as exc:
        missing = {str(e["loc"][0]) for e in exc.errors() if e["type"] == "missing" and e["loc"]}
        others = [e for e in exc.errors() if e["type"] != "missing"]
        if others or missing != required:
            problems.append(f"ATTRIBUTES {attributes.__name__} rejects its own defaults: {exc}")
    except Exception as exc:  # e.g. PydanticUserError for an annotation that does not resolve
        problems.append(f"ATTRIBUTES {attributes.__name__} cannot be built: {type(exc).__name__}: {exc}")
    return problems


def operator_class_problems(key: str, cls: Any) -> list[str]:
    """Why ``cls`` cannot be the operator class registered under ``key``."""
    if not (isinstance(cls, type) and issubclass(cls, AotOperator)):
        return [f"{key}: the operator class {cls!r} does not derive from AotOperator"]
    problems = []
    if str(cls.TYPE) != key:
        problems.append(f"{key}: {cls.__name__}.TYPE is {str(cls.TYPE)!r}, not its registry key")
    if cls.emit is AotOperator.emit:
        problems.append(f"{key}: {cls.__name__} does not implement emit()")
    problems += [f"{key}: {p}" for p in attribute_problems(cls.ATTRIBUTES)]
    return problems


def record_problems(record: OperatorRecord) -> list[str]:
    """Why an ``OperatorRecord`` cannot lower its operator: its own checks, kernels and template."""
    from helia_aot.codegen.templates import CORE_TEMPLATE_DIR
    from helia_aot.pack import TemplateOperator

    problems = record.problems()
    operator = record.operator
    if problems or not issubclass(operator, TemplateOperator):
        return problems
    try:
        record.kernel_files  # noqa: B018 - resolving the families is the check
    except (KeyError, OSError) as exc:
        problems.append(f"{record.key}: {operator.__name__}.KERNELS do not resolve: {exc}")
    if operator.TEMPLATE is not None:
        folders = [Path(d) for d in operator.TEMPLATE_DIRS]
        if not any((d / operator.TEMPLATE).is_file() for d in [*folders, CORE_TEMPLATE_DIR]):
            searched = ", ".join(str(d) for d in folders) or "(no TEMPLATE_DIRS)"
            problems.append(
                f"{record.key}: {operator.__name__}.TEMPLATE {operator.TEMPLATE!r} is in none of "
                f"its TEMPLATE_DIRS ({searched}) nor the core's templates"
            )
    return problems


def template_problems(classes: Sequence[type]) -> list[str]:
    """Mako templates under the packages of ``classes`` that do not compile."""
    import sys

    problems, seen = [], set()
    for cls in classes:
        module = sys.modules.get(cls.__module__)
        origin = getattr(module, "__file__", None)
        if origin is None:
            continue
        root = Path(origin).resolve().parent
        for path in sorted(root.rglob("*.mako")):
            if path in seen:
                continue
            seen.add(path)
            lookup = TemplateLookup(
                directories=[str(path.parent), str(CORE_TEMPLATE_DIR)], strict_undefined=True
            )
            try:
                lookup.get_template(path.name)
            except Exception as exc:  # Mako raises its own syntax and compile errors
                problems.append(f"template {path.name} does not compile: {type(exc).__name__}: {exc}")
    return problems


def _label(pack: PackSource) -> str:
    return getattr(pack, "__name__", None) or str(pack)


def registration_problems(context: Any, registered: Mapping[str, list[str]]) -> list[str]:
    """The key rules over what one provider registered into ``context``."""
    problems = []
    keys = sorted({k for name in _REGISTRIES for k in registered.get(name, [])})
    for key in keys:
        if not _KEY.fullmatch(key) or custom_code_to_op_key(key) != key:
            problems.append(
                f"{key}: not a canonical key (upper case letters, digits and '_'; derive "
                "it with custom_code_to_op_key)"
            )
    for key in registered.get("litert_parsers", []):
        if key not in context.aot_operator_classes:
            problems.append(f"{key}: a parser is registered but no operator class")
    for key in registered.get("air_options", []):
        if key not in context.litert_parsers:
            problems.append(f"{key}: an options class is registered but no parser")
        options = context.air_options.get(key)
        if not (isinstance(options, type) and issubclass(options, AirOperatorOptions)):
            problems.append(f"{key}: the options class {options!r} does not derive from AirOperatorOptions")
    for key in registered.get("aot_operator_classes", []):
        if key not in context.litert_parsers:
            problems.append(f"{key}: an operator class is registered but no parser")
        problems += operator_class_problems(key, context.aot_operator_classes.get(key))
    return problems


def _checked_parsers(keys: Sequence[str], seen: dict[str, set[str]]) -> Callable[[Any], None]:
    """A customizer wrapping the pack's parsers to record the ``op_type`` each one writes."""

    def wrap(context: Any) -> None:
        for key in keys:
            parser = context.litert_parsers.get(key)

            def checked(*args: Any, _key: str = key, _parser: Any = parser, **kwargs: Any) -> Any:
                result = _parser(*args, **kwargs)
                seen.setdefault(_key, set()).add(str(getattr(result, "op_type", result)))
                return result

            context.litert_parsers.register(key, checked, overwrite=True)

    return wrap


def _sample_config(sample: Any, out_dir: Path, selection: dict[str, Any]) -> Any:
    """A ConvertArgs for one sample, writing into ``out_dir`` with no self test."""
    if isinstance(sample, ConvertArgs):
        data = sample.model_dump()
    elif isinstance(sample, Mapping):
        data = {key: dict(value) if isinstance(value, Mapping) else value for key, value in sample.items()}
    elif Path(sample).suffix in (".yaml", ".yml"):
        # A pack's sample sits next to its model and golden data: its relative paths are read
        # from its folder (the command line reads them from the working directory).
        data = ConvertArgs.from_yaml(Path(sample)).model_dump()
        folder = Path(sample).parent
        data["model"]["path"] = folder / data["model"]["path"]
        if data["test"].get("golden_data") is not None:
            data["test"]["golden_data"] = folder / data["test"]["golden_data"]
    else:
        data = {"model": {"path": str(sample)}}
    data["module"] = {**data.get("module", {}), "path": str(out_dir)}
    data["test"] = {"enabled": False}
    data.update(force=True, verbose=0, plugins=selection)
    return ConvertArgs.model_validate(data)


def emitted_problems(module_dir: Path, prefix: str, keys: set[str]) -> list[str]:
    """The emitted C contract, checked on the files of the pack's operators in one module."""
    plan = json.loads((module_dir / f"{prefix}_plan.json").read_text(encoding="utf-8"))
    model_c = (module_dir / "src" / f"{prefix}_model.c").read_text(encoding="utf-8")
    problems = []
    for row in plan["operators"]:
        if row["op_type"] not in keys:
            continue
        name = c_identifier(f"{row['op_type']}_{row.get('node_id', row['id'])}", max_length=64, fallback="op")
        stem = f"{prefix}_{name}"
        header, source = module_dir / "includes-api" / f"{stem}.h", module_dir / "src" / f"{stem}.c"
        if not header.is_file() or not source.is_file():
            problems.append(
                f"{row['op_type']} #{row['id']}: emit() must write includes-api/{stem}.h and src/{stem}.c"
            )
            continue
        text = header.read_text(encoding="utf-8")
        signature = r"int32_t\s+{}_{}\s*\(\s*{}_model_context_t\s*\*\s*ctx\s*\)"
        for function in ("run", "init"):
            declared = re.search(signature.format(re.escape(stem), function, re.escape(prefix)), text)
            called = function == "run" or f"{stem}_init" in model_c
            if called and not declared:
                problems.append(
                    f"{row['op_type']} #{row['id']}: {stem}.h must declare "
                    f"int32_t {stem}_{function}({prefix}_model_context_t *ctx)"
                )
            if declared and not called:
                problems.append(
                    f"{row['op_type']} #{row['id']}: {stem}.h declares {stem}_{function} "
                    "but has_init is False"
                )
        guard = text.find('extern "C"')
        if guard < 0:
            problems.append(
                f'{row["op_type"]} #{row["id"]}: {stem}.h has no extern "C" guard around its declarations'
            )
        elif re.search(r"^\s*#\s*include", text[guard:], re.MULTILINE):
            problems.append(
                f"{row['op_type']} #{row['id']}: {stem}.h has an #include inside its "
                'extern "C" guard; keep includes above it'
            )
    for path in sorted((module_dir / "src" / "kernels").glob("*")):
        if not path.name.startswith(f"{prefix}_hk_"):
            problems.append(
                f"kernel file {path.name[len(prefix) + 1 :]} is not named hk_*: its "
                "identifiers are not renamed to the module prefix"
            )
    return problems


def check_pack_contract(
    pack: PackSource, *, samples: Sequence[Any] = (), work_dir: str | Path | None = None, compile: bool = True
) -> PackContractReport:
    """Check ``pack`` (an installed pack's name, its plugin module, or a customizer).

    ``samples`` are models that use the pack's operators: ``.tflite`` paths, ``convert.yaml`` paths
    (which may set required attributes), ConvertArgs or mappings. Each is converted with the pack
    and, when ``compile`` is true, compiled and linked on the host.
    """
    report = PackContractReport(_label(pack))
    hook = pack_customizer(pack)
    selection = plugin_selection(pack)

    def register(context: Any) -> None:
        with context.provided_by(_PROVIDER):  # so what the pack registered can be told apart
            hook(context)

    def register_and_record(context: Any) -> None:
        with recorded_operators() as records:
            register(context)
        report.records = list(records)

    try:
        context = build_default_registry_context(
            customizers=[register_and_record], freeze=False, plugins=selection
        )
    except HeliaAotError as exc:
        report.problems.append(f"registration failed: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""))
        return report
    except Exception as exc:  # the pack's own bug
        report.problems.append(f"registration raised {type(exc).__name__}: {exc}")
        return report
    report.registered = context.registered_by(_PROVIDER)
    if not report.registered:
        report.problems.append("the pack registers nothing")
    report.problems += registration_problems(context, report.registered)
    for record in report.records:
        report.problems += record_problems(record)
    classes = [context.aot_operator_classes.get(k) for k in report.registered.get("aot_operator_classes", [])]
    report.problems += template_problems([c for c in classes if isinstance(c, type)])
    parser_keys = report.registered.get("litert_parsers", [])
    with tempfile.TemporaryDirectory(prefix="helia_aot_contract_", dir=work_dir) as tmp:
        for n, sample in enumerate(samples):
            seen: dict[str, set[str]] = {}
            out = Path(tmp) / f"sample{n}"
            try:
                config = _sample_config(sample, out, selection)
                registry = build_default_registry_context(
                    customizers=[register, _checked_parsers(parser_keys, seen)], plugins=selection
                )
                result = AotConverter(config, registry_context=registry).convert()
            except HeliaAotError as exc:
                report.problems.append(f"sample {sample}: conversion failed: {exc.message}")
                continue
            except Exception as exc:  # a pack's bug: report it with the others rather than crash
                report.problems.append(f"sample {sample}: conversion raised {type(exc).__name__}: {exc}")
                continue
            finally:
                for key, types in sorted(seen.items()):
                    for op_type in sorted(types - {key}):
                        report.problems.append(
                            f"{key}: the parser wrote op_type {op_type!r}; it must write its own key"
                        )
            keys = set(report.operator_keys)
            if not keys & {row.op_type for row in result.plan.operators}:
                report.problems.append(f"sample {sample}: uses none of the pack's operators")
            report.problems += emitted_problems(result.output, result.prefix, keys)
            if compile:
                try:
                    compile_module(result.output, Path(tmp) / f"build{n}", prefix=result.prefix)
                except AssertionError as exc:
                    report.problems.append(f"sample {sample}: {exc}")
    return report
