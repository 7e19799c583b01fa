"""Every forfeit cause the referee can give is documented where bot authors look: the protocol,
the bot guide and the proto comment of `Forfeit.reason`, with the word its reason starts with."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.play.results import ForfeitCause

ROOT = Path(__file__).resolve().parents[2]
REASON_STARTS = {
    ForfeitCause.TIMEOUT: "timeout",
    ForfeitCause.ILLEGAL: "invalid answers",
    ForfeitCause.DISCONNECT: "disconnected",
    ForfeitCause.ABSENT: "absent",
}
"""The word each cause's reason starts with (arena/play/referee.py, arena/tournaments/runner.py)."""


def _section(path: str, heading: str) -> str:
    text = (ROOT / path).read_text()
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    return re.sub(r"\s+", " ", text[start : end if end > 0 else None])


def test_every_cause_has_its_reason_word() -> None:
    assert set(REASON_STARTS) == set(ForfeitCause)


@pytest.mark.parametrize("cause", list(ForfeitCause), ids=lambda c: c.value)
def test_the_protocol_documents_the_cause(cause: ForfeitCause) -> None:
    section = _section("docs/protocol.md", "## Clocks and forfeits")
    assert f"`{cause.value}`:" in section
    assert f"`{REASON_STARTS[cause]}: ...`" in section


@pytest.mark.parametrize("cause", list(ForfeitCause), ids=lambda c: c.value)
def test_the_bot_guide_documents_the_cause(cause: ForfeitCause) -> None:
    assert f"`{cause.value}`," in _section("docs/bot-guide.md", "## Time limits, the time bank and forfeits")


@pytest.mark.parametrize("cause", list(ForfeitCause), ids=lambda c: c.value)
def test_the_proto_names_the_reason_word(cause: ForfeitCause) -> None:
    proto = (ROOT / "proto/scout/arena/v1/bot_session.proto").read_text()
    comment = re.search(r"((?:\s*//[^\n]*)+)\s*string reason = 2;", proto)
    assert comment is not None
    assert f'"{REASON_STARTS[cause]}"' in comment.group(1)
