"""DeepL API documents live in the shared document store (service/documents.py), not in one
server's memory: two servers on one glossary directory, as replicas on one volume behind a balancer
that does not pin clients. A document uploaded through one is checked and downloaded through the
other, also after the first stopped; it is downloaded once; a record holds no key; a translation
whose server stopped reads as an error; a document past its ttl is gone; the store is atomic."""

from __future__ import annotations

import json
import os
import time

import pytest
from http_harness import call, multipart
from server_harness import ServerThread, free_port, make_settings

from traductor.service.documents import STALE, STOPPED, DocumentNotFound, DocumentStore

KEY = {"Authorization": "DeepL-Auth-Key any"}
PO = b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "uno dos"\nmsgstr ""\n'


def start(bundle, directory) -> ServerThread:
    server = ServerThread(make_settings(bundle, http_port=free_port(), glossary_dir=str(directory)))
    server.url = f"http://127.0.0.1:{server.service.http.port}/v2/"
    return server


def upload(server, data: bytes = PO) -> dict:
    body, headers = multipart({"target_lang": "ES", "source_lang": "EN"}, {"file": ("app.po", data)})
    answer = call(server.url + "document", "POST", data=body, headers=KEY | headers)
    assert answer.status == 200, answer.body
    return answer.json()


def status(server, handle: dict):
    return call(server.url + f"document/{handle['document_id']}", "POST", json_body=_key(handle), headers=KEY)


def result(server, handle: dict):
    return call(server.url + f"document/{handle['document_id']}/result", "POST", json_body=_key(handle), headers=KEY)


def _key(handle: dict) -> dict:
    return {"document_key": handle["document_key"]}


def wait_done(server, handle: dict) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = status(server, handle).json()
        if answer["status"] in ("done", "error"):
            return answer
        time.sleep(0.05)  # the other server answers at once: it does not wait for a translation it does not run
    raise AssertionError(f"document {handle['document_id']} not done in 60 s")


@pytest.fixture
def two(tiny_bundle, tmp_path):
    first, second = start(tiny_bundle, tmp_path), start(tiny_bundle, tmp_path)
    yield first, second
    for server in (first, second):
        server.close()


def test_a_document_uploaded_through_one_server_is_downloaded_through_another(two, tmp_path):
    first, second = two
    handle = upload(first)
    assert wait_done(second, handle)["status"] == "done"
    from_second = result(second, handle)
    assert from_second.status == 200 and b'msgid "uno dos"' in from_second.body and from_second.body != PO
    assert result(first, handle).status == 404, "downloaded once, whichever server is asked"
    assert status(first, handle).status == 404
    assert not list((tmp_path / "documents").glob("*.json")) and not list((tmp_path / "documents").glob("*.out"))


def test_a_done_document_outlives_the_server_that_translated_it(tiny_bundle, tmp_path):
    first = start(tiny_bundle, tmp_path)
    try:
        handle = upload(first)
        assert wait_done(first, handle)["status"] == "done"
    finally:
        first.close()
    second = start(tiny_bundle, tmp_path)
    try:
        assert status(second, handle).json()["status"] == "done"
        downloaded = result(second, handle)
        assert downloaded.status == 200 and b'msgid "uno dos"' in downloaded.body
        wrong = {"document_id": handle["document_id"], "document_key": "0" * 64}
        assert status(second, wrong).status == 404
    finally:
        second.close()


def test_a_record_holds_no_key_and_a_wrong_key_is_refused(tmp_path):
    store = DocumentStore(tmp_path, ttl=60)
    record, key = store.add("app.po", 7)
    on_disk = (tmp_path / f"{record.document_id}.json").read_text()
    assert key not in on_disk and json.loads(on_disk)["status"] == "translating"
    with pytest.raises(DocumentNotFound):
        store.status(record.document_id, key[:-1] + ("1" if key.endswith("0") else "0"))
    with pytest.raises(DocumentNotFound):
        store.status("../../etc/passwd", key)
    assert store.status(record.document_id, key).as_json() == {
        "document_id": record.document_id,
        "status": "translating",
        "seconds_remaining": 1,
    }
    store.finish(record, b"translated")
    assert store.status(record.document_id, key).as_json()["billed_characters"] == 7
    assert not list(tmp_path.glob(".tmp-*")), "written through a temporary file, renamed"


def test_a_translation_whose_server_stopped_reads_as_an_error_then_expires(tmp_path):
    store = DocumentStore(tmp_path, ttl=30)
    record, key = store.add("app.po", 7)
    path = tmp_path / f"{record.document_id}.json"
    store.touch(record.document_id)  # a heartbeat keeps it translating
    assert store.status(record.document_id, key).status == "translating"
    untouched = time.time() - STALE - 1  # its server stopped beating a minute ago
    os.utime(path, (untouched, untouched))
    stopped = store.status(record.document_id, key)
    assert stopped.status == "error" and stopped.error == STOPPED
    assert store.take(stopped) is None, "a download says it failed"
    record, key = store.add("app.po", 7)
    os.utime(tmp_path / f"{record.document_id}.json", (untouched - 30, untouched - 30))
    store.expire()
    assert not (tmp_path / f"{record.document_id}.json").exists(), "stopped, then past its ttl: deleted"


def test_a_document_past_its_ttl_is_gone_and_capacity_counts_the_folder(tmp_path):
    now = [1000.0]
    store = DocumentStore(tmp_path, ttl=10, capacity=2, clock=lambda: now[0])
    first, key = store.add("a.po", 1)
    store.finish(first, b"x")
    other = DocumentStore(tmp_path, ttl=10, capacity=2, clock=lambda: now[0])  # another replica
    second, second_key = other.add("b.po", 1)
    with pytest.raises(Exception, match="2 documents are being translated or waiting for download"):
        store.add("c.po", 1)
    now[0] += 11
    with pytest.raises(DocumentNotFound):
        store.status(first.document_id, key)
    store.add("c.po", 1)  # the expired one made room
    assert not (tmp_path / f"{first.document_id}.out").exists()
    assert other.status(second.document_id, second_key).status == "translating"


def test_only_one_of_two_takes_gets_the_file(tmp_path):
    store = DocumentStore(tmp_path, ttl=60)
    record, key = store.add("a.po", 1)
    done = store.finish(record, b"translated")
    assert store.take(done) == b"translated"
    with pytest.raises(DocumentNotFound):
        DocumentStore(tmp_path, ttl=60).take(done)
