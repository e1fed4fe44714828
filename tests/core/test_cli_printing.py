"""The CLI prints the same characters and styles with fewer rich parts (issue 17, start-up time).

The results panel hands rich ``Text`` instead of strings (no markup or emoji-code pass, whose first
use imports rich's emoji table) and the console log handler makes its ``RichHandler`` at the first
record it shows. Each is checked here against what rich prints for the plain strings and the
handler it stands for, on a terminal (styles as ANSI codes) and off one.
"""

from __future__ import annotations

import io
import logging

import pytest
from helia_aot.cli.convert import ConsoleLogHandler
from helia_aot.cli.progress import _cell, arena_table
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.logging import RichHandler
from rich.table import Table


def _console(terminal: bool, width: int = 80) -> Console:
    return Console(
        file=io.StringIO(),
        width=width,
        force_terminal=terminal,
        color_system="truecolor" if terminal else None,
        highlight=False,
        soft_wrap=True,
    )


def _printed(renderable: object, terminal: bool, width: int = 80) -> str:
    console = _console(terminal, width)
    console.print(renderable)
    value: str = console.file.getvalue()  # type: ignore[attr-defined]
    return value


def _string_table(rows: list[list[str]]) -> Table:
    """The arena table as it was built from plain strings (title, headers and cells)."""
    table = Table(title="Arenas", title_justify="left", expand=False)
    for name, justify in [("Region", "left"), ("Role", "left"), ("Memory", "left")] + [
        (name, "right") for name in ("Used", "Capacity", "Lower bound")
    ]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    return table


@settings(max_examples=20, deadline=None)
@given(
    words=st.lists(
        st.text(alphabet=st.sampled_from("ab :[]/x"), min_size=0, max_size=9), min_size=3, max_size=3
    ),
    used=st.one_of(st.none(), st.integers(0, 10**7)),
    terminal=st.booleans(),
)
def test_the_arena_table_prints_what_strings_print(words, used, terminal):
    region, role, memory = words
    arena = {
        "region": region,
        "role": role,
        "memory": memory,
        "used": used,
        "capacity": 4096,
        "peak_live": None,
    }
    used_text = "-" if used is None else f"{used:,} B"
    strings = _string_table([[region, role, memory, used_text, "4,096 B", "-"]])
    for width in (24, 80):
        assert _printed(arena_table([arena]), terminal, width) == _printed(strings, terminal, width)


def test_a_value_with_markup_or_an_emoji_code_is_left_to_the_console():
    assert _cell("[bold]x") == "[bold]x" and _cell("a :smile: b") == "a :smile: b"
    assert _cell("DTCM").plain == "DTCM"  # type: ignore[union-attr]


@pytest.mark.parametrize("terminal", [False, True])
def test_the_log_handler_prints_what_rich_handler_prints(terminal):
    records = [
        logging.LogRecord("helia_aot.x", logging.WARNING, __file__, 1, "a [bold]warn:smile: %s", (3,), None),
        logging.LogRecord("helia_aot.y", logging.ERROR, __file__, 2, "second line\nwrapped", None, None),
    ]
    shown, expected = _console(terminal), _console(terminal)
    ours = ConsoleLogHandler(shown)
    theirs = RichHandler(console=expected, show_path=False, show_time=False, markup=False)
    for record in records:
        ours.handle(record)
        theirs.handle(record)
    ours.close()
    theirs.close()
    assert shown.file.getvalue() == expected.file.getvalue()  # type: ignore[attr-defined]
    assert "warn:smile:" in shown.file.getvalue()  # type: ignore[attr-defined]
