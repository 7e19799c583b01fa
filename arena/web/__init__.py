"""The arena on the web: read-only pages and a JSON API over the read models the CLI shows.

`app.create_app` builds the FastAPI application; `serving` runs it under uvicorn in the arena's own
event loop (`scout-arena serve`) or alone over a database (`scout-arena web`). Pages are
server-rendered (Jinja2), with htmx for the parts that update while a tournament runs; every
asset is shipped in `static/`, so a page needs nothing from the internet. Nothing here writes to
the arena: a web request can only read what the store's public read models show.
"""

DEFAULT_HTTP_PORT = 8080
"""Where `scout-arena serve` and `scout-arena web` serve the pages unless told otherwise. Kept
here, apart from the modules that import FastAPI, so a command line can name it without paying
for that import."""
