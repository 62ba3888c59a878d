"""docs/http-api.yaml against a running server (issue 57 item 7): schemathesis generates requests
from the description, LibreTranslate's and DeepL's routes alike (valid ones, and invalid ones:
wrong types, missing and unknown parameters, bad bodies), sends them to a server started here on
the tiny model, and checks every answer: no 500, each status documented for its route, each body
and header as described (each streamed event included), every invalid request refused with a 4xx,
a method a path does not take answered 405 with Allow. Then the streamed events' JSON is checked
against the schemas the description gives it.

Left out: schemathesis's check that every request the description allows is accepted
(positive_data_acceptance). Which languages and file formats a server takes is its models' and
its readers' business, not the file's (`source: "0"` is a string the description allows and the
server refuses, naming the languages it serves).

The run is bounded (a fixed seed, 8 examples per route and phase, some 1,600 requests, glossaries
made and followed through the description's links); it took 11 to 28 s on two shared cores,
server included (the tiny model's server takes its own time to start).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from http_harness import call

pytest.importorskip("schemathesis")

SPEC = Path(__file__).parents[2] / "docs" / "http-api.yaml"
EXAMPLES = 8  # per route and phase; some 1,600 requests in all


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory) -> dict:
    return {"glossary_dir": str(tmp_path_factory.mktemp("glossaries"))}


def test_every_generated_request_is_answered_as_the_description_says(server, tmp_path):
    command = [str(Path(sys.executable).parent / "schemathesis"), "run", str(SPEC)]
    command += ["--url", server.url.rstrip("/"), "--checks", "all", "--exclude-checks", "positive_data_acceptance"]
    command += ["--max-examples", str(EXAMPLES), "--seed", "1", "--workers", "1", "--no-color"]
    command += ["--generation-database", "none", "--request-timeout", "60"]
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    report = run.stdout + run.stderr
    summary = report[report.rfind("SUMMARY") :]
    assert run.returncode == 0, report[-12000:]
    assert "Test cases:" in summary and " generated" in summary, summary


def _validator(name: str):
    from openapi_schema_validator import OAS30Validator

    spec = yaml.safe_load(SPEC.read_text())
    return OAS30Validator({"$ref": f"#/components/schemas/{name}", "components": spec["components"]})


def _events(body: str) -> list[tuple[str, dict]]:
    """(event name, data as JSON) of each server-sent event of a body."""
    events = []
    for block in body.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields.get("event", "message"), json.loads(fields["data"])))
    return events


def test_streamed_events_hold_what_the_description_says(server):
    body = {"q": "Open the file. Save it.", "source": "en", "target": "es"}
    answer = call(server.url + "translate_stream", "POST", json_body=body)
    headers = {name.lower(): value for name, value in answer.headers.items()}
    assert answer.status == 200 and headers["content-type"].startswith("text/event-stream")
    events = _events(answer.body.decode())
    event_schema = _validator("StreamEvent")
    kinds = {"message": _validator("StreamDelta"), "done": _validator("StreamDone"), "error": _validator("StreamError")}
    for name, data in events:
        event_schema.validate({"event": name, "data": json.dumps(data)})
        kinds[name].validate(data)
    assert [name for name, _ in events][-1] == "done"
    deltas = "".join(data["delta"] for name, data in events if name == "message")
    assert deltas == events[-1][1]["translatedText"]


def test_a_bad_stream_request_is_a_json_error_not_an_event(server):
    answer = call(server.url + "translate_stream", "POST", json_body={"q": "x", "source": "en", "target": "es", "n": 1})
    assert answer.status == 400 and answer.json()["error"].startswith("Invalid request: unknown parameter n")
