"""The docs stay true: the protocol reference matches proto/, every link leads somewhere, and the
pages name the things they document."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from sdk.engine import Observation, PlayerView, PublicView
from tests.docs.readme import ROOT

sys.path.insert(0, str(ROOT / "docs"))
import protocol_reference

DOCS = ROOT / "docs"
PROTOCOL = DOCS / "protocol.md"
PAGES = sorted([ROOT / "README.md", *DOCS.glob("*.md")])


def test_the_protocol_reference_is_generated_from_the_current_proto_files() -> None:
    text = PROTOCOL.read_text()
    assert protocol_reference.BEGIN in text and protocol_reference.END in text, (
        "docs/protocol.md lost its generated section: run .venv/bin/python docs/protocol_reference.py"
    )
    assert protocol_reference.updated(text) == text, (
        "docs/protocol.md is out of date with proto/: run .venv/bin/python docs/protocol_reference.py"
    )


def test_the_generator_checks_from_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, str(DOCS / "protocol_reference.py"), "--check"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_the_generator_keeps_the_hand_written_part() -> None:
    text = PROTOCOL.read_text()
    before = text[: text.index(protocol_reference.BEGIN)]
    assert protocol_reference.updated(text).startswith(before)
    assert protocol_reference.updated("# Title\n\nProse.\n").startswith(
        "# Title\n\nProse.\n\n" + protocol_reference.BEGIN
    )


def test_every_service_rpc_message_field_and_enum_value_is_in_protocol_md() -> None:
    text = PROTOCOL.read_text()
    names = []
    for file in protocol_reference.descriptors():
        for service in file.service:
            names += [service.name, *(m.name for m in service.method)]
        for message in file.message_type:
            names += [message.name, *(f.name for f in message.field)]
        for enum in file.enum_type:
            names += [enum.name, *(v.name for v in enum.value)]
    assert len(names) > 100
    missing = [name for name in names if not re.search(rf"\b{re.escape(name)}\b", text)]
    assert not missing


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
        if re.match(r"\w+://|mailto:", target):
            continue
        assert (page.parent / target).exists(), f"{page.name}: broken link to {target}"


def test_the_bot_guide_covers_every_field_of_the_observation() -> None:
    guide = (DOCS / "bot-guide.md").read_text()
    for cls in (Observation, PublicView, PlayerView):
        for name in cls.__dataclass_fields__:
            assert re.search(rf"\b{name}\b", guide), f"docs/bot-guide.md does not mention {cls.__name__}.{name}"


def test_the_bot_guide_answers_a_bot_authors_first_questions() -> None:
    guide = (DOCS / "bot-guide.md").read_text().lower()
    for topic in (
        "time bank",
        "forfeit",
        "fallback",
        "scout-bot play",
        "scout-bot check",
        "reconnect",
        ".proto",
        "legal_actions",
        "async def",
    ):
        assert topic in guide, topic


def test_the_operator_guide_answers_an_organisers_first_questions() -> None:
    guide = (DOCS / "operator-guide.md").read_text()
    for topic in (
        "admin token",
        "postgresql+psycopg://",
        "sqlite:///",
        ".backup",
        "pg_dump",
        "Resuming after a crash",
        "absent_wait_ms",
        "grace_ms",
        "time_bank_ms",
        "max_invalid",
        "--port",
        "Logs",
        "concurrency",
    ):
        assert topic in guide, topic


def test_the_rules_page_points_to_the_engine_modules_it_summarises() -> None:
    rules = (DOCS / "rules.md").read_text()
    for module in re.findall(r"`(\w+\.py)`", rules):
        assert (ROOT / "sdk" / "engine" / module).exists(), module
    for section in range(1, 10):
        assert f"§{section}" in rules


def test_the_benchmarks_page_lists_every_benchmark_script() -> None:
    page = (DOCS / "benchmarks.md").read_text()
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        assert f"`{script.name}`" in page and f"benchmarks/{script.name}" in page, script.name
