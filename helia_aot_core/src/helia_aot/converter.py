"""AotConverter and ConversionResult: the six-stage pipeline behind the CLI and the Python API."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from helia_aot.air import verify_model
from helia_aot.codegen.templates import templates_checked_once
from helia_aot.config.args import ConvertArgs
from helia_aot.converters.loaders import loader_for
from helia_aot.errors import OperatorOrderError
from helia_aot.pipeline import records as recs
from helia_aot.pipeline.attribute_rules import check_operator_rules
from helia_aot.pipeline.collector import collector_paused
from helia_aot.pipeline.emit import emit_module
from helia_aot.pipeline.export import check_destination, destination_of, export_module
from helia_aot.pipeline.occupancy import RegionOccupancy
from helia_aot.pipeline.plan import plan_memory
from helia_aot.pipeline.resolve import resolve_operators
from helia_aot.pipeline.state_feedback import check_state_feedback
from helia_aot.pipeline.transform import run_transforms, select_transforms
from helia_aot.platforms import resolve_platform
from helia_aot.plugins.manager import plugin_host
from helia_aot.registry.build import build_default_registry_context
from helia_aot.registry.context import RegistryContext

if TYPE_CHECKING:  # annotations only: the views are built (and imported) only with result_views
    from helia_aot.air import AirModel
    from helia_aot.aot.operators import AotOperator
    from helia_aot.optimization.records import OptimizationPlan, OptimizationReport
    from helia_aot.pipeline.plan_records import MemoryPlan
    from helia_aot.platforms.model import SocPlatform
    from helia_aot.views import OperatorView, PlacementView, RegionView, TensorView

_Finished = TypeVar("_Finished")


# repr=False: the class writes its own __repr__, which the decorator would otherwise build one for
# (and discard) at every start-up.
@dataclass(frozen=True, eq=False, repr=False)
class ConversionResult:
    """What a finished conversion wrote (or, with ``dry_run``, would write). Compares and hashes by
    identity.

    To compare two conversions, compare their ``plan`` and ``report``, which compare by value.
    With ``result_views``, ``operators`` (execution order), ``tensors`` (the module's tensor
    enumeration order), ``regions`` (``regions[i].id == i``) and ``placements`` (by tensor id)
    describe the generated module; otherwise they are None. ``arenas`` summarizes the arena
    regions (region, role, memory, used, capacity, peak_live) for displays such as the CLI's
    results panel. ``config`` is the ConvertArgs the conversion ran with, ``stage_seconds`` how
    long each stage took and ``occupancy`` what each scratch arena holds at each operator (the
    memory picture). With ``dry_run`` nothing was written: ``output`` is where the module would
    go. :meth:`summary` flattens the result into one table row. In a notebook the result renders
    as an HTML summary with the memory picture.
    """

    output: Path
    prefix: str
    plan: OptimizationPlan
    report: OptimizationReport
    work_dir: Path | None
    operators: tuple[OperatorView, ...] | None = None
    tensors: tuple[TensorView, ...] | None = None
    regions: tuple[RegionView, ...] | None = None
    placements: Mapping[str, PlacementView] | None = None
    arenas: tuple[dict[str, Any], ...] = field(default=())
    config: ConvertArgs | None = None
    dry_run: bool = False
    stage_seconds: Mapping[str, float] = field(default_factory=dict)
    occupancy: tuple[RegionOccupancy, ...] = field(default=())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        # The dataclass repr printed every plan, report and view field (7,445 characters for KWS);
        # one line that says which conversion this is fits a notebook cell or a log line.
        written = "dry run, would write" if self.dry_run else "output"
        return (
            f"<ConversionResult {self.plan.model_name or self.plan.model.file!r} on "
            f"{self.plan.platform.name}: {len(self.plan.operators)} operators, "
            f"{len(self.arenas)} arenas, {written} {str(self.output)!r}>"
        )

    def summary(self) -> dict[str, Any]:
        """One flat row for a table (``pandas.DataFrame(rows)``, CSV): see :func:`result_summary`."""
        from helia_aot.pipeline.summary import result_summary  # tables and sweeps only

        return result_summary(self)

    def _repr_html_(self) -> str:
        from helia_aot.pipeline.html_report import render_result_summary  # notebooks only

        return render_result_summary(self)


# eq=False, repr=False: never compared or printed (the CLI reads its fields), so the decorator
# generates no methods for them at every start-up.
@dataclass(frozen=True, eq=False, repr=False)
class ConversionSummary:
    """What ``helia-aot convert`` prints when a conversion finishes, without the plan and report readers.

    The command line shows where the module went, its prefix, the arenas and the report's hint
    messages; it never reads the plan or the report back. Validating the records Emit wrote into
    :class:`OptimizationPlan` and :class:`OptimizationReport` builds the thirty-odd pydantic models of
    :mod:`helia_aot.optimization.records`, a twentieth of a small model's command-line conversion,
    so the command line takes these fields from the same records instead. A Python caller gets the
    full :class:`ConversionResult` from :meth:`AotConverter.convert`.
    """

    output: Path
    prefix: str
    work_dir: Path | None
    arenas: tuple[dict[str, Any], ...]
    hints: tuple[str, ...]
    """The report's ``hints[].message`` texts, in order."""
    dry_run: bool = False


