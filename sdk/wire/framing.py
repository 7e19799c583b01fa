"""Protocol Buffers' wire format, for the few hot messages both sides write without building them.

A serialized message is the concatenation of its fields, each a tag followed by its value; a
string or a nested message is its tag, its length as a varint, then its bytes, and a repeated
field is its entries one after the other (https://protobuf.dev/programming-guides/encoding/).
A tag is the varint of field number << 3 | wire type (0 varint, 2 length-delimited), one byte for
fields 1-15: b"\x22" is field 4 holding a string or a message. `tag` reads both from the message's
descriptor, so no field number is written out twice.
So a batch can be joined from pieces serialized once and cached. `arena.api.bot_session_wire` and
`sdk.wire.bot_session` write their batches this way; tests/api/test_bot_session_wire.py checks every
such piece against the protobuf library's own serialization.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

_LENGTH_DELIMITED = frozenset((FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES))
_FIXED = {
    FieldDescriptor.TYPE_DOUBLE: 1,
    FieldDescriptor.TYPE_FIXED64: 1,
    FieldDescriptor.TYPE_SFIXED64: 1,
    FieldDescriptor.TYPE_FLOAT: 5,
    FieldDescriptor.TYPE_FIXED32: 5,
    FieldDescriptor.TYPE_SFIXED32: 5,
}

_SMALL = 1 << 14
_VARINTS = tuple(bytes((n,)) if n < 0x80 else bytes((n & 0x7F | 0x80, n >> 7)) for n in range(_SMALL))
"""The varints of 0..16383, one or two bytes each: lengths, seats, request ids of a while."""
_STRING_FIELDS_LIMIT = 1 << 12


def varint(n: int) -> bytes:
    """`n` as a base-128 varint; a negative number as its 64-bit two's complement, like int32 fields."""
    if 0 <= n < _SMALL:
        return _VARINTS[n]
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(message: type[Message], field: str) -> bytes:
    """The tag `message.field` is written with: its number and wire type from the descriptor. A
    repeated scalar is packed (proto3), so length-delimited like a string."""
    desc = message.DESCRIPTOR.fields_by_name[field]
    wire_type = 2 if desc.type in _LENGTH_DELIMITED or desc.is_repeated else _FIXED.get(desc.type, 0)
    return varint(desc.number << 3 | wire_type)


def int_field(tag: bytes, n: int) -> bytes:
    """A proto3 integer field: nothing when `n` is zero, the default."""
    return tag + varint(n) if n else b""


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    """A string, bytes, nested-message or repeated-message entry field."""
    return tag + varint(len(payload)) + payload


_string_fields: dict[tuple[bytes, str], bytes] = {}


def string_field(tag: bytes, text: str) -> bytes:
    """A proto3 string field, cached: game ids repeat in every message of their game."""
    key = (tag, text)
    field = _string_fields.get(key)
    if field is None:
        if len(_string_fields) >= _STRING_FIELDS_LIMIT:
            _string_fields.clear()
        field = _string_fields[key] = length_delimited(tag, text.encode()) if text else b""
    return field
