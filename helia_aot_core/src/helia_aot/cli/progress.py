"""What ``helia-aot convert`` shows while and after it works: stage progress and a results panel.

Progress goes to stderr and the results panel to stdout, so ``helia-aot convert ... > summary.txt``
captures the summary without the spinner noise.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # the spinner (rich.status, rich.live) is imported only on a terminal
    from rich.status import Status

PROGRESS_LOGGER = "helia_aot.cli.progress"
"""Logger the stage lines go to, so ``--log-file`` holds them; the console shows them its own way."""

_progress_log = logging.getLogger(PROGRESS_LOGGER)


class ProgressObserver:
    """Converter observer that shows each stage as it runs and how long it took.

    The converter calls :meth:`stage_started` and :meth:`stage_finished` around each of its
    stages. On a terminal a spinner names the running stage; elsewhere (a log, a CI job) only the
    finished lines appear, so the output stays readable without terminal control codes.
    """

    def __init__(self, console: Console, *, enabled: bool = True) -> None:
        self.console = console
        self.enabled = enabled
        self.timings: list[tuple[str, float]] = []
        self._status: Status | None = None

    def stage_started(self, stage: str) -> None:
        _progress_log.info("Step: %s", stage)
        if not self.enabled:
            return
        self.close()
        if self.console.is_terminal:
            self._status = self.console.status(Text(f"{stage} ..."))
            self._status.start()

    def stage_finished(self, stage: str, seconds: float) -> None:
        self.timings.append((stage, seconds))
        _progress_log.info("Step completed: %s (%.2fs)", stage, seconds)
        if not self.enabled:
            return
        self.close()
        self.console.print(Text.assemble(("✓", "green"), f" {stage:<10} ", (f"{seconds:8.2f} s", "dim")))

    def close(self) -> None:
        """Stop a running spinner (also called when a stage fails and never finishes)."""
        if self._status is not None:
            self._status.stop()
            self._status = None


def _cell(value: str, style: str = "") -> Text | str:
    """``value`` as the Text a console would make of it, or the string itself when it has markup.

    A plain string in a table or panel title goes through rich's markup and emoji-code
    replacement, whose first use imports the whole emoji table (a visible part of a conversion's
    start-up). Text without ``[`` (markup) and ``:`` (emoji codes) renders the same characters and
    styles, so only a value holding one of them is left to the console.
    """
    if "[" in value or ":" in value:
        return value
    return Text(value, style=style)


def byte_text(value: Any) -> str:
    """A byte count with thousands separators, or ``-`` when unknown."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "-"
    return f"{value:,} B"


def arena_table(arenas: list[dict[str, Any]]) -> Table:
    """The arenas a conversion planned: what each uses against its capacity and lower bound."""
    # Strings become Text here (see _cell); the title keeps the style a string title gets.
    table = Table(title=Text("Arenas", style="table.title"), title_justify="left", expand=False)
    table.add_column(Text("Region"))
    table.add_column(Text("Role"))
    table.add_column(Text("Memory"))
    table.add_column(Text("Used"), justify="right")
    table.add_column(Text("Capacity"), justify="right")
    table.add_column(Text("Lower bound"), justify="right")
    for arena in arenas:
        table.add_row(
            _cell(str(arena.get("region", "-"))),
            _cell(str(arena.get("role", "-"))),
            _cell(str(arena.get("memory", "-"))),
            _cell(byte_text(arena.get("used"))),
            _cell(byte_text(arena.get("capacity"))),
            _cell(byte_text(arena.get("peak_live"))),
        )
    return table


def results_panel(config: Any, result: Any) -> Panel:
    """The summary of a finished conversion: what was converted, where it went, how it fits."""
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    facts.add_row(Text("Model"), Text(f"{config.model.name} ({config.model.path})"))
    dry_run = bool(getattr(result, "dry_run", False))
    facts.add_row(
        Text("Module"), Text(f"{result.output} (dry run: nothing written)" if dry_run else str(result.output))
    )
    facts.add_row(Text("Prefix"), Text(str(result.prefix)))
    facts.add_row(Text("Type"), Text(str(config.module.type)))
    facts.add_row(Text("Platform"), Text(str(config.platform.name)))
    work_dir = getattr(result, "work_dir", None)
    if work_dir is not None:
        facts.add_row(Text("Work dir"), Text(str(work_dir)))
    parts: list[Any] = [facts]
    arenas = list(getattr(result, "arenas", None) or [])
    if arenas:
        parts.extend([Text(""), arena_table(arenas)])
    # A ConversionSummary holds the hint texts; a ConversionResult its report's Hint records.
    hints = list(
        getattr(result, "hints", None) or getattr(getattr(result, "report", None), "hints", None) or []
    )
    if hints:
        # What another knob value would save (bytes from the plan, instructions measured).
        parts.extend([Text(""), Text("Optimization hints", style="bold")])
        parts.extend(Padding(Text(str(getattr(h, "message", h))), (0, 0, 0, 2)) for h in hints)
    return Panel(
        Group(*parts),
        title=Text("Dry run finished" if dry_run else "Conversion finished"),
        title_align="left",
        border_style="green",
        expand=False,
    )


__all__ = ["PROGRESS_LOGGER", "ProgressObserver", "arena_table", "byte_text", "results_panel"]
