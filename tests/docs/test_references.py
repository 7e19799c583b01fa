"""Every reference in the README and docs/*.md resolves: each relative link names a file of the
repository (and, into a Markdown page, one of its headings), and each dotted name of this project's
code (`arena.tournaments.schedule.round_robin`, `sdk.engine.Game.apply`) imports and has its
attributes. A module moved or renamed without its docs fails here, naming the page and line."""

from __future__ import annotations

import importlib
import re
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
DOTTED = re.compile(r"(?<![\w./-])((?:arena|sdk|bots)(?:\.[A-Za-z_]\w*)+)")
NOT_PYTHON = frozenset({"org", "com", "pem", "key", "csr", "ext", "proto", "db", "log", "json", "toml"})
"""Last parts that make a dotted word a file or host name (`arena.pem`, `arena.example.org`)."""


def lines(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks (where a `](` or a dotted word may be code)."""
    kept, fenced = [], False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            kept.append((number, line))
    return kept


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in lines(page):
        if match := re.match(r"#{1,6} (.+)", line):
            base = slug(match.group(1))
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return frozenset(found)


def broken_link(page: Path, target: str) -> str | None:
    """Why the link `target` on `page` does not resolve, or None if it does."""
    path, _, fragment = target.partition("#")
    if "://" in path or path.startswith("mailto:"):
        return None
    linked = (page.parent / path).resolve() if path else page
    if not linked.exists():
        return f"no file {path}"
    if not linked.is_relative_to(ROOT):
        return f"{path} is outside the repository"
    if fragment and linked.suffix == ".md" and fragment not in anchors(linked):
        return f"{linked.relative_to(ROOT)} has no heading #{fragment}"
    return None


def resolves(name: str) -> bool:
    """Whether `name` is a module of this project, or an attribute path from one."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return False


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken = [
        f"{page.relative_to(ROOT)}:{number}: ({target}): {why}"
        for page in PAGES
        for number, line in lines(page)
        for target in LINK.findall(line)
        if (why := broken_link(page, target))
    ]
    assert broken == []


def test_every_dotted_name_in_the_docs_resolves() -> None:
    names = [
        (page, number, match.rstrip("."))
        for page in PAGES
        for number, line in lines(page)
        for match in DOTTED.findall(line)
    ]
    assert len(names) > 50, "the pattern finds the docs' names"
    broken = [
        f"{page.relative_to(ROOT)}:{number}: {name}"
        for page, number, name in names
        if name.rsplit(".", 1)[1] not in NOT_PYTHON and not resolves(name)
    ]
    assert broken == []


def test_the_checks_catch_a_moved_module_and_a_missing_heading(tmp_path: Path) -> None:
    assert resolves("sdk.engine.Game.apply") and resolves("arena.tournaments.schedule")
    assert not resolves("arena.api.convert.arena_batch_bytes")
    assert not resolves("sdk.engine.Game.no_such_method")
    assert broken_link(ROOT / "README.md", "docs/rules.md#1-cards") is None
    assert broken_link(ROOT / "README.md", "docs/rules.md#no-such-heading") is not None
    assert broken_link(ROOT / "README.md", "docs/no-such-page.md") is not None


def test_no_two_files_differ_only_by_case() -> None:
    """On macOS and Windows they would be one file (as the two rules pages, full and summary, once were)."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert len(files) > 100
    by_case: dict[str, list[str]] = {}
    for name in files:
        by_case.setdefault(name.lower(), []).append(name)
    assert [names for names in by_case.values() if len(names) > 1] == []


def test_nothing_cites_the_specification_outside_the_repository() -> None:
    """What the code and docs use from the design notes kept beside the project is restated in its
    own docs (docs/architecture.md's boundaries, docs/benchmarks.md's earlier figures, docs/rules.md)
    and cited there, so a reader of a clone can follow every reference."""
    outside = ("DESIGN" + ".md", "FACTS" + ".md", "/work/" + "shared", "seeds" + "/")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    citing = [
        f"{name}: {word}"
        for name in files
        if (path := ROOT / name).suffix in {".py", ".md", ".toml", ".c", ".proto", ".js", ".html", ".yaml"}
        and path.exists()
        for word in outside
        if word in path.read_text(encoding="utf-8")
    ]
    assert citing == []
