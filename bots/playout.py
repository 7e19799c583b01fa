"""The strong bot's playout policy: a linear score, learned from the search's own choices.

A determinised search is only as good as the play it imagines after its move. The greedy bot's
score (`bots.greedy.action_score`) never scouts when it can show and values a hand by its cards
and sets alone; the search bots, which look ahead, scout in a quarter of such decisions and
choose another move than greedy's in about half of them (docs/benchmarks.md, "A learned playout").
`LinearPlayout` scores the same candidates as the fast greedy rollout (`bots.montecarlo.
rollout_action`: every show, scouts where the card joins a neighbour, scout & shows of the
longest set through it) by `FEATURES`, with one weight vector per table size fitted to the
strong bot's choices in self-play (`bots/train_playout.py`); the shipped weights are in
`playout_weights.json`. With greedy's weights it plays exactly as `rollout_action`
(tests/bots/test_playout.py).

`candidates` lists the actions with their feature rows, for training and tests; `LinearPlayout`
computes the same scores without building rows, at the cost of the greedy rollout.
`LinearPlayout.play_outs`, what a search calls, plays one sample's rollouts in C
(`bots/_playout.c`, built when the package is installed) and falls back to this module's Python,
with the same results, where the build had no compiler.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from importlib import resources

from sdk import Action, Scout, ScoutShow, Show
from sdk.engine import Card, End, Game, Phase, legal_shows, set_key
from sdk.engine.results import ROUND_ACTION_CAP
from sdk.memo import memoised

from .greedy import EMPTY_BONUS, HAND_VALUES, SCOUT_SHOW_COST, SET_WEIGHT, greedy_split
from .montecarlo import _SCOUTS, _joining_positions, _runs_through
from .worth import Worth

try:
    from . import _playout as compiled
except ImportError:  # built without a C compiler: `LinearPlayout.play_outs` runs in Python
    compiled = None  # type: ignore[assignment]
COMPILED = compiled is not None
"""Whether `LinearPlayout.play_outs` runs in C (the install had a compiler)."""

FEATURES = (
    "captured",
    "cards_after",
    "sets_after",
    "empties",
    "is_scout",
    "is_scout_show",
    "shown_length",
    "shown_lowest",
    "shown_group",
    "scout_near_out",
    "scouted_value",
    "longest_after",
    "scout_early",
    "show_single_low",
)
"""What a candidate is scored by, each times its weight. For the mover, after the action:
cards captured; cards in hand; sets needed to empty it (`min_sets`); the hand emptied (1/0);
the action a scout; a scout & show; the shown set's length, lowest value / 10, whether a group;
a scout while another seat holds at most `NEAR_OUT` cards; the scouted card's value / 10; the
longest set of `min_sets`' split of the hand (`greedy_split`: not always the hand's longest); a
scout in the round's first `players` × `EARLY_TURNS` actions; a shown single of at most
`LOW_SINGLE`."""

NEAR_OUT = 2
EARLY_TURNS = 2
LOW_SINGLE = 4

Row = tuple[float, ...]


def candidates(game: Game) -> tuple[list[Action], list[Row]]:
    """The playout's candidate actions for the seat to move, in `rollout_action`'s order, and each
    one's feature row (`FEATURES`)."""
    seat = game.to_move
    players = game.players
    tops = tuple([c[0] for c in game.hands[seat]])
    active = game.active
    gain = len(active)
    near_out = 1.0 if min(len(h) for s, h in enumerate(game.hands) if s != seat) <= NEAR_OUT else 0.0
    early = 1.0 if game.round_actions < EARLY_TURNS * players else 0.0
    actions: list[Action] = []
    rows: list[Row] = []

    def add(action: Action, captured: int, after: tuple[int, ...], kind: str, shown: Sequence[int], v: int) -> None:
        scout = 1.0 if kind == "scout" else 0.0
        length = len(shown)
        lowest = min(shown) if shown else 0
        sets, longest = greedy_split(after)
        rows.append(
            (
                captured,
                len(after),
                sets,
                0.0 if after else 1.0,
                scout,
                1.0 if kind == "scout & show" else 0.0,
                length,
                lowest / 10,
                1.0 if length >= 2 and shown[0] == shown[1] else 0.0,
                scout * near_out,
                v / 10,
                longest,
                scout * early,
                1.0 if length == 1 and lowest <= LOW_SINGLE else 0.0,
            )
        )
        actions.append(action)

    for show in legal_shows(tops, game.active_key):
        end = show.start + show.length
        add(show, gain, tops[: show.start] + tops[end:], "show", tops[show.start : end], 0)
    if not active or (players == 2 and not game.chips[seat]):
        return actions, rows
    for end_, card, rest in _ends(active):
        rest_key = set_key([c[0] for c in rest]) if rest else None
        for flip in (False, True):
            v = card[1] if flip else card[0]
            for pos in _joining_positions(tops, v):
                hand = (*tops[:pos], v, *tops[pos:])
                scout = _SCOUTS[end_][flip][pos]
                add(scout, 0, hand, "scout", (), v)
                if not game.scout_show[seat]:
                    continue
                for start, length in _runs_through(hand, pos):
                    shown = hand[start : start + length]
                    if rest_key is not None and not set_key(shown) > rest_key:  # type: ignore[operator]
                        continue
                    after = hand[:start] + hand[start + length :]
                    add(ScoutShow(scout, Show(start, length)), gain - 1, after, "scout & show", shown, v)
    return actions, rows


