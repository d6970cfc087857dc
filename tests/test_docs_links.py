"""Every relative link in the repository's pages (README.md, docs/ with its studies and
the games' manifest, the scripts' index, the lab's README) names a file that exists, and
every #anchor a heading of the page it points to.

The README is an overview that sends readers to docs/ pages, and those pages link to
each other, to their plots and to the games in docs/matches/. Moving a file or
renaming a heading silently breaks such links (GitHub shows a 404 or lands at the
top of the page), so they are checked here. Web links are not fetched: a test must
not need the network.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# The lab's queue keeps each job's report under lab/jobs/ (gitignored, one machine's):
# pages of the repository, not of a run.
PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md")),
         REPO_ROOT / "scripts" / "README.md",
         *sorted(p for p in (REPO_ROOT / "lab").rglob("*.md") if "jobs" not in p.relative_to(REPO_ROOT / "lab").parts)]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target), the text possibly over several lines, an optional title.
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The page without code: a link written inside a code block or span is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text, lower case, punctuation dropped
    (letters, digits, '_' and '-' stay), each space a '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link counts by its text
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(page: Path) -> list[str]:
    text = prose(page.read_text())
    return INLINE_LINK.findall(text) + REFERENCE_DEF.findall(text)


def shown(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def broken(page: Path) -> list[str]:
    problems = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:: not checked
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / unquote(path)).resolve() if path else page
        if not dest.exists():
            problems.append(f"{target}: no file {shown(dest)}")
        elif anchor and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
            problems.append(f"{target}: no heading #{anchor} in {shown(dest)}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_relative_links_resolve(page):
    assert broken(page) == []


def test_the_readme_links_to_every_other_page():
    """A page nobody links to is a page nobody finds."""
    linked = {(REPO_ROOT / unquote(t.partition("#")[0])).resolve()
              for t in links(REPO_ROOT / "README.md")}
    missing = [shown(p) for p in PAGES[1:] if p.resolve() not in linked]
    assert missing == []


def test_the_manifest_lists_every_games_file():
    """docs/matches/ keeps only games that back a figure, each with its row in the manifest
    (which links it, so the links' test sees a row whose file is gone)."""
    matches = REPO_ROOT / "docs" / "matches"
    manifest = matches / "MANIFEST.md"
    listed = {(manifest.parent / unquote(t.partition("#")[0])).resolve() for t in links(manifest)}
    unlisted = [shown(p) for p in sorted(matches.rglob("*")) if p.is_file() and p != manifest
                and p.resolve() not in listed]
    assert unlisted == []


def test_the_checker_sees_broken_links_and_anchors(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## `genchess match` (10+0.1)\n")
    page.write_text(
        "# Title\n\n[ok](other.md) [ok](other.md#genchess-match-1001) [ok](#title)\n"
        "[gone](missing.md) ![gone](img/none.png) [bad](other.md#nowhere) [bad](#nothing)\n"
        "[web](https://example.org/x.md) `[code](not-checked.md)`\n"
        "```sh\n[code](also-not-checked.md)\n```\n")
    found = broken(page)
    assert [f.split(":")[0] for f in found] == [
        "missing.md", "img/none.png", "other.md#nowhere", "#nothing"]
