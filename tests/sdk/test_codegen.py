"""The committed protocol code is exactly what proto/ generates, and it runs on the fast backend."""

import filecmp
import subprocess
import sys
from pathlib import Path

from google.protobuf.internal import api_implementation

ROOT = Path(__file__).resolve().parents[2]
WIRE = ROOT / "sdk" / "wire"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")


def test_generated_code_matches_proto(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "proto" / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    generated = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in WIRE.iterdir() if p.name.endswith(GENERATED_SUFFIXES))
    assert generated == committed, "run `python proto/generate.py` and commit sdk/wire/"
    differ = [name for name in generated if not filecmp.cmp(tmp_path / name, WIRE / name, shallow=False)]
    assert not differ, f"stale generated code {differ}: run `python proto/generate.py` and commit sdk/wire/"


def test_protobuf_uses_the_upb_backend() -> None:
    assert api_implementation.Type() == "upb", "the pure-Python protobuf backend is ~25x slower"
