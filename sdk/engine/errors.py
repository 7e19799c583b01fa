"""Errors the engine raises, each carrying a reason a person can act on."""


class IllegalAction(ValueError):
    """An action the rules do not allow in this state; the game is unchanged.

    `str(error)` is the specific reason, e.g. "scout & show needs a non-empty active set".
    """


class ReplayMismatch(ValueError):
    """A game record that does not reproduce itself when replayed."""
