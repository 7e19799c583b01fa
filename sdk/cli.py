"""`scout-bot`: try a bot locally, check it, and run it against an arena.

    scout-bot play path/to/bot.py --against greedy,random --games 50 --players 4
    scout-bot play path/to/bot.py --against path/to/bot.py,greedy,greedy --bot-arg depth=3
    scout-bot check path/to/bot.py --against "montecarlo(move_time=0.05)"
    scout-bot run path/to/bot.py --target arena.example:50051 --token TOKEN
    scout-bot run path/to/bot.py --tournament friday --target arena.example:50051
    scout-bot run path/to/bot.py --tournament friday --target arena.example:50051 --tls-ca ca.pem

BOT is a file (``bot.py``), a module (``package.module``), either with ``:ClassName``, or the
name of an example bot (random, greedy, montecarlo, strong), and any of them may end in constructor
options, ``bot.py(depth=3)`` (`sdk.loading`). A mistake on the command line prints one ``error:``
line and exits non-zero; it never shows a traceback. Ctrl-C stops `play` and `check` at once,
with what was played so far, and exit status 130.

`bot_program` gives a bot module the `run` command as its own ``__main__``, which is how the
example bots are launched: ``python -m bots.greedy --target HOST:PORT --token TOKEN``.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

# gRPC's core writes a failed TLS handshake to stderr at INFO level, a raw line beside the command's
# one-line error; it reads this variable once, when grpc is first imported (by .runner, in `run`).
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from typer.core import TyperCommand, TyperGroup

from . import env, help_text
from .addresses import DEFAULT_TARGET
from .bot import Bot
from .conformance import CheckInterrupted, CheckProgress, ConformanceReport, check_bot
from .loading import (
    BotLoadError,
    BotMaker,
    bot_maker,
    example_bots,
    merge_args,
    parse_bot_arg,
    split_bot_list,
    split_bot_spec,
)
from .local import BotError, LocalGame, MatchInterrupted, MatchResult, play_match

if TYPE_CHECKING:
    from .runner import ArenaRefused
    from .tls import ClientTls

# The commands that talk to an arena import gRPC (.runner, .reach, .submit, .tls) and the token file's
# lock (.tokens) when they run: `--help`, `play` and `check` need neither.

help_text.fix_option_texts()


class OneLineErrors:
    """Turns Typer's usage panel into one `error: ...` line on stderr, exit status kept."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        parent: Any = super()
        if not standalone_mode:
            return parent.main(args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra)
        try:
            code = parent.main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.TyperException as exc:
            if type(exc).__name__ != "NoArgsIsHelpError":  # the help text is already shown
                typer.echo(f"error: {self.explain(exc)}", err=True)
            sys.exit(getattr(exc, "exit_code", 2))
        except typer.Abort:
            typer.echo("aborted", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def explain(self, exc: typer.TyperException) -> str:
        """The error line for a usage mistake; a program may add a hint to its common ones."""
        return exc.format_message()


class OneLineGroup(OneLineErrors, TyperGroup):
    """A Typer group whose usage errors are one line (`scout-arena` uses it too)."""


class OneLineCommand(OneLineErrors, TyperCommand):
    """A single Typer command whose usage errors are one line."""


app = typer.Typer(
    cls=OneLineGroup,
    help="Try a SCOUT bot locally, check it before a tournament, and run it against an arena.",
    no_args_is_help=True,
    add_completion=False,
)

BotArgument = Annotated[
    str,
    typer.Argument(
        metavar="BOT",
        help="bot.py, package.module, either with :ClassName, or an example: random, greedy, montecarlo, strong.",
        show_default=False,
    ),
]
TargetOption = Annotated[
    str,
    typer.Option(
        "--target",
        "--server",
        help="The arena's HOST:PORT; several comma-separated for the nodes of one cluster "
        "(the bot moves to the next when its node goes).",
        envvar=env.names(env.SERVER),
        callback=env.warn_if_deprecated,
    ),
]
TokenOption = Annotated[
    str,
    typer.Option(
        help="The bot's token, from registering it.",
        envvar=env.names(env.BOT_TOKEN),
        callback=env.warn_if_deprecated,
        show_default=False,
    ),
]
CapacityOption = Annotated[int, typer.Option(min=1, help="How many games to play at once.")]
MaxGamesOption = Annotated[
    int | None, typer.Option(min=1, help="Stop after this many games (default: run until stopped).")
]
TlsOption = Annotated[
    bool,
    typer.Option(
        "--tls",
        help="Connect with TLS, trusting the system's CAs.",
        envvar=env.names(env.TLS),
        callback=env.warn_if_deprecated,
    ),
]
TlsCaOption = Annotated[
    str | None,
    typer.Option(
        "--tls-ca",
        metavar="FILE",
        help="Connect with TLS, trusting only the CA certificates in this PEM file.",
        envvar=env.names(env.TLS_CA),
        callback=env.warn_if_deprecated,
        show_default=False,
    ),
]
TlsServerNameOption = Annotated[
    str | None,
    typer.Option(
        metavar="NAME",
        help="Connect with TLS, expecting this name in the arena's certificate (default: the host of --target).",
        envvar=env.names(env.TLS_SERVER_NAME),
        callback=env.warn_if_deprecated,
        show_default=False,
    ),
]


BotArgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--bot-arg",
        metavar="KEY=VALUE",
        show_default=False,
        help="An option for BOT's constructor, e.g. depth=3; repeat for more. true/false, none and numbers "
        "are parsed, anything else is text ('3' in quotes stays text).",
    ),
]
INTERRUPTED = 130
"""The exit status after Ctrl-C, as shells report a command SIGINT ended."""


