"""Regenerate the Python protocol code in sdk/wire/ from the .proto files beside this script.

    .venv/bin/python proto/generate.py            # rewrite sdk/wire/*_pb2*.py(i)
    .venv/bin/python proto/generate.py --out DIR  # write them to DIR instead (the tests compare)

grpcio-tools writes the messages and their stubs (`*_pb2.py`, `*_pb2.pyi`) and the gRPC code
(`*_pb2_grpc.py`); it types no gRPC code, so mypy-protobuf's plugin writes `*_pb2_grpc.pyi` for
the type checker, with concrete servicer methods as at run time (an arena without a database
leaves the tournament calls to the generated UNIMPLEMENTED ones). Both write
`from scout.arena.v1 import game_pb2` for imports between .proto files; the generated modules
live flat in the `sdk.wire` package, so those lines become relative imports. The output depends
on the grpcio-tools and mypy-protobuf versions: regenerate after upgrading either.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

from grpc_tools import protoc

PROTO_ROOT = Path(__file__).resolve().parent
PACKAGE_DIR = Path("scout/arena/v1")
DEFAULT_OUT = PROTO_ROOT.parent / "sdk" / "wire"
_IMPORT = re.compile(r"^from scout\.arena\.v1 import (\w+_pb2)", re.MULTILINE)


def _plugin(name: str) -> str:
    """The protoc plugin `name` installed beside this interpreter, where pip puts its scripts."""
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if path is None:
        raise SystemExit(f"{name} not found: install the codegen extra (pip install -e '.[codegen]')")
    return path


def generate(out: Path) -> list[Path]:
    """Compile every .proto under proto/scout/arena/v1 into `out`; return the files written."""
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / PACKAGE_DIR).glob("*.proto"))
    include = str(files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{include}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
            f"--mypy_grpc_out=generate_concrete_servicer_stubs:{tmp}",
            *protos,
        ]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed: see the messages above")
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for source in sorted((Path(tmp) / PACKAGE_DIR).iterdir()):
            target = out / source.name
            target.write_text(_IMPORT.sub(r"from . import \1", source.read_text()))
            written.append(target)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    for path in generate(parser.parse_args().out):
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
