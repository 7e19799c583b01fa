"""My first SCOUT bot: show the longest set it can, else scout a card next to its twin."""

from sdk import Action, Bot, End, Observation, Scout, Show


class FirstBot(Bot):
    def choose(self, obs: Observation) -> Action:
        shows = [a for a in obs.legal_actions if isinstance(a, Show)]
        if shows:  # more cards now beats fewer: they capture the table and leave the hand
            return max(shows, key=lambda show: show.length)
        scouts = [a for a in obs.legal_actions if isinstance(a, Scout)]
        return max(scouts, key=lambda scout: pairs_made(obs, scout))

    def flip(self, obs: Observation) -> bool:  # optional: turn the hand over at round start?
        return sum(card.bottom for card in obs.hand) > sum(card.top for card in obs.hand)


def pairs_made(obs: Observation, scout: Scout) -> int:
    """How many neighbours the scouted card will match in value once it is in the hand."""
    card = obs.table.active_set[0 if scout.end is End.LEFT else -1]
    value = card.bottom if scout.flip else card.top
    neighbours = obs.hand[max(scout.position - 1, 0) : scout.position + 1]
    return sum(c.top == value for c in neighbours)


if __name__ == "__main__":  # python first_bot.py --target HOST:PORT --token TOKEN
    from sdk.cli import bot_program

    bot_program(FirstBot)()
