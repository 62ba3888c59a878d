"""Glossaries over gRPC (issue 35), on the tiny model ("uno dos" -> "C B"): inline entries and a
stored glossary by id, on Translate, TranslateStream and TranslateBatch; a text with no term gives
exactly the tokens it gives without a glossary; a call with a glossary changes nothing for the
calls beside it; bad entries, unknown ids and a glossary of another pair are refused with the
status and a message that names them."""

from __future__ import annotations

import grpc
import pytest
from service_harness import WAIT, translate_request

from traductor.errors import ModelNotFound
from traductor.glossary import Glossary, GlossaryError, GlossaryNotFound
from traductor.service.servicer import TranslatorServicer
from traductor_client.v1 import translator_pb2 as pb

DOS = [pb.GlossaryEntry(source="dos", target="DOS")]


def with_glossary(text: str, entries=DOS, **options) -> pb.TranslateRequest:
    request = translate_request(text, **options)
    request.glossary.extend(entries)
    return request


def test_an_inline_term_is_in_the_translation_greedy_and_beam(server):
    """(The tiny model saw only one placeholder, <ph0>, in training: placeholders beside terms are
    tested on the packaged model, tests/service/test_glossary_packaged.py.)"""
    plain = server.stub.Translate(translate_request("uno dos tres"), timeout=WAIT)
    assert "DOS" not in plain.text
    for options in ({}, {"beam_size": 3}):
        result = server.stub.Translate(with_glossary("uno dos tres", **options), timeout=WAIT)
        assert result.text.count("DOS") == 1, (options, result.text)
        assert result.finish_reason == pb.FINISH_REASON_EOS


def test_case_and_plural_follow_the_occurrence(server):
    entries = [pb.GlossaryEntry(source="tres", target="fichero")]
    result = server.stub.Translate(with_glossary("uno Tres. cuatro treses", entries), timeout=WAIT)
    # (the case follows the word it replaces: the tiny model writes capitals)
    assert result.text.lower().split().count("fichero") == 1 and "ficheros" in result.text.lower(), result.text


def test_a_text_with_no_term_decodes_exactly_as_without_a_glossary(server):
    for text in ("uno tres cuatro", "cinco %s seis", "dosis siete"):  # "dosis" is not the word "dos"
        plain = server.stub.Translate(translate_request(text), timeout=WAIT)
        glossed = server.stub.Translate(with_glossary(text), timeout=WAIT)
        assert (list(glossed.token_ids), glossed.text) == (list(plain.token_ids), plain.text)


def test_stream_deltas_join_to_the_unary_text(server):
    text = "uno dos. tres cuatro.\ncinco dos"
    unary = server.stub.Translate(with_glossary(text), timeout=WAIT)
    messages = list(server.stub.TranslateStream(with_glossary(text), timeout=WAIT))
    assert "".join(m.text_delta for m in messages) == unary.text
    assert sorted(m.token_id for m in messages[:-1]) == sorted(unary.token_ids)  # segments interleave
    assert unary.text.count("DOS") == 2


def test_batch_texts_without_a_term_are_unchanged(server):
    texts = ["uno dos", "tres cuatro", "cinco dos", "seis"]
    plain = server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=texts), timeout=WAIT).results
    request = pb.TranslateBatchRequest(texts=texts)
    request.glossary.extend(DOS)
    glossed = server.stub.TranslateBatch(request, timeout=WAIT).results
    for i in (1, 3):
        assert list(glossed[i].token_ids) == list(plain[i].token_ids)
    assert glossed[0].text.count("DOS") == 1 and glossed[2].text.count("DOS") == 1


def test_calls_beside_a_glossary_call_are_unchanged(server):
    """Calls without a glossary decoded in the same steps as calls with one: the same tokens as alone."""
    texts = ["uno dos tres", "cuatro cinco seis siete", "ocho nueve %s", "dos"]
    alone = [list(server.stub.Translate(translate_request(t), timeout=WAIT).token_ids) for t in texts]
    server.gate.close()
    try:
        futures = [server.stub.Translate.future(with_glossary(t), timeout=WAIT) for t in texts]
        futures += [server.stub.Translate.future(translate_request(t), timeout=WAIT) for t in texts]
        server.wait_for(lambda: server.service.engine.core.stats().queued >= len(futures))
    finally:
        server.gate.open()
    results = [f.result() for f in futures]
    assert [list(r.token_ids) for r in results[len(texts) :]] == alone
    assert [r.text.count("DOS") for r in results[: len(texts)]] == [1, 0, 0, 1]


