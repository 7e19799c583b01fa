"""`python -m arena`: the `scout-arena` command, for a process started by a Python that is not on PATH."""

from arena.cli.app import app

app(prog_name="scout-arena")