def _ends(active: Sequence[tuple[int, int]]) -> list[tuple[End, tuple[int, int], Sequence[tuple[int, int]]]]:
    """The ends a scout may take from the active set: (end, card, what remains)."""
    ends = [(End.LEFT, active[0], active[1:])]
    if len(active) > 1:
        ends.append((End.RIGHT, active[-1], active[:-1]))
    return ends


class _Weights:
    """One table size's weights by name, and its memo of the hand part of a score."""

    def __init__(self, weights: Sequence[float]) -> None:
        if len(weights) != len(FEATURES):
            raise ValueError(f"a playout needs {len(FEATURES)} weights per table size, not {len(weights)}")
        w = dict(zip(FEATURES, map(float, weights), strict=True))
        self.w = w
        self.vector = tuple(w.values())
        cards, sets, longest, empty = w["cards_after"], w["sets_after"], w["longest_after"], w["empties"]

        def hand_term(after: tuple[int, ...]) -> float:
            if not after:
                return empty
            parts, most = greedy_split(after)
            return cards * len(after) + sets * parts + longest * most

        self.hand_term: Callable[[tuple[int, ...]], float] = memoised(hand_term, size=HAND_VALUES)


class LinearPlayout:
    """Plays the candidate with the highest weighted sum of `FEATURES`; deterministic.

    `weights` maps each table size to one weight per feature, in `FEATURES` order."""

    def __init__(self, weights: Mapping[int, Sequence[float]]) -> None:
        self._by_size = {int(players): _Weights(ws) for players, ws in weights.items()}

    @classmethod
    def shipped(cls) -> LinearPlayout:
        """The weights `bots/train_playout.py` fitted, as shipped in the package."""
        return cls(load_weights(resources.files(__package__).joinpath(WEIGHTS_FILE).read_text()))

    def weights(self, players: int) -> tuple[float, ...]:
        return tuple(self._by_size[players].w.values())

    def finish(self, game: Game) -> None:
        """Play `game` (a determinised sample, which ends with its round) to the end."""
        while not game.is_over:
            game.apply(game.to_move, self.action(game))

    def play_out(
        self, game: Game, first: Action | None = None, *, accelerated: bool = True
    ) -> tuple[tuple[int, ...], int]:
        """The scores of `game`'s round played to its end by this playout, after the mover's
        `first` action if given, and how many actions that took (`first` included): `play_outs`
        of one rollout."""
        return self.play_outs(game, (first,), accelerated=accelerated)[0]

    def play_outs(
        self, game: Game, firsts: Sequence[Action | None], *, accelerated: bool = True
    ) -> list[tuple[tuple[int, ...], int]]:
        """`game`'s round played to its end by this playout once after each of the mover's
        `firsts` (None: no move first), in order: each rollout's scores and how many actions it took
        (its first included). `game` is left as it was. The C rollout (`bots/_playout.c`) plays
        them, reading the position once, if it was built, unless `accelerated` is False; the
        Python one gives the same results. An illegal first move raises ValueError
        (`IllegalAction` in Python)."""
        round_ = game.round
        if game.results and game.results[-1].round == round_:
            return [(game.results[-1].scores, 0)] * len(firsts)
        if game.phase is not Phase.PLAY:
            raise ValueError("a playout starts once every seat has decided whether to flip")
        if accelerated and compiled is not None:
            return compiled.play_rounds(
                *_position(game), self._by_size[game.players].vector, ROUND_ACTION_CAP, _moves(firsts)
            )
        return [self._play_out_in_python(game, first) for first in firsts]

    def valuer(
        self, firsts: Sequence[Action | None], worth: Worth, *, accelerated: bool = True
    ) -> Callable[[Game], tuple[list[float], int]]:
        """A search's step, prepared once for many samples: for a sample, what the round played to
        its end after each of `firsts` (as `play_outs`) is worth to the seat (`worth` of its
        scores), and how many actions the rollouts took in all. The C rollout computes `worth`
        itself, with the same floats; the sample must be in the PLAY phase of an unfinished
        round, at the table size `worth` is for."""
        if not (accelerated and compiled is not None):

            def in_python(game: Game) -> tuple[list[float], int]:
                found = self.play_outs(game, firsts, accelerated=False)
                return [worth(scores) for scores, _ in found], sum(n for _, n in found)

            return in_python
        moves = _moves(firsts)
        vector = self._by_size[len(worth.totals)].vector
        encoded = worth.encoded
        play_rounds = compiled.play_rounds

        def in_c(game: Game) -> tuple[list[float], int]:
            return play_rounds(*_position(game), vector, ROUND_ACTION_CAP, moves, encoded)

        return in_c

    def _play_out_in_python(self, game: Game, first: Action | None) -> tuple[tuple[int, ...], int]:
        round_ = game.round
        played = game.copy()
        actions = 0
        if first is not None:
            played.apply(played.to_move, first)
            actions += 1
        while not played.results or played.results[-1].round != round_:
            played.apply(played.to_move, self.action(played))
            actions += 1
        return played.results[-1].scores, actions

    def action(self, game: Game) -> Action:
        """The best candidate of `candidates(game)` by its weighted features, the first of equals."""
        players = game.players
        table = self._by_size[players]
        w = table.w
        term = table.hand_term
        seat = game.to_move
        tops = tuple([c[0] for c in game.hands[seat]])
        active = game.active
        gain = len(active)
        w_length, w_lowest = w["shown_length"], w["shown_lowest"]
        w_group, w_low = w["shown_group"], w["show_single_low"]

        def shape(shown: Sequence[int], length: int) -> float:
            lowest = min(shown)
            score = w_length * length + w_lowest * lowest / 10
            if length >= 2 and shown[0] == shown[1]:
                score += w_group
            elif length == 1 and lowest <= LOW_SINGLE:
                score += w_low
            return score

        best: Action | None = None
        best_score = -1e18
        show_base = w["captured"] * gain
        for show in legal_shows(tops, game.active_key):
            start, length = show.start, show.length
            end = start + length
            if length == 1:
                lowest = tops[start]
                score = show_base + term(tops[:start] + tops[end:]) + w_length + w_lowest * lowest / 10
                if lowest <= LOW_SINGLE:
                    score += w_low
            else:
                score = show_base + term(tops[:start] + tops[end:]) + shape(tops[start:end], length)
            if score > best_score:
                best, best_score = show, score
        if not active or (players == 2 and not game.chips[seat]):
            assert best is not None, "the engine ends the round before a seat is left without a move"
            return best
        scout_base = w["is_scout"]
        if min(len(h) for s, h in enumerate(game.hands) if s != seat) <= NEAR_OUT:
            scout_base += w["scout_near_out"]
        if game.round_actions < EARLY_TURNS * players:
            scout_base += w["scout_early"]
        w_scouted = w["scouted_value"] / 10
        scout_show_base = w["is_scout_show"] + w["captured"] * (gain - 1)
        can_scout_show = game.scout_show[seat]
        for end_, card, rest in _ends(active):
            rest_key = set_key([c[0] for c in rest]) if rest else None
            for flip in (False, True):
                v = card[1] if flip else card[0]
                for pos in _joining_positions(tops, v):
                    scout = _SCOUTS[end_][flip][pos]
                    if not (pos and tops[pos - 1] == v):
                        hand = (*tops[:pos], v, *tops[pos:])
                        score = scout_base + w_scouted * v + term(hand)
                        if score > best_score:
                            best, best_score = scout, score
                    # Else the card lands beside its equal: the hand of position pos - 1, scored just
                    # before, which keeps the tie as the first of equals.
                    if not can_scout_show:
                        continue
                    for start, length in _runs_through(hand, pos):
                        shown = hand[start : start + length]
                        if rest_key is not None and not set_key(shown) > rest_key:  # type: ignore[operator]
                            continue
                        after = hand[:start] + hand[start + length :]
                        score = scout_show_base + w_scouted * v + term(after) + shape(shown, length)
                        if score > best_score:
                            best, best_score = ScoutShow(scout, Show(start, length)), score
        assert best is not None
        return best