@pytest.mark.parametrize(
    "entries, glossary_id, code, message",
    [
        (
            [pb.GlossaryEntry(source="dos", target="DOS"), pb.GlossaryEntry(source="tres", target="")],
            "",
            grpc.StatusCode.INVALID_ARGUMENT,
            "glossary entry 2 ('tres'): target is empty",
        ),
        (
            [pb.GlossaryEntry(source="dos", target="a"), pb.GlossaryEntry(source="DOS", target="b")],
            "",
            grpc.StatusCode.INVALID_ARGUMENT,
            "glossary entry 2 ('DOS'): the source term is entry 1",
        ),
        (DOS, "g1", grpc.StatusCode.INVALID_ARGUMENT, "glossary_id or inline glossary entries, not both"),
        ([], "no-such-glossary", grpc.StatusCode.NOT_FOUND, "no-such-glossary"),
    ],
)
def test_bad_glossaries_are_refused_naming_what_is_wrong(server, entries, glossary_id, code, message):
    request = with_glossary("uno dos", entries)
    request.glossary_id = glossary_id
    with pytest.raises(grpc.RpcError) as e:
        server.stub.Translate(request, timeout=WAIT)
    assert e.value.code() == code and message in e.value.details()


class Lookup:
    def __init__(self, **glossaries: Glossary):
        self.glossaries = glossaries

    def get(self, glossary_id: str) -> Glossary:
        if glossary_id not in self.glossaries:
            raise GlossaryNotFound(f"glossary {glossary_id!r} not found")
        return self.glossaries[glossary_id]


class Context:
    def time_remaining(self):
        return WAIT

    def invocation_metadata(self):
        return ()  # no key: the server in this module asks for none


def test_a_stored_glossary_is_used_by_id_and_another_pair_is_refused(server):
    pair = server.service.registry.default.languages[0]
    lookup = Lookup(
        ours=Glossary(pair.source.upper(), pair.target.upper(), (("dos", "DOS"),)),
        other=Glossary("de", "fr", (("dos", "DOS"),)),
    )
    servicer = TranslatorServicer(server.service.registry, server.settings, lookup)
    request = translate_request("uno dos")
    request.glossary_id = "ours"
    assert server.run(servicer.Translate(request, Context())).text.count("DOS") == 1
    request.glossary_id = "other"  # routed by its pair: no model translates it
    with pytest.raises(ModelNotFound, match="no model translates de->fr"):
        server.run(servicer.Translate(request, Context()))
    request.model = server.service.registry.default.name
    with pytest.raises(GlossaryError, match="the glossary is de->fr, the call translates en->es"):
        server.run(servicer.Translate(request, Context()))


@pytest.fixture
def own_words_missing(monkeypatch):
    """The model's own word for "dos" is one its translations never hold: every segment with the
    term goes to the second pass (terms masked behind placeholder tokens)."""
    from traductor.service.pipeline import decode

    monkeypatch.setattr(decode, "own_table", lambda engine, options: {"dos": "ZZZ", "doses": "ZZZ"})


def test_the_second_pass_masks_the_term_and_counts_both_passes(server, own_words_missing):
    plain = server.stub.Translate(translate_request("uno dos"), timeout=WAIT)
    result = server.stub.Translate(with_glossary("uno dos"), timeout=WAIT)
    assert result.text.count("DOS") == 1 and "ZZZ" not in result.text
    assert list(result.token_ids)[: len(plain.token_ids)] == list(plain.token_ids)  # pass 1, then pass 2
    assert len(result.token_ids) > len(plain.token_ids)
    assert result.usage.input_tokens > plain.usage.input_tokens
    messages = list(server.stub.TranslateStream(with_glossary("tres. uno dos"), timeout=WAIT))
    unary = server.stub.Translate(with_glossary("tres. uno dos"), timeout=WAIT)
    assert "".join(m.text_delta for m in messages) == unary.text and "DOS" in unary.text
    assert messages[-1].index == len(messages) - 1 == len(unary.token_ids)


def test_a_glossary_through_an_engine_process(tiny_bundle):
    """As `traductor serve` runs by default (the model in a process of its own): the same text,
    and the same tokens for a text without a term."""
    from service_harness import ServerThread, make_settings

    process = ServerThread(make_settings(tiny_bundle, engine_process=True))
    try:
        glossed = process.stub.Translate(with_glossary("uno dos tres"), timeout=WAIT)
        assert glossed.text.count("DOS") == 1
        plain = process.stub.Translate(translate_request("cuatro cinco"), timeout=WAIT)
        assert list(process.stub.Translate(with_glossary("cuatro cinco"), timeout=WAIT).token_ids) == list(
            plain.token_ids
        )
    finally:
        process.close()
