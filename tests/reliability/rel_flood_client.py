"""One client process of the flood test (test_rel_overload.py), run as a script:

    python rel_flood_client.py TARGET CALLS

Connects, prints "ready", waits for a line on stdin (so that every process starts together), then
sends CALLS calls at once on its channel (Translate and TranslateBatch, alternately), waits for
all of them and prints one JSON line: the calls per status code name, and how many refusals
carried the retry hint (trailer grpc-retry-pushback-ms)."""

from __future__ import annotations

import json
import sys
from collections import Counter

import grpc

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc

TIMEOUT = 120.0  # bounds a call that would hang; a healthy run answers within seconds


def flood(target: str, calls: int) -> dict:
    with grpc.insecure_channel(target) as channel:
        grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
        stub = translator_pb2_grpc.TranslatorStub(channel)
        print("ready", flush=True)
        sys.stdin.readline()
        futures = [
            stub.Translate.future(pb.TranslateRequest(text="uno dos"), timeout=TIMEOUT)
            if i % 2
            else stub.TranslateBatch.future(pb.TranslateBatchRequest(texts=["uno dos"]), timeout=TIMEOUT)
            for i in range(calls)
        ]
        codes, hints = Counter(), Counter()
        for future in futures:
            error = future.exception()
            codes["OK" if error is None else error.code().name] += 1
            if error is not None:
                hints[dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms", "none")] += 1
    return {"codes": codes, "hints": hints}


if __name__ == "__main__":
    print(json.dumps(flood(sys.argv[1], int(sys.argv[2]))), flush=True)