def _position(
    game: Game,
) -> tuple[list[list[Card]], list[Card], int | None, int, list[int], list[bool], list[list[Card]], int]:
    """`game`'s position as the compiled playout reads it: hands, active set, owner, mover, chips,
    Scout & Show chips, captured cards, actions played this round."""
    return (
        game.hands,
        game.active,
        game.owner,
        game.to_move,
        game.chips,
        game.scout_show,
        game.captured,
        game.round_actions,
    )


def _moves(firsts: Sequence[Action | None]) -> list[tuple[int, int, int, int, int, int] | None]:
    return [None if first is None else _move(first) for first in firsts]


def _move(action: Action) -> tuple[int, int, int, int, int, int]:
    """`action` as the compiled playout reads a move: (kind, start, length, end, flip, position)."""
    if isinstance(action, Show):
        return (0, action.start, action.length, 0, 0, 0)
    if isinstance(action, ScoutShow):
        scout, show = action.scout, action.show
        return (2, show.start, show.length, scout.end, scout.flip, scout.position)
    if isinstance(action, Scout):
        return (1, 0, 0, action.end, action.flip, action.position)
    raise TypeError(f"a playout plays shows, scouts and scout & shows, not {action!r}")


WEIGHTS_FILE = "playout_weights.json"


def load_weights(text: str) -> dict[int, list[float]]:
    """Weights by table size from `playout_weights.json`'s text: {"weights": {"2": {name: w}}}."""
    data = json.loads(text)
    return {int(players): [float(named[f]) for f in FEATURES] for players, named in data["weights"].items()}


def greedy_weights() -> list[float]:
    """The weights with which `LinearPlayout` plays as `bots.montecarlo.rollout_action`."""
    named = dict.fromkeys(FEATURES, 0.0)
    named.update(
        captured=1.0,
        cards_after=-1.0,
        sets_after=-SET_WEIGHT,
        empties=EMPTY_BONUS,
        is_scout=-1.0,
        is_scout_show=-1.0 - SCOUT_SHOW_COST,
    )
    return [named[f] for f in FEATURES]
