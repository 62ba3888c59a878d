"""Glossaries outlive the server: one made over DeepL's API on a server that then stops is listed,
read and applied by the next server started on the same glossary directory (over DeepL's API and
gRPC), and its deletion there is final."""

from __future__ import annotations

from http_harness import call
from server_harness import WAIT, ServerThread, free_port, make_settings, translate_request

KEY = {"Authorization": "DeepL-Auth-Key any"}


def start(bundle, directory) -> ServerThread:
    server = ServerThread(make_settings(bundle, http_port=free_port(), glossary_dir=str(directory)))
    server.url = f"http://127.0.0.1:{server.service.http.port}/v2/"
    return server


def test_a_glossary_survives_a_restart(tiny_bundle, tmp_path):
    first = start(tiny_bundle, tmp_path)
    try:
        body = {"name": "kept", "source_lang": "EN", "target_lang": "ES", "entries": "dos\tDOS"}
        made = call(first.url + "glossaries", "POST", json_body=body, headers=KEY).json()
        request = {"text": ["uno dos"], "source_lang": "EN", "target_lang": "ES", "glossary_id": made["glossary_id"]}
        before = call(first.url + "translate", "POST", json_body=request, headers=KEY).json()
    finally:
        first.close()
    second = start(tiny_bundle, tmp_path)
    try:
        assert call(second.url + "glossaries", headers=KEY).json() == {"glossaries": [made]}
        assert call(second.url + f"glossaries/{made['glossary_id']}/entries", headers=KEY).body == b"dos\tDOS\n"
        after = call(second.url + "translate", "POST", json_body=request, headers=KEY).json()
        assert after == before and after["translations"][0]["text"].count("DOS") == 1
        by_grpc = translate_request("uno dos")
        by_grpc.glossary_id = made["glossary_id"]
        assert second.stub.Translate(by_grpc, timeout=WAIT).text == after["translations"][0]["text"]
        assert call(second.url + f"glossaries/{made['glossary_id']}", "DELETE", headers=KEY).status == 204
    finally:
        second.close()
    assert not list(tmp_path.glob("*.json"))
