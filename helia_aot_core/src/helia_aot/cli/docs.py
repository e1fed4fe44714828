"""``helia-aot docs [TOPIC]``: the documentation pages, for users who installed the wheel.

The pages of the repository's docs/ ship in the core distribution as package data
(``helia_aot/pages`` is a link to docs/ in the repository, copied into the wheel), so a hint can
say ``helia-aot docs configuration`` to a pip user, who has no docs/ folder. A topic is a page's
file name without ``.md``; the command without one lists them with their titles.
"""

from __future__ import annotations

import difflib
from importlib import resources
from importlib.resources.abc import Traversable

import typer

from helia_aot.cli.errors import reported_errors
from helia_aot.errors import InvalidConfigError

PACKAGE_PAGES = ("helia_aot", "pages")
"""Where the pages are inside the installed package."""


def _pages() -> dict[str, Traversable]:
    folder = resources.files(PACKAGE_PAGES[0]).joinpath(PACKAGE_PAGES[1])
    if not folder.is_dir():
        return {}
    return {
        entry.name.removesuffix(".md"): entry
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name)
        if entry.name.endswith(".md")
    }


def topics() -> dict[str, str]:
    """Every topic with its page's title (the first heading)."""
    titles = {}
    for topic, page in _pages().items():
        first = next(
            (line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("#")), ""
        )
        titles[topic] = first.lstrip("#").strip() or topic
    return titles


def page_text(topic: str) -> str:
    """The page of ``topic`` (case and a trailing ``.md`` ignored); an unknown topic is a usage error
    (exit 2) naming the nearest topics."""
    pages = _pages()
    wanted = topic.lower().removesuffix(".md")
    if wanted in pages:
        return pages[wanted].read_text(encoding="utf-8")
    close = difflib.get_close_matches(wanted, list(pages), n=3, cutoff=0.6)
    suggestion = f"did you mean {' or '.join(close)}? " if close else ""
    raise InvalidConfigError(
        f"there is no documentation page {topic!r}",
        hint=f"{suggestion}`helia-aot docs` lists the topics",
    )


TOPIC_ARGUMENT = typer.Argument(None, help="The page to print (`helia-aot docs` lists them).")


def docs_command(topic: str | None = TOPIC_ARGUMENT) -> None:
    """Print a documentation page, or list the pages when no topic is given."""
    with reported_errors(lambda: 1):
        if topic is not None:
            typer.echo(page_text(topic), nl=False)
            return
        titles = topics()
        width = max((len(name) for name in titles), default=8)
        for name, title in titles.items():
            typer.echo(f"{name:<{width}}  {title}")
        typer.echo(f"\n{len(titles)} pages; `helia-aot docs TOPIC` prints one.")


__all__ = ["docs_command", "page_text", "topics"]
