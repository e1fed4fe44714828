"""Sweeps: one conversion per point of a cross product of settings, one flat row per point.

A data scientist comparing planners or platforms wants a table, not a folder of modules to collect
by hand. :func:`sweep` takes a base configuration and the values to vary (dotted keys, as the YAML
file and the flags spell them), checks every point before converting any (a misspelt key or a bad
value fails at once, as InvalidConfigError), gives each point its own module folder (or runs it
dry) and returns one :meth:`ConversionResult.summary` row per point with the point's settings in
it. Conversions are independent and CPU-bound, so they run on a process pool by default; any
``concurrent.futures.Executor`` can be passed instead (a thread pool, or a Dask or Ray executor
that takes a large sweep to a cluster).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from helia_aot.config import ConvertArgs, config_keys
from helia_aot.config.base import nearest_key
from helia_aot.config.loading import apply_overrides, invalid_config
from helia_aot.converter import AotConverter, check_extension_names
from helia_aot.errors import HeliaAotError, InvalidConfigError
from helia_aot.pipeline.export import is_archive
from helia_aot.platforms import resolve_platform
from helia_aot.registry.build import build_default_registry_context

SweepRow = dict[str, Any]
"""One point: ``point`` (its index), the varied settings by dotted key, the result's summary
columns and ``error`` (None, or the typed error's message when the point failed)."""

_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")
_OUTPUT_KEYS = frozenset({"module.path", "module.name"})


def sweep_keys() -> list[str]:
    """The dotted keys a sweep can vary: every configuration key (``path`` loads a file instead)."""
    return [key.key for key in config_keys() if key.key != "path"]


def check_vary(vary: Mapping[str, Any]) -> dict[str, list[Any]]:
    """``vary`` as key -> list of values, or InvalidConfigError naming the bad key or value list."""
    if not isinstance(vary, Mapping) or not vary:
        raise InvalidConfigError(
            "a sweep needs at least one setting to vary",
            hint='pass vary={"memory.planner": ["greedy", "hill_climb"]} '
            "(on the command line: --vary memory.planner=greedy,hill_climb)",
        )
    valid = sweep_keys()
    checked: dict[str, list[Any]] = {}
    for key, values in vary.items():
        if key not in valid:
            close = nearest_key(str(key), valid)
            raise InvalidConfigError(
                f"cannot vary {key!r}: it is not a configuration key"
                + (f"; did you mean {close!r}?" if close else ""),
                hint="vary a dotted key that helia-aot convert --help lists, "
                "e.g. memory.planner or platform.name",
            )
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise InvalidConfigError(
                f"the values of {key!r} must be a non-empty list, not {values!r}",
                hint=f'give a list: vary={{"{key}": [value, value, ...]}}',
            )
        checked[key] = list(values)
    return checked


def _slug(values: Sequence[Any]) -> str:
    text = "-".join(_SLUG_UNSAFE.sub("_", str(getattr(v, "value", v))).strip("_") for v in values)
    return text[:80] or "point"


def _base_config(base: ConvertArgs | Mapping[str, Any] | str | Path) -> ConvertArgs:
    if isinstance(base, ConvertArgs):
        return base
    if isinstance(base, (str, Path)):
        return ConvertArgs.from_yaml(base)
    try:
        return ConvertArgs.model_validate(dict(base))
    except ValidationError as error:
        raise invalid_config(error) from error


def _unique_output(config: ConvertArgs, slug: str) -> dict[str, Any]:
    """The ``module.path`` override that gives a point its own module: a sub-folder named for its
    settings, or for an archive a sibling file with the settings in its name."""
    path = Path(config.module.path)
    if is_archive(path):
        return {"module.path": path.with_name(f"{path.stem}-{slug}{path.suffix}")}
    return {"module.path": path / slug}


def sweep_points(
    base: ConvertArgs, vary: Mapping[str, Sequence[Any]]
) -> list[tuple[dict[str, Any], ConvertArgs]]:
    """Every point of the cross product, in order (the last key varies fastest), as its settings
    and its validated configuration; InvalidConfigError names the first point that is invalid."""
    keys = list(vary)
    data = base.model_dump(mode="python")
    if base.path is not None:
        data["path"] = base.path
    points = []
    seen: set[str] = set()
    contexts: dict[str, Any] = {}
    for index, values in enumerate(itertools.product(*(vary[k] for k in keys))):
        settings = dict(zip(keys, values, strict=True))
        overrides = dict(settings)
        if not _OUTPUT_KEYS & set(keys):
            slug = _slug(values)
            if slug in seen:
                slug = f"{index:03d}-{slug}"
            seen.add(slug)
            overrides.update(_unique_output(base, slug))
        try:
            config = ConvertArgs.model_validate(apply_overrides(data, overrides))
        except ValidationError as error:
            where = ", ".join(f"{k}={v!r}" for k, v in settings.items())
            problem = invalid_config(error)
            raise InvalidConfigError(
                f"sweep point {where}: {problem.message}", hint=problem.hint, details=problem.details
            ) from error
        if base.model.data is not None and "model.data" not in settings:
            config = config.model_copy(
                update={"model": config.model.model_copy(update={"data": base.model.data})}
            )
        check_names(config, settings, contexts)
        points.append((settings, config))
    return points


def check_names(config: ConvertArgs, settings: Mapping[str, Any], contexts: dict[str, Any]) -> None:
    """Check what a point names (planner, module type, transforms, platform) against the
    registries its plugin selection gives, so a misspelt value fails before any point converts.
    ``contexts`` caches one registry context per plugin selection."""
    selection = config.plugins.model_dump_json()
    if selection not in contexts:
        contexts[selection] = build_default_registry_context(plugins=config.plugins)
    context = contexts[selection]
    try:
        check_extension_names(config, context)
        resolve_platform(config.platform, context)
    except InvalidConfigError as error:
        where = ", ".join(f"{k}={_show(v)}" for k, v in settings.items())
        raise InvalidConfigError(f"sweep point {where}: {error.message}", hint=error.hint) from error


def run_point(config: ConvertArgs) -> SweepRow:
    """Convert one point and return its summary row; a typed failure becomes the row's ``error``
    (so one unsupported combination does not lose the rest of the table)."""
    try:
        result = AotConverter(config).convert()
    except HeliaAotError as error:
        return {"error": error.message, "exit_code": error.exit_code}
    return {**result.summary(), "error": None}


def _default_executor(points: int, max_workers: int | None) -> Executor:
    workers = max_workers or min(points, os.cpu_count() or 1)
    return ProcessPoolExecutor(max_workers=max(workers, 1))


def sweep(
    base: ConvertArgs | Mapping[str, Any] | str | Path,
    vary: Mapping[str, Sequence[Any]],
    executor: Executor | None = None,
    *,
    progress: bool = True,
    max_workers: int | None = None,
    console: Console | None = None,
) -> list[SweepRow]:
    """Convert every combination of ``vary`` laid over ``base``; return one row per point, in order.

    ``base`` is a ConvertArgs, a mapping or a YAML file. ``vary`` maps dotted keys to value lists:
    ``{"memory.planner": ["greedy", "hill_climb"], "platform.name": ["apollo4p_evb",
    "apollo510_evb"]}`` is four points. Unless ``module.path`` or ``module.name`` is varied, each
    point writes its module under ``module.path`` in a folder named for its values
    (``greedy-apollo4p_evb``); with ``dry_run`` nothing is written and ``output`` says where it
    would go. ``executor`` runs the points (a
    ``ProcessPoolExecutor`` of ``max_workers`` by default, shut down afterwards; one passed in
    is left running). ``progress`` shows a progress bar on stderr (or ``console``).

    Raises InvalidConfigError (exit status 2) for a key that is not a configuration key or a
    value a point's configuration rejects, before anything is converted.
    """
    config = _base_config(base)
    points = sweep_points(config, check_vary(vary))
    own = executor is None
    pool = _default_executor(len(points), max_workers) if executor is None else executor
    rows: list[SweepRow | None] = [None] * len(points)
    try:
        futures: dict[Future[SweepRow], int] = {
            pool.submit(run_point, point): i for i, (_, point) in enumerate(points)
        }
        with _progress(progress, console, len(points)) as advance:
            for future in as_completed(futures):
                index = futures[future]
                settings = points[index][0]
                rows[index] = {"point": index, **settings, **future.result()}
                advance(", ".join(f"{k}={_show(v)}" for k, v in settings.items()))
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    return [row for row in rows if row is not None]


def _show(value: Any) -> str:
    return str(getattr(value, "value", value))


class _progress:
    """A rich progress bar advanced once per finished point (nothing shown when disabled)."""

    def __init__(self, enabled: bool, console: Console | None, total: int) -> None:
        self.total = total
        self.bar: Progress | None = None
        if enabled:
            self.bar = Progress(
                TextColumn("sweep"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=console or Console(stderr=True),
                transient=False,
            )

    def __enter__(self) -> Callable[[str], None]:
        if self.bar is None:
            return lambda _text: None
        bar = self.bar
        bar.start()
        task = bar.add_task("", total=self.total)

        def advance(text: str) -> None:
            bar.update(task, advance=1, description=text)

        return advance

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


__all__ = ["SweepRow", "check_vary", "run_point", "sweep", "sweep_keys", "sweep_points"]
