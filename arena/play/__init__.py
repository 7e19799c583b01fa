"""Playing games: connected bots and their streams, the referee, and what a finished game produced."""
