"""Server reflection under both of its names, `grpc.reflection.v1` and `grpc.reflection.v1alpha`.

grpcio-reflection (1.85) serves only v1alpha, but tools such as grpcurl and Postman now ask for v1
first. The two protocols are the same messages with the same field numbers under another package,
so the v1 service is the library's servicer registered under the v1 name, with its descriptors
derived from v1alpha's: tools that describe the reflection service itself find it under both names.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha_pb2

V1ALPHA = reflection.SERVICE_NAME
V1 = "grpc.reflection.v1.ServerReflection"
_METHOD = "ServerReflectionInfo"


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """v1alpha's reflection.proto renamed to v1 (types are referenced by full name, so renamed too)."""
    proto = descriptor_pb2.FileDescriptorProto()
    v1alpha_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = "grpc.reflection.v1"
    proto.ClearField("options")
    for message in proto.message_type:
        for field in message.field:
            if field.type_name:
                field.type_name = field.type_name.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    for method in proto.service[0].method:
        method.input_type = method.input_type.replace(".v1alpha.", ".v1.")
        method.output_type = method.output_type.replace(".v1alpha.", ".v1.")
    return proto


def _v1_messages() -> tuple[type, type]:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName("grpc/reflection/v1/reflection.proto")
    except KeyError:
        pool.Add(_v1_file())
    return (
        message_factory.GetMessageClass(pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionRequest")),
        message_factory.GetMessageClass(pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionResponse")),
    )


V1_REQUEST, V1_RESPONSE = _v1_messages()
"""The v1 reflection messages, for clients (and tests) that speak v1."""


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection for `service_names` (and for itself) as both v1 and v1alpha."""
    servicer = reflection.aio.ReflectionServicer((*service_names, V1, V1ALPHA))
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=v1alpha_pb2.ServerReflectionRequest.FromString,
        response_serializer=v1alpha_pb2.ServerReflectionResponse.SerializeToString,
    )
    for service in (V1, V1ALPHA):
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, {_METHOD: handler}),))
