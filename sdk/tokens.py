"""Bot tokens saved for their owner, so `scout-bot run` registers a bot once per arena.

The file is `$SCOUT_ARENA_TOKENS` if set, else `$XDG_CONFIG_HOME/scout-arena/tokens.json`, else
`~/.config/scout-arena/tokens.json`. It holds one JSON object, `{"ARENA": {"bot name": "token"}}`,
where ARENA is `arena:<id>`, the identity the arena reports (`sdk.reach`), so every address of one
arena finds its tokens (older files, and arenas too old to report one, use `HOST:PORT`). It is
readable by its owner only (0600, as is its `.lock` beside it, whatever the umask; its own
directory is made 0700), and is replaced atomically when a token is added. Keep it as you would a
password file; `scout-bot run BOT --register` registers a bot afresh and replaces its token.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from filelock import FileLock


class TokenFileError(ValueError):
    """The token file cannot be read or written; the message names it and says why."""


def tokens_path() -> Path:
    """Where tokens are saved (see the module docstring)."""
    if explicit := os.environ.get("SCOUT_ARENA_TOKENS"):
        return Path(explicit).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config) / "scout-arena" / "tokens.json"


def _load(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise TokenFileError(f"cannot read the token file {path}: {exc}; fix or delete it") from None
    if not isinstance(data, dict) or not all(
        isinstance(bots, dict) and all(isinstance(t, str) for t in bots.values()) for bots in data.values()
    ):
        raise TokenFileError(f'the token file {path} is not a {{"ARENA": {{"bot": "token"}}}} object; fix or delete it')
    return data


def saved_token(arena: str, name: str, path: Path | None = None) -> str | None:
    """The token saved for bot `name` under the arena key `arena`, if any."""
    return _load(path or tokens_path()).get(arena, {}).get(name)


def save_token(arena: str, name: str, token: str, path: Path | None = None) -> Path:
    """Save (or replace) the token of bot `name` under the arena key `arena`; returns the file written."""
    path = path or tokens_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Several bot processes may save at once: the read-modify-write holds an exclusive lock
        # (`filelock`: flock on POSIX, msvcrt on Windows).
        with FileLock(path.with_name(path.name + ".lock"), mode=0o600):
            data = _load(path)
            data.setdefault(arena, {})[name] = token
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tokens-")
            with os.fdopen(fd, "w") as out:  # mkstemp creates it readable by its owner only
                json.dump(data, out, indent=2, sort_keys=True)
            os.replace(tmp, path)
    except OSError as exc:
        raise TokenFileError(f"cannot write the token file {path}: {exc}") from None
    return path
