"""Generate the reference part of docs/protocol.md from the .proto files, comments included.

    .venv/bin/python docs/protocol_reference.py           # rewrite the generated section in place
    .venv/bin/python docs/protocol_reference.py --check   # exit 1 if the section is out of date

Only the text between the BEGIN and END markers of docs/protocol.md is replaced; everything around
them is written by hand. The .proto files are compiled with grpcio-tools' protoc (the same one
proto/generate.py uses) into descriptors with source info, so every service, rpc, message, field,
enum and value appears with the comment written above it in the .proto file.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PROTO_DIR = PROTO_ROOT / "scout" / "arena" / "v1"
DOC = ROOT / "docs" / "protocol.md"
BEGIN = "<!-- BEGIN GENERATED REFERENCE: docs/protocol_reference.py rewrites this section; do not edit by hand -->"
END = "<!-- END GENERATED REFERENCE -->"
FILE_ORDER = ["scout/arena/v1/bot_session.proto", "scout/arena/v1/game.proto", "scout/arena/v1/arena.proto"]
"""What a bot author reads first comes first; any other file follows by name."""

# Field numbers inside descriptor.proto, used to find comments in SourceCodeInfo.
_FILE_MESSAGE, _FILE_ENUM, _FILE_SERVICE, _FILE_SYNTAX = 4, 5, 6, 12
_MESSAGE_FIELD, _MESSAGE_NESTED, _MESSAGE_ENUM = 2, 3, 4
_ENUM_VALUE = 2
_SERVICE_METHOD = 2

_SCALARS = {
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: "double",
    descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT: "float",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: "uint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32: "int32",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32: "uint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: "bool",
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: "string",
    descriptor_pb2.FieldDescriptorProto.TYPE_BYTES: "bytes",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT32: "sint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT64: "sint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED32: "fixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED32: "sfixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
}


def proto_files() -> list[Path]:
    """The contract's .proto files, in a stable order."""
    return sorted(PROTO_DIR.glob("*.proto"))


