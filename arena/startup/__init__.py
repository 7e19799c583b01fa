"""The arena process put together: the one room above `arena.api` and `arena.web`, which never
import each other. `settings` holds every `scout-arena serve` option, checked once; `arena` builds
the gRPC server, the web app and the tournament runner from them and runs them in one event loop."""
