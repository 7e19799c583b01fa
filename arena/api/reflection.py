"""Server reflection under both of its names, `grpc.reflection.v1` and `grpc.reflection.v1alpha`.

grpcio-reflection (1.85) serves only v1alpha, but tools such as grpcurl and Postman now ask for v1
first. The two protocols are the same messages with the same field numbers under another package,
so the v1 service is the library's servicer registered under the v1 name, with its descriptors
derived from v1alpha's: tools that describe the reflection service itself find it under both names.

A method is a symbol too (`grpcurl describe scout.arena.v1.Arena.DescribeArena` asks for the file
containing `scout.arena.v1.Arena.DescribeArena`), but the protobuf runtime's descriptor pool (upb)
finds services, messages, fields and enum values by name and not methods, so the library answered
NOT_FOUND: a request for a method's file is answered with its service's file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, cast

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


def _method_as_service(request: v1alpha_pb2.ServerReflectionRequest) -> v1alpha_pb2.ServerReflectionRequest:
    """`request`, asking for its service's file instead if it asks for the file of a method."""
    service, _, method = request.file_containing_symbol.rpartition(".")
    try:
        is_method = method in descriptor_pool.Default().FindServiceByName(service).methods_by_name
    except KeyError:
        is_method = False
    if not is_method:
        return request
    return v1alpha_pb2.ServerReflectionRequest(host=request.host, file_containing_symbol=service)


def _answering_methods(servicer: reflection.aio.ReflectionServicer) -> Callable[..., AsyncIterator[Any]]:
    """The servicer's stream, where a request for a method's file is answered with its service's
    file, as the request it answers."""

    async def info(
        requests: AsyncIterator[v1alpha_pb2.ServerReflectionRequest], context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[v1alpha_pb2.ServerReflectionResponse]:
        asked: deque[v1alpha_pb2.ServerReflectionRequest] = deque()

        async def rewritten() -> AsyncIterator[v1alpha_pb2.ServerReflectionRequest]:
            async for request in requests:
                asked.append(request)
                yield _method_as_service(request)

        # An async generator, which the library's type stubs declare as a coroutine.
        answers = cast(
            AsyncIterator[v1alpha_pb2.ServerReflectionResponse], servicer.ServerReflectionInfo(rewritten(), context)
        )
        async for response in answers:
            response.original_request.CopyFrom(asked.popleft())
            yield response

    return info


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection for `service_names` (and for itself) as both v1 and v1alpha."""
    servicer = reflection.aio.ReflectionServicer((*service_names, V1, V1ALPHA))
    handler = grpc.stream_stream_rpc_method_handler(
        _answering_methods(servicer),
        request_deserializer=v1alpha_pb2.ServerReflectionRequest.FromString,
        response_serializer=v1alpha_pb2.ServerReflectionResponse.SerializeToString,
    )
    for service in (V1, V1ALPHA):
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, {_METHOD: handler}),))