def fail(message: str) -> NoReturn:
    """Print one error line and exit with status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def bot_maker_for(spec: str, bot_args: Sequence[str] = ()) -> BotMaker:
    """What makes the bot `spec` names (an example or a file or module, either with options, plus
    `bot_args` as KEY=VALUE); a mistake ends the command."""
    examples = example_bots()
    where = spec
    try:
        where, options = split_bot_spec(spec)
        for arg in bot_args:
            options = merge_args(options, dict([parse_bot_arg(arg)]), spec)
        return bot_maker(examples.get(where, where), options)
    except BotLoadError as exc:
        if where.isidentifier() and str(exc).startswith("no module named"):
            fail(f"unknown bot {where!r}: neither an example bot ({', '.join(sorted(examples))}) nor a file or module")
        fail(str(exc))


def make(maker: BotMaker, seed: int | None) -> Bot:
    """One bot from `maker`; a constructor that raises ends the command."""
    try:
        return maker(seed)
    except BotLoadError as exc:
        fail(str(exc))


def resolve_bot(spec: str, seed: int = 0, move_time: float | None = None, bot_args: Sequence[str] = ()) -> Bot:
    """The bot `spec` names, made with `bot_args` and `seed` (if its constructor takes one), and
    `move_time` as its thinking time per move if it searches (montecarlo, strong); a mistake ends the command."""
    bot = make(bot_maker_for(spec, bot_args), seed)
    if move_time is not None:
        if not hasattr(bot, "move_time"):
            fail(f"--move-time is for example bots that search (montecarlo, strong), not {spec!r}")
        bot.move_time = move_time
    return bot


def opponent_makers(against: str, seats: int) -> list[BotMaker]:
    """The bots of `--against`, at most `seats` of them; a mistake ends the command."""
    specs = split_bot_list(against)
    if not specs:
        fail("--against needs at least one bot: an example (greedy), a file or a module")
    if len(specs) > seats:
        fail(f"--against names {len(specs)} bots, but there are only {seats} other seats at the table")
    return [bot_maker_for(spec) for spec in specs]


AgainstOption = Annotated[
    str,
    typer.Option(
        help="Comma-separated bots for the other seats, used in turn: examples, files or modules, "
        "each with options if wanted, e.g. 'my_bot.py(depth=2),greedy'."
    ),
]


@app.command(
    help="Play BOT against other bots in this process and show how it did; Ctrl-C stops with the games so far."
)
def play(
    bot: BotArgument,
    against: AgainstOption = "greedy",
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 20,
    players: Annotated[int, typer.Option(min=2, max=5, help="Seats at the table, 2 to 5.")] = 4,
    seed: Annotated[
        int, typer.Option(help="Game g is dealt from seed SEED + g; bots taking a seed get one from it.")
    ] = 0,
    bot_arg: BotArgOption = None,
) -> None:
    entrant = make(bot_maker_for(bot, bot_arg or ()), seed)
    makers = opponent_makers(against, players - 1)
    table = [entrant] + [make(makers[k % len(makers)], seed + 1 + k) for k in range(players - 1)]
    console = Console()
    with Progress(
        TextColumn("playing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task("games", total=games)

        def advance(_: LocalGame) -> None:
            bar.advance(task)

        try:
            match = play_match(table, games=games, seed=seed, progress=advance)
        except BotError as exc:
            fail(str(exc))
        except MatchInterrupted as stop:
            match = stop.partial
    played = len(match.games)
    seeds = f"seeds {seed}..{seed + played - 1}" if played else "no game finished"
    head = f"{played} games" if played == games else f"{played} of {games} games (interrupted)"
    console.print(match_table(match, f"{head}, {players} players, {seeds}"))
    if played < games:
        typer.echo(f"interrupted: {played} of {games} games played", err=True)
        raise typer.Exit(INTERRUPTED)


def match_table(match: MatchResult, title: str) -> Table:
    """The summary of a match as a rich table, best average placing first."""
    rows = sorted(match.summary(), key=lambda r: r.mean_placing)
    shared = any(row.wins != int(row.wins) for row in rows)
    caption = "wins: a first place shared by k bots counts 1/k to each, as in the arena's ratings" if shared else None
    table = Table(title=title, caption=caption)
    for column in ("bot", "games", "wins", "win %", "avg points", "avg place", "ms/answer"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in rows:
        table.add_row(
            escape(row.name),
            str(row.games),
            f"{row.wins:.2f}" if shared else f"{row.wins:.0f}",
            f"{100 * row.win_rate:.0f}",
            f"{row.mean_points:.1f}",
            f"{row.mean_placing:.2f}",
            f"{1000 * row.seconds_per_decision:.2f}",
        )
    return table


@app.command(
    help="Run the conformance kit on BOT: legal, well-typed, on-time answers at every table size; "
    "Ctrl-C stops with the findings so far."
)
def check(
    bot: BotArgument,
    games: Annotated[int, typer.Option(min=1, help="Games per table size (2, 3, 4 and 5 players).")] = 8,
    move_time: Annotated[float, typer.Option(min=0.001, help="Per-move time limit in seconds.")] = 1.0,
    seed: Annotated[
        int, typer.Option(help="Game g is dealt from seed SEED + g; bots taking a seed get one from it.")
    ] = 0,
    against: AgainstOption = "random,greedy",
    bot_arg: BotArgOption = None,
) -> None:
    entrant = make(bot_maker_for(bot, bot_arg or ()), seed)
    makers = opponent_makers(against, 4)
    opponents = [lambda game_seed, maker=maker: make(maker, game_seed) for maker in makers]
    errors = Console(stderr=True)
    with Progress(
        TextColumn("checking {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not errors.is_terminal,
    ) as bar:
        task = bar.add_task("", total=4 * games)

        def advance(at: CheckProgress) -> None:
            bar.update(task, completed=at.done, description=f"{at.players} players")
            if not errors.is_terminal and at.game == at.games:
                typer.echo(
                    f"{at.players} players done: {at.done} of {at.total} games checked, {at.findings} problems so far",
                    err=True,
                )

        try:
            report = check_bot(
                entrant, games=games, seed=seed, move_time=move_time, opponents=opponents, progress=advance
            )
        except CheckInterrupted as stop:
            report = stop.partial
        except BotError as exc:
            fail(f"an opponent failed, not the bot being checked: {exc}")
    show_report(report)
    if report.interrupted:
        typer.echo(f"interrupted: {report.games} of {4 * games} games checked", err=True)
        raise typer.Exit(INTERRUPTED)
    if not report.passed:
        raise typer.Exit(1)


def show_report(report: ConformanceReport) -> None:
    """The verdict line, then a line per finding."""
    console = Console()
    colour = "green" if report.passed else "yellow" if report.interrupted and not report.findings else "red"
    console.print(report.summary(), style=colour, highlight=False, markup=False, soft_wrap=True)
    for finding in report.findings:
        console.print(f"  {finding}", highlight=False, markup=False, soft_wrap=True)


def check_target(target: str) -> None:
    """End the command unless `target` is HOST:PORT, or several comma-separated."""
    from .addresses import split_targets

    try:
        addresses = split_targets(target)
    except ValueError:
        fail(f"--target must be HOST:PORT (or several, comma-separated), not {target!r}")
    for address in addresses:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            fail(f"--target must be HOST:PORT (or several, comma-separated), not {address!r}")


def reach(target: str, tls: ClientTls | None) -> str:
    """Wait until an arena answers at `target` (`sdk.reach`), logging to stderr; returns the key
    its tokens are saved under. A TLS mismatch ends the command, and so does Ctrl-C while waiting."""
    from .reach import wait_for_arena
    from .runner import ArenaRefused
    from .tls import TlsConfigError

    check_target(target)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        key = wait_for_arena(target, tls)
    except (ArenaRefused, TlsConfigError) as exc:
        fail(str(exc))
    if key is None:
        fail(f"stopped before an arena answered at {target}")
    return key


def refused(bot: Bot, exc: ArenaRefused, hint: str) -> NoReturn:
    """End the command for a refusal: nothing answering is not a refusal; `hint` follows a refused token."""
    from .runner import ArenaUnreachable

    if isinstance(exc, ArenaUnreachable):
        fail(str(exc))
    fail(f"the arena refused {bot.name}: {exc}{hint if str(exc).startswith('UNAUTHENTICATED') else ''}")


def serve(
    bot: Bot,
    *,
    target: str,
    token: str,
    capacity: int,
    max_games: int | None,
    tls: ClientTls | None = None,
    hint: str = "",
    accept_casual: bool = False,
) -> None:
    """Play for `bot` at the arena until stopped, logging to stderr; refusals end the command."""
    from .runner import ArenaRefused, run
    from .tls import TlsConfigError

    try:
        finished = run(
            bot,
            target=target,
            token=token,
            capacity=capacity,
            max_games=max_games,
            tls=tls,
            accept_casual=accept_casual,
        )
    except ArenaRefused as exc:
        refused(bot, exc, hint)
    except TlsConfigError as exc:
        fail(str(exc))
    typer.echo(f"{bot.name}: games played: {finished}", err=True)


def submit(
    bot: Bot,
    *,
    target: str,
    token: str,
    tournament: str,
    capacity: int,
    tls: ClientTls | None = None,
    entry_code: str | None = None,
    hint: str = "",
) -> None:
    """Enter `bot` in `tournament` and play until it finishes, logging to stderr."""
    from .runner import ArenaRefused
    from .submit import play_tournament
    from .tls import TlsConfigError

    try:
        status = play_tournament(
            bot, target=target, token=token, tournament=tournament, capacity=capacity, tls=tls, entry_code=entry_code
        )
    except ArenaRefused as exc:
        refused(bot, exc, hint)
    except TlsConfigError as exc:
        fail(str(exc))
    typer.echo(f"{bot.name}: tournament {tournament!r} {status}", err=True)


@app.command(
    "run",
    help="Connect BOT to an arena and play the games it is given until stopped; with --tournament, enter it in "
    "that tournament and play until the tournament finishes. Without --token the bot's saved token is used, or "
    "the bot is registered and its token saved (SCOUT_ARENA_TOKENS, default ~/.config/scout-arena/tokens.json). "
    "Until an arena answers at --target it waits, trying again with back-off.",
)
def run_command(
    bot: BotArgument,
    token: Annotated[
        str | None,
        typer.Option(
            help="The bot's token (default: saved, or register).",
            envvar=env.names(env.BOT_TOKEN),
            callback=env.warn_if_deprecated,
            show_default=False,
        ),
    ] = None,
    target: TargetOption = DEFAULT_TARGET,
    tournament: Annotated[str | None, typer.Option(help="Enter this tournament; stop once it has finished.")] = None,
    entry_code: Annotated[
        str | None,
        typer.Option(
            help="The entry code of an invite-only --tournament.",
            envvar=env.names(env.ENTRY_CODE),
            callback=env.warn_if_deprecated,
            show_default=False,
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(help="The name to register and play under (default: the bot's own).", show_default=False),
    ] = None,
    register: Annotated[
        bool, typer.Option("--register", help="Register the bot afresh and save its new token, replacing a saved one.")
    ] = False,
    seed: Annotated[
        int, typer.Option(help="Seed for a bot whose constructor takes one (the example bots' randomness).")
    ] = 0,
    move_time: Annotated[
        float | None, typer.Option(min=0.001, help="Thinking seconds per move of an example bot that searches.")
    ] = None,
    bot_arg: BotArgOption = None,
    capacity: CapacityOption = 4,
    max_games: MaxGamesOption = None,
    casual: Annotated[
        bool,
        typer.Option(
            "--casual",
            help="Offer the bot to people on the arena's Play page for casual games (unrated), within --capacity.",
        ),
    ] = False,
    tls: TlsOption = False,
    tls_ca: TlsCaOption = None,
    tls_server_name: TlsServerNameOption = None,
) -> None:
    if casual and tournament is not None:
        fail("--casual and --tournament do not go together: a bot playing for a tournament leaves once it is over")
    if tournament is not None and max_games is not None:
        fail("--max-games and --tournament do not go together: a tournament decides how many games are played")
    if entry_code is not None and tournament is None:
        fail("--entry-code goes with --tournament: it is the code for entering that tournament")
    from .runner import ArenaRefused
    from .submit import bot_token
    from .tls import ClientTls, TlsConfigError
    from .tokens import TokenFileError, tokens_path

    if register and token:
        fail("--register and --token do not go together: --register gets the bot a new token")
    check_target(target)
    entrant = resolve_bot(bot, seed, move_time, bot_arg or ())
    if name is not None:
        entrant.name = name
    secure = ClientTls.from_options(tls, tls_ca, tls_server_name)
    arena = reach(target, secure)
    try:
        key, registered = bot_token(entrant.name, target, token, secure, arena=arena, afresh=register)
    except ArenaRefused as exc:
        taken = str(exc).startswith("ALREADY_EXISTS")
        fail(
            f"cannot register {entrant.name!r} at {target}: {exc}"
            + (f"; if the name is yours, pass its --token (none is saved in {tokens_path()})" if taken else "")
        )
    except (TokenFileError, TlsConfigError) as exc:
        fail(str(exc))
    if registered:
        typer.echo(f"registered {entrant.name!r} at {target}; its token is saved in {tokens_path()}", err=True)
    hint = ""
    if not token and not registered:
        again = [
            "scout-bot",
            "run",
            bot,
            "--target",
            target,
            *(["--name", name] if name else []),
            *(["--tournament", tournament] if tournament else []),
            *(["--tls"] if tls else []),
            *(["--tls-ca", tls_ca] if tls_ca else []),
            *(["--tls-server-name", tls_server_name] if tls_server_name else []),
            "--register",
        ]
        hint = (
            f"; it is the token saved in {tokens_path()}: `{shlex.join(again)}` registers {entrant.name} afresh "
            "and saves its new token"
        )
    if tournament is None:
        serve(
            entrant,
            target=target,
            token=key,
            capacity=capacity,
            max_games=max_games,
            tls=secure,
            hint=hint,
            accept_casual=casual,
        )
    else:
        submit(
            entrant,
            target=target,
            token=key,
            tournament=tournament,
            capacity=capacity,
            tls=secure,
            entry_code=entry_code,
            hint=hint,
        )


def bot_program(make_bot: Callable[[], Bot]) -> typer.Typer:
    """A one-command program that runs the bot `make_bot()` makes against an arena.

    Ends a bot module so it runs as ``python -m module --target HOST:PORT --token TOKEN``::

        if __name__ == "__main__":
            bot_program(MyBot)()
    """
    program = typer.Typer(add_completion=False)

    @program.command(
        cls=OneLineCommand, help=f"Connect {getattr(make_bot, '__name__', 'the bot')} to an arena and play."
    )
    def main(
        token: TokenOption,
        target: TargetOption = DEFAULT_TARGET,
        capacity: CapacityOption = 4,
        max_games: MaxGamesOption = None,
        tls: TlsOption = False,
        tls_ca: TlsCaOption = None,
        tls_server_name: TlsServerNameOption = None,
    ) -> None:
        from .tls import ClientTls

        secure = ClientTls.from_options(tls, tls_ca, tls_server_name)
        reach(target, secure)
        serve(make_bot(), target=target, token=token, capacity=capacity, max_games=max_games, tls=secure)

    return program


if __name__ == "__main__":
    app()
