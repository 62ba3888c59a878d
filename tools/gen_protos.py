"""Generate the Python gRPC code from protos/ into client/traductor_client/v1/.

The .proto lives at protos/traductor/v1/translator.proto (proto package traductor.v1). It is
compiled as if it were at traductor_client/v1/translator.proto (protoc's virtual-path form of
--proto_path), so the generated modules import each other as `traductor_client.v1.*` and the
client package carries them without a top-level `traductor` module of its own.

    python tools/gen_protos.py            write the files
    python tools/gen_protos.py --out DIR  write them under DIR instead (the test compares)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTO_DIR = ROOT / "protos" / "traductor" / "v1"
CLIENT_DIR = ROOT / "client"


def generate(out_root: Path) -> list[Path]:
    from grpc_tools import protoc

    (out_root / "traductor_client" / "v1").mkdir(parents=True, exist_ok=True)
    protos = sorted(PROTO_DIR.glob("*.proto"))
    args = [
        "protoc",
        f"--proto_path=traductor_client/v1={PROTO_DIR}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
    ]
    args += [f"traductor_client/v1/{p.name}" for p in protos]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    return sorted((out_root / "traductor_client" / "v1").glob("*_pb2*.py*"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CLIENT_DIR)
    for path in generate(parser.parse_args().out):
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
