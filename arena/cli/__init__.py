"""`scout-arena`: the commands, what they talk to (a running arena or its database), and the terminal
and JSON views they print."""
