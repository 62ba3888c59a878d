"""`model` over HTTP (issue 37): two models of one pair, each reachable by name on /translate,
/translate_stream and /translate_file, as gRPC's `model` reaches them; an unknown name is the
gRPC NOT_FOUND's 404 naming the served models. The models are copies of the tiny bundle that
answer MARKER with their own name (server_harness.make_repository)."""

from __future__ import annotations

import pytest
from http_harness import call, multipart
from server_harness import MARKER, ServerThread, free_port, make_repository, make_settings

PAIRS = {"en-es": ("en", "es"), "en-es-formal": ("en", "es")}


@pytest.fixture(scope="module")
def server(tiny_bundle, tmp_path_factory):
    repository = make_repository(tiny_bundle, tmp_path_factory.mktemp("repo"), PAIRS)
    settings = make_settings("", model_repository=str(repository), default_model="en-es", http_port=free_port())
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def body(**extra) -> dict:
    return {"q": MARKER, "source": "en", "target": "es", **extra}


@pytest.mark.parametrize("model", ["", "en-es", "en-es-formal"])
def test_translate_and_stream_go_to_the_model_named(server, model):
    expected = f"[{model or 'en-es'}]"
    answer = call(server.url + "translate", "POST", json_body=body(model=model))
    assert answer.status == 200 and answer.json()["translatedText"] == expected
    stream = call(server.url + "translate_stream", "POST", json_body=body(model=model))
    assert stream.status == 200 and f'"translatedText": "{expected}"' in stream.body.decode()


def test_translate_file_goes_to_the_model_named(server):
    data, headers = multipart(
        {"source": "en", "target": "es", "model": "en-es-formal"}, {"file": ("notes.txt", MARKER.encode())}
    )
    answer = call(server.url + "translate_file", "POST", data=data, headers=headers)
    assert answer.status == 200, answer.body
    url = answer.json()["translatedFileUrl"]
    assert call(url.replace(url.split("/download_file/")[0] + "/", server.url)).body == b"[en-es-formal]"


def test_an_unknown_model_is_404_naming_the_served_ones(server):
    answer = call(server.url + "translate", "POST", json_body=body(model="nope"))
    assert answer.status == 404 and "en-es (en->es), en-es-formal (en->es)" in answer.json()["error"]
