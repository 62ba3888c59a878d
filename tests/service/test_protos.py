"""The committed generated code is what tools/gen_protos.py makes from the .proto today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "client" / "traductor_client" / "v1"


def _gen_protos():
    spec = importlib.util.spec_from_file_location("gen_protos", ROOT / "tools" / "gen_protos.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_code_is_up_to_date(tmp_path):
    """Regenerating gives byte-identical files (fails if the proto or the generated files were edited alone)."""
    fresh = _gen_protos().generate(tmp_path)
    committed = sorted(GENERATED.glob("*_pb2*.py*"))
    assert [p.name for p in fresh] == [p.name for p in committed]
    assert {p.name for p in fresh} == {"translator_pb2.py", "translator_pb2.pyi", "translator_pb2_grpc.py"}
    for new, old in zip(fresh, committed):
        assert new.read_bytes() == old.read_bytes(), f"{old} is stale: run python tools/gen_protos.py"