def descriptors() -> list[descriptor_pb2.FileDescriptorProto]:
    """Compile the .proto files into descriptors that keep their comments."""
    include = str(files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        names = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
        args = [
            "protoc",
            f"-I{PROTO_ROOT}",
            f"-I{include}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *names,
        ]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed: see the messages above")
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return sorted(
        fds.file, key=lambda f: (FILE_ORDER.index(f.name) if f.name in FILE_ORDER else len(FILE_ORDER), f.name)
    )


class _Comments:
    """The leading comment of each element of one file, by its SourceCodeInfo path."""

    def __init__(self, file: descriptor_pb2.FileDescriptorProto) -> None:
        self._by_path = {
            tuple(loc.path): loc.leading_comments for loc in file.source_code_info.location if loc.leading_comments
        }

    def __call__(self, *path: int) -> str:
        """The comment on one line, for a table cell."""
        return " ".join(self._by_path.get(path, "").split())

    def paragraphs(self, *path: int) -> list[str]:
        """The comment as paragraphs, each followed by a blank line, for text under a heading."""
        text = self._by_path.get(path, "")
        lines: list[str] = []
        for paragraph in re.split(r"\n\s*\n", text.strip()):
            if paragraph.strip():
                lines += [" ".join(paragraph.split()), ""]
        return lines


def _type_name(field: descriptor_pb2.FieldDescriptorProto, package: str) -> str:
    return _link(field.type_name, package) if field.type_name else _SCALARS[field.type]


def _link(type_name: str, package: str) -> str:
    """A message or enum type as a link to its heading, or its full name if it is not ours."""
    name = type_name.lstrip(".")
    if not name.startswith(package + "."):
        return f"`{name}`"
    name = name.removeprefix(package + ".")
    return f"[{name}](#{_anchor(name)})"


def _anchor(name: str) -> str:
    return name.lower().replace(".", "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _messages(
    messages: list[descriptor_pb2.DescriptorProto],
    path: tuple[int, ...],
    prefix: str,
    comments: _Comments,
    package: str,
) -> Iterator[str]:
    for i, msg in enumerate(messages):
        here = (*path, i)
        name = f"{prefix}{msg.name}"
        yield f"#### {name}"
        yield ""
        yield from comments.paragraphs(*here)
        if msg.field:
            yield "| field | number | type | meaning |"
            yield "|---|---|---|---|"
            for j, field in enumerate(msg.field):
                label = ""
                if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
                    label = "repeated "
                elif field.proto3_optional:
                    label = "optional "
                kind = f"{label}{_type_name(field, package)}"
                if field.HasField("oneof_index") and not field.proto3_optional:
                    kind += f" (oneof `{msg.oneof_decl[field.oneof_index].name}`)"
                yield f"| `{field.name}` | {field.number} | {kind} | {_cell(comments(*here, _MESSAGE_FIELD, j))} |"
            yield ""
        else:
            yield "No fields."
            yield ""
        yield from _messages(list(msg.nested_type), (*here, _MESSAGE_NESTED), f"{name}.", comments, package)
        yield from _enums(list(msg.enum_type), (*here, _MESSAGE_ENUM), f"{name}.", comments)


def _enums(
    enums: list[descriptor_pb2.EnumDescriptorProto], path: tuple[int, ...], prefix: str, comments: _Comments
) -> Iterator[str]:
    for i, enum in enumerate(enums):
        here = (*path, i)
        yield f"#### {prefix}{enum.name}"
        yield ""
        yield "An enum."
        yield ""
        yield from comments.paragraphs(*here)
        yield "| value | number | meaning |"
        yield "|---|---|---|"
        for j, value in enumerate(enum.value):
            yield f"| `{value.name}` | {value.number} | {_cell(comments(*here, _ENUM_VALUE, j))} |"
        yield ""


def reference() -> str:
    """The generated section, markers included."""
    lines = [BEGIN, "", "## Reference (generated from `proto/`)", ""]
    for file in descriptors():
        comments = _Comments(file)
        package = file.package
        lines += [f"### `proto/{file.name}`", ""]
        lines += comments.paragraphs(_FILE_SYNTAX)  # the file's header comment sits above `syntax`
        for i, service in enumerate(file.service):
            lines += [f"#### service {service.name}", ""]
            lines += comments.paragraphs(_FILE_SERVICE, i)
            lines += ["| rpc | request | response | meaning |", "|---|---|---|---|"]
            for j, method in enumerate(service.method):
                request = _link(method.input_type, package)
                response = _link(method.output_type, package)
                if method.client_streaming:
                    request = f"stream {request}"
                if method.server_streaming:
                    response = f"stream {response}"
                comment = comments(_FILE_SERVICE, i, _SERVICE_METHOD, j)
                lines.append(f"| `{method.name}` | {request} | {response} | {_cell(comment)} |")
            lines.append("")
        lines += _messages(list(file.message_type), (_FILE_MESSAGE,), "", comments, package)
        lines += _enums(list(file.enum_type), (_FILE_ENUM,), "", comments)
    lines.append(END)
    return "\n".join(lines) + "\n"


def updated(text: str) -> str:
    """`text` (docs/protocol.md) with its generated section replaced, or appended if it has none."""
    start, end = text.find(BEGIN), text.find(END)
    if start == -1 or end == -1:
        return text.rstrip("\n") + "\n\n" + reference()
    return text[:start] + reference() + text[end + len(END) :].lstrip("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the section is current")
    args = parser.parse_args()
    text = DOC.read_text() if DOC.exists() else "# The bot protocol\n"
    new = updated(text)
    if args.check:
        if new != text:
            sys.exit(f"{DOC} is out of date: run .venv/bin/python docs/protocol_reference.py")
        return
    DOC.write_text(new)
    print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    main()
