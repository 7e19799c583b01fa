"""The wire format: protobuf code generated from proto/ (by `python proto/generate.py`, never
edited by hand) and the SDK's conversion modules, one per side of each service it speaks:
`bot_session` (the bot's side of BotSession) and `arena_client` (the client's side of Arena), with
`codecs` (what both ends of a bot session encode alike) and `framing` (wire-format pieces).

Nothing else in the SDK imports a `_pb2` module's message types.
"""
