"""``helia-aot convert``: build a ConvertArgs from a YAML file and flags, and run the converter."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.cli.flags import overrides_from_flags
from helia_aot.cli.progress import PROGRESS_LOGGER, ProgressObserver, results_panel
from helia_aot.config import load_config
from helia_aot.pipeline.collector import collector_paused

LOGGER_NAME = "helia_aot"
_LEVELS = {0: logging.ERROR, 1: logging.WARNING, 2: logging.INFO, 3: logging.DEBUG}

HELP = """Convert a LiteRT model into a C inference module.

Settings come from the YAML file given with --path, then from the flags, each of which overrides the key it names (--memory.planner greedy). Booleans stand alone (--force, --no-force); list flags take several values (--platform.capabilities mcu dsp mve, --transforms JSON JSON). Relative paths resolve from the working directory. The options below are every key, with its default.

Quick start:

  helia-aot convert --model.path kws.tflite --module.path out/

  helia-aot convert --path kws.yaml --module.type zephyr --force

  helia-aot convert --path kws.yaml --test.enabled --memory.dump-residency-json
"""  # noqa: E501 - one line per paragraph: the help formatter wraps them to the terminal


class ConsoleLogHandler(logging.Handler):
    """Shows log records on a console the way rich's ``RichHandler`` does, through one made when
    the first record gets past this handler's level and filters.

    Most conversions log nothing at the console's level (warnings and above by default), and
    ``rich.logging`` is then never imported: a part of every conversion's start-up.
    """

    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console
        self._shown: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self._shown is None:
            from rich.logging import RichHandler

            self._shown = RichHandler(console=self.console, show_path=False, show_time=False, markup=False)
        self._shown.emit(record)

    def close(self) -> None:
        if self._shown is not None:
            self._shown.close()
        super().close()


@contextmanager
def conversion_logging(verbose: int, log_file: Path | None, console: Console) -> Iterator[None]:
    """Route the ``helia_aot`` logger to the console (by verbosity) and to ``log_file`` (everything,
    at every verbosity: the file is the record of the run, the console what a person watches).

    The handlers are removed afterwards so repeated in-process runs (tests, notebooks) do not stack
    them.
    """
    logger = logging.getLogger(LOGGER_NAME)
    handlers: list[logging.Handler] = []
    screen = ConsoleLogHandler(console)
    screen.setLevel(_LEVELS.get(verbose, logging.DEBUG))
    # Stage lines are shown by the progress display; the log file gets them as log records.
    screen.addFilter(lambda record: record.name != PROGRESS_LOGGER)
    handlers.append(screen)
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setLevel(logging.DEBUG)
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handlers.append(to_file)
    previous_level = logger.level
    logger.setLevel(min(handler.level for handler in handlers))
    for handler in handlers:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(previous_level)


def _converter_class() -> Any:
    # Looked up at call time: the converter pulls in the whole pipeline, which `--help`,
    # `--version` and a configuration error never need.
    from helia_aot.converter import AotConverter

    return AotConverter


def run_conversion(config: Any, stderr: Any, *, progress: bool = True, summary: bool = False) -> Any:
    """Convert with the progress display and the configured logging: what every command that
    converts (convert, test, profile) runs. With ``summary`` the conversion ends in the
    ConversionSummary ``helia-aot convert`` prints rather than a ConversionResult (the plan and
    report readers are then never built; see :class:`helia_aot.converter.ConversionSummary`)."""
    observer = ProgressObserver(stderr, enabled=progress and config.verbose >= 1)
    try:
        # The collector stays paused from the pipeline's imports to the end of the conversion.
        with conversion_logging(config.verbose, config.log_file, stderr), collector_paused():
            converter = _converter_class()(config, observers=[observer])
            return converter._convert_summary() if summary else converter.convert()
    finally:
        observer.close()


def _fallback_verbosity(overrides: dict[str, Any]) -> int:
    try:
        return int(overrides.get("verbose", 1))
    except (TypeError, ValueError):
        return 1


def convert(**flags: Any) -> None:
    """Run one conversion (the body of ``helia-aot convert``; flags arrive by parameter name)."""
    state: dict[str, int] = {"verbose": 1}
    # Collector paused for the whole command, configuration and summary included (one conversion).
    with reported_errors(lambda: state["verbose"]), collector_paused():
        config_path, overrides = overrides_from_flags(flags)
        state["verbose"] = _fallback_verbosity(overrides)
        config = load_config(config_path, overrides)
        state["verbose"] = config.verbose
        stderr = error_console()
        stdout = Console(highlight=False, soft_wrap=True)
        if config.verbose >= 2:
            import yaml  # only to echo the configuration

            stderr.print("Effective configuration:", style="bold")
            stderr.print(
                yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False).rstrip(), markup=False
            )
        result = run_conversion(config, stderr, summary=True)
        if config.verbose >= 1:
            # Wrapped to the terminal (the console's soft wrap is for plain lines): a hint longer
            # than the width continues on the next line instead of being cut at the panel's edge.
            stdout.print(results_panel(config, result), soft_wrap=False)
        else:
            stdout.print(str(result.output), markup=False)


__all__ = ["HELP", "conversion_logging", "convert"]
