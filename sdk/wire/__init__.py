"""The wire format: protobuf code generated from proto/ (by `python proto/generate.py`, never
edited by hand) and `convert`, the SDK's one module that turns those messages into domain values.

Nothing else in the SDK imports a `_pb2` module's message types.
"""
