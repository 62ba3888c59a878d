"""Served answers do not depend on the other calls (issue 22), on every packaged model as it
ships (int8), where the per-tensor int8 made them depend on the batch: the same calls give the same
answers whether they come one by one or all at once (long texts among short ones, unary, stream
and batch calls mixed), and a paragraph's sentences come back as each sentence alone.

The translation memory is off, so that every answer is the model's."""

from __future__ import annotations

import pytest
from server_harness import ServerThread, make_settings
from service_harness import WAIT, translate_request, wait_for

from traductor.engine.bundle import scan
from traductor.packaged import MODELS_DIR
from traductor.text import plan
from traductor_client.v1 import translator_pb2 as pb

SHORT = ["Cancel", "Permission denied", "cannot open file %s", "Show hidden files", "Waiting for the clock tick..."]
LONG = [
    "The download failed. Check your network connection and try again. If the problem persists, "
    "report it with the log file %s attached.",
    "Print only the names of files that contain a match, not the matching lines themselves.\n"
    "Stop reading each file at its first match.\nUse the alternative dictionary for %s.",
    "Are you sure you want to permanently erase the items in the trash? Once they are erased they cannot be "
    "recovered. Erasing them frees %d MB.",
]
PARAGRAPH = "The file was saved. It can be opened from the Documents folder. Close this window to continue."


@pytest.fixture(scope="module", params=sorted(scan(MODELS_DIR)))
def server(request):
    """One server per packaged model (en-es, the default, and every language beside it)."""
    s = ServerThread(make_settings(scan(MODELS_DIR)[request.param], use_memory=False, max_queued_requests=256))
    yield s
    s.close()


def translate(server, text: str) -> tuple[str, list[int]]:
    r = server.stub.Translate(translate_request(text), timeout=WAIT)
    return r.text, list(r.token_ids)


def test_concurrent_mixed_calls_equal_the_same_calls_one_by_one(server):
    """Short and long texts, each sent three times as unary, stream and batch calls, all queued
    before one step runs: every answer equals the text's answer when it was the only call."""
    texts = SHORT + LONG
    expected = {t: translate(server, t) for t in texts}
    server.gate.close()
    unary = [server.stub.Translate.future(translate_request(t), timeout=WAIT) for t in reversed(texts)]
    streams = [server.stub.TranslateStream(translate_request(t), timeout=WAIT) for t in texts]
    batch = server.stub.TranslateBatch.future(pb.TranslateBatchRequest(texts=texts[::2]), timeout=WAIT)
    wait_for(lambda: server.service.engine.core.scheduler.queue_depth() >= 2 * len(texts), what="queued calls")
    server.gate.open()
    got_streams = [list(s) for s in streams]
    assert [(r.text, list(r.token_ids)) for r in (f.result() for f in unary)] == [expected[t] for t in reversed(texts)]
    for t, messages in zip(texts, got_streams):
        assert "".join(m.text_delta for m in messages) == expected[t][0], t
    assert [(r.text, list(r.token_ids)) for r in batch.result().results] == [expected[t] for t in texts[::2]]


def test_paragraph_equals_its_sentences_alone(server):
    """A paragraph of three sentences, decoded together, equals each sentence sent on its own,
    joined with the paragraph's separators."""
    sentences = [s.text for s in plan(PARAGRAPH).segments]
    assert len(sentences) == 3
    alone = [translate(server, s) for s in sentences]
    text, tokens = translate(server, PARAGRAPH)
    assert text == " ".join(t for t, _ in alone)
    assert tokens == [i for _, ids in alone for i in ids]
