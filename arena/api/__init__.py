"""The arena at the wire: the gRPC server and its servicers, protobuf conversion, TLS and the limits
on what callers may ask."""
