"""``helia-aot docs``: the pages a pip user reads without the repository's docs/ folder."""

from __future__ import annotations

from pathlib import Path

from helia_aot.cli import app
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(page.stem for page in DOCS.glob("*.md"))


def test_without_a_topic_every_page_is_listed_with_its_title() -> None:
    result = CliRunner().invoke(app, ["docs"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines[: len(PAGES)]] == PAGES
    assert "configuration  " in result.output and "Configuration" in result.output
    assert lines[-1] == f"{len(PAGES)} pages; `helia-aot docs TOPIC` prints one."


def test_a_topic_prints_its_page_as_written() -> None:
    result = CliRunner().invoke(app, ["docs", "getting-started"])
    assert result.exit_code == 0, result.output
    assert result.output == (DOCS / "getting-started.md").read_text(encoding="utf-8")


def test_a_topic_may_be_given_as_the_file_name() -> None:
    result = CliRunner().invoke(app, ["docs", "Configuration.md"])
    assert result.exit_code == 0
    assert result.output == (DOCS / "configuration.md").read_text(encoding="utf-8")


def test_a_misspelt_topic_exits_2_with_the_nearest_topic() -> None:
    result = CliRunner().invoke(app, ["docs", "configuraton"])
    assert result.exit_code == 2
    assert "there is no documentation page 'configuraton'" in result.output
    assert "did you mean configuration?" in result.output
    assert "Traceback" not in result.output


@given(st.sampled_from([page for page in PAGES if len(page) >= 6]), st.integers(min_value=0, max_value=20))
def test_one_dropped_letter_still_finds_the_page(page: str, position: int) -> None:
    typo = page[: position % len(page)] + page[position % len(page) + 1 :]
    result = CliRunner().invoke(app, ["docs", typo])
    assert result.exit_code == 2
    assert page in result.output