def check_extension_names(config: ConvertArgs, context: RegistryContext) -> None:
    """Check every configuration value that names an extension against ``context``, before Load.

    ``memory.planner`` in ``memory_planners``, ``module.type`` in ``module_exporters`` and each
    ``transforms[]`` entry (name and options) in ``transforms``; ``platform.name`` is checked when
    the platform resolves, just before. A plugin's extension is chosen exactly like a built-in one,
    and a misspelt name fails with the registered names (InvalidConfigError, exit status 2).
    """
    context.memory_planners.select(config.memory.planner, setting="memory.planner")
    context.module_exporters.select(config.module.type, setting="module.type")
    select_transforms(config.transforms, context)


class AotConverter:
    """Converts a LiteRT model into a self-contained AOT inference C module.

    ``registry_context`` defaults to the frozen default context (what the CLI uses). ``observers``
    are objects with ``stage_started(stage)`` / ``stage_finished(stage, seconds)`` methods, called
    with the plugin observer hooks around each stage (the CLI's progress display is one).
    """

    def __init__(
        self,
        config: ConvertArgs,
        registry_context: RegistryContext | None = None,
        *,
        observers: Sequence[Any] = (),
    ) -> None:
        self.config = config
        self.registry_context = registry_context or build_default_registry_context(plugins=config.plugins)
        self.observers = list(observers)
        self.stage_seconds: dict[str, float] = {}

    @contextmanager
    def _stage(self, name: str, details: dict[str, Any]) -> Iterator[None]:
        host = plugin_host(self.config.plugins)
        host.stage_started(name, self.config)
        for observer in self.observers:
            observer.stage_started(name)
        start = time.perf_counter()
        yield
        seconds = time.perf_counter() - start
        self.stage_seconds[name] = seconds
        host.stage_finished(name, self.config, seconds, details)
        for observer in self.observers:
            observer.stage_finished(name, seconds)

    def convert(self) -> ConversionResult:
        """Run Load, Transform, Resolve, Plan, Emit and Export; return what was written.

        Code is generated in a temporary work directory that is removed at the end, whether the
        conversion succeeds or fails, unless ``keep_work_dir`` is set. With ``dry_run`` the
        conversion stops after Plan: the result holds the plan, the report and the arenas, and
        nothing is written to ``module.path`` (which is then not checked either).
        """
        with collector_paused():  # see helia_aot.pipeline.collector (a tenth of a large model's time)
            return self._convert(self._result)

    def _convert_summary(self) -> ConversionSummary:
        """The same conversion as :meth:`convert`, ending in the :class:`ConversionSummary` the
        command line prints (see there) instead of a :class:`ConversionResult`."""
        with collector_paused():
            return self._convert(self._summary)

    def _convert(self, finish: Callable[..., _Finished]) -> _Finished:
        user_config = config = self.config
        context = self.registry_context
        self.stage_seconds = {}
        check_operator_rules(config.operators, context)
        check_extension_names(config, context)
        if not config.dry_run:
            check_destination(config)
        platform = resolve_platform(config.platform, context)
        work_dir = Path(tempfile.mkdtemp(prefix="helia_aot_"))
        keep = bool(config.keep_work_dir)
        try:
            config = with_model_file(config, work_dir)
            details: dict[str, Any] = {}
            path = Path(config.model.path)
            reader = loader_for(path, config, context).open()
            with reader.explaining(path, config):
                with self._stage("load", details):
                    model = reader.load(path, config, context)
                    if config.model.name:
                        model.name = config.model.name
                    check_state_feedback(model, config.test.state_feedback)
                    details.update(operators=len(model.operators), tensors=len(model.tensors))
                details = {}
                with self._stage("transform", details):
                    model = run_transforms(model, config, context)
                details = {}
                with self._stage("resolve", details):
                    operators = resolve_operators(model, platform, config, context)
                    problems = verify_model(model)
                    if problems:
                        raise OperatorOrderError(
                            f"resolve left an invalid graph: {problems[0]}", details=problems
                        )
            details = {}
            with self._stage("plan", details):
                plan = plan_memory(model, operators, platform, config, context)
                for op in operators:
                    op.on_placed(plan)
                details["arenas"] = [recs.arena_row(r) for r in plan.regions]
            if config.dry_run:
                return finish(
                    destination_of(config),
                    model,
                    operators,
                    plan,
                    platform,
                    None,
                    user_config,
                    config,
                    work_dir=work_dir if keep else None,
                )
            details = {}
            with self._stage("emit", details), templates_checked_once():
                module_dir = work_dir / config.module_name
                test_case = None
                if config.test.enabled:  # imported here: only a module with a test needs it
                    from helia_aot.pipeline.test_case import test_case_values

                    test_case = test_case_values(model, config)
                plan_record = recs.plan_record(model, operators, platform, config)
                report_record = recs.report_record(model, operators, platform, plan, config)
                records = {"plan": plan_record, "report": report_record}
                emit_module(
                    module_dir,
                    model,
                    operators,
                    plan,
                    platform,
                    config,
                    records=records,
                    test_case=test_case,
                    exporters=context.module_exporters,
                )
                want_views = bool(config.result_views) or bool(config.documentation.html)
                views = recs.result_views(model, operators, plan, config) if want_views else {}
                recs.write_module_extras(
                    module_dir, model, operators, plan, platform, config, views=views or None, records=records
                )
            details = {}
            with self._stage("export", details):
                output = export_module(module_dir, config, move=not keep)
                details["output"] = str(output)
            return finish(
                output,
                model,
                operators,
                plan,
                platform,
                {"plan": plan_record, "report": report_record, "views": views},
                user_config,
                config,
                work_dir=work_dir if keep else None,
            )
        finally:
            if not keep:
                shutil.rmtree(work_dir, ignore_errors=True)

    def _result(
        self,
        output: Path,
        model: AirModel,
        operators: list[AotOperator],
        plan: MemoryPlan,
        platform: SocPlatform,
        built: dict[str, Any] | None,
        user_config: ConvertArgs,
        config: ConvertArgs,
        *,
        work_dir: Path | None = None,
    ) -> ConversionResult:
        """The ConversionResult of a conversion (``built``: the records and views Emit made) or of
        a dry run (``built`` None: the records and views are made here, as Emit would make them)."""
        from helia_aot.optimization.records import OptimizationPlan, OptimizationReport

        if built is None:
            want_views = bool(config.result_views)
            built = {
                "plan": recs.plan_record(model, operators, platform, config),
                "report": recs.report_record(model, operators, platform, plan, config),
                "views": recs.result_views(model, operators, plan, config) if want_views else {},
            }
        views = built["views"]
        return ConversionResult(
            output=output,
            prefix=config.module.prefix,
            plan=OptimizationPlan.model_validate(built["plan"]),
            report=OptimizationReport.model_validate(built["report"]),
            work_dir=work_dir,
            arenas=tuple(recs.arena_row(r) for r in plan.regions),
            config=user_config,
            dry_run=bool(config.dry_run),
            stage_seconds=dict(self.stage_seconds),
            occupancy=tuple(recs.pictured_occupancy(model, operators, plan, platform, config.module.prefix)),
            **(views if config.result_views else {}),
        )

    def _summary(
        self,
        output: Path,
        model: AirModel,
        operators: list[AotOperator],
        plan: MemoryPlan,
        platform: SocPlatform,
        built: dict[str, Any] | None,
        user_config: ConvertArgs,
        config: ConvertArgs,
        *,
        work_dir: Path | None = None,
    ) -> ConversionSummary:
        """The :class:`ConversionSummary` of a conversion; the arguments are :meth:`_result`'s."""
        if built is None:
            report = recs.report_record(model, operators, platform, plan, config)
        else:
            report = built["report"]
        return ConversionSummary(
            output=output,
            prefix=config.module.prefix,
            work_dir=work_dir,
            arenas=tuple(recs.arena_row(r) for r in plan.regions),
            hints=tuple(str(hint["message"]) for hint in report.get("hints", ())),
            dry_run=bool(config.dry_run),
        )


def with_model_file(config: ConvertArgs, work_dir: Path) -> ConvertArgs:
    """``config`` reading its model from a file: a model given as bytes (``model.data``) is written
    into the work directory under ``model.path``'s file name and ``model.path`` points there.

    Every stage after Load (the golden reference interpreter, the plan's file name and sha256)
    reads the model as a file, so bytes become one file in the temporary work directory, never
    next to the user's files.
    """
    data = config.model.data
    if data is None:
        return config
    path = work_dir / "model" / (Path(config.model.path).name or "model.tflite")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    model = config.model.model_copy(update={"path": path, "data": None})
    return config.model_copy(update={"model": model})
