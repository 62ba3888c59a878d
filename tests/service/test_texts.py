"""Whole texts through the server (issue 11): a text is cut into segments, all of them decode
together in one engine group, and the translations come back in the text's own structure, on
Translate, TranslateStream and TranslateBatch alike.

The reference for a text is always the server itself translating each segment as its own
request: the segmented result must equal those translations joined with the original
separators, byte for byte."""

from __future__ import annotations

from html.parser import HTMLParser

import html5lib
import pytest
from lxml import etree
from service_harness import WAIT, translate_request, wait_for

from traductor.text import plan
from traductor_client.v1 import translator_pb2 as pb

MAX_CHARS, MAX_SEGMENTS = 3000, 20

SENTENCES = ["uno dos tres.", "cuatro cinco.", "seis siete ocho nueve.", "dos %s uno.", "cero nueve!", "tres?"]
SEPARATORS = [" ", "  ", " ", "\t", " "]  # between the sentences of one line
PARAGRAPH = SENTENCES[0] + "".join(sep + s for sep, s in zip(SEPARATORS, SENTENCES[1:]))
TEN = " ".join(["uno dos.", "tres cuatro.", "cinco seis.", "siete ocho.", "nueve cero."] * 2)


@pytest.fixture(scope="module")
def server_settings():
    # a queue of 4 requests: the 10 segments of one text still go in, as one group on an empty queue
    return {"max_input_chars": MAX_CHARS, "max_segments": MAX_SEGMENTS, "max_queued_requests": 4}


def one(server, text: str, **options) -> pb.TranslateResponse:
    return server.stub.Translate(translate_request(text, **options), timeout=WAIT)


def alone(server, text: str, **options) -> str:
    """A segment's translation as a request of its own (the text must be one segment)."""
    assert [s.text for s in plan(text).segments] == [text], "the reference must be a single segment"
    return one(server, text, **options).text


def streamed(server, request) -> tuple[str, list[pb.TranslateStreamResponse]]:
    messages = list(server.stub.TranslateStream(request, timeout=WAIT))
    return "".join(m.text_delta for m in messages), messages


def test_paragraph_equals_its_sentences_one_by_one(server):
    """N sentences in one paragraph give each sentence's own translation, joined with the original
    separators; tokens and usage are the sentences' together."""
    assert [s.text for s in plan(PARAGRAPH).segments] == SENTENCES
    singles = [one(server, s) for s in SENTENCES]
    expected = singles[0].text + "".join(sep + r.text for sep, r in zip(SEPARATORS, singles[1:]))
    result = one(server, PARAGRAPH)
    assert result.text == expected
    assert list(result.token_ids) == [t for r in singles for t in r.token_ids]
    assert result.usage.input_tokens == sum(r.usage.input_tokens for r in singles)
    assert result.usage.output_tokens == sum(r.usage.output_tokens for r in singles)
    assert result.timings.total_seconds > 0


def test_lines_indentation_and_pass_through_kept_byte_for_byte(server):
    """Newlines (LF, CRLF, CR), blank lines, indentation and trailing spaces come back as they were;
    lines with nothing to translate are kept without a model call."""
    text = "  uno dos.\n\n\tcuatro %s\r\n   \n 42  \n%s: %s\rcinco seis.   \n--force\n"
    t = {s: alone(server, s) for s in ("uno dos.", "cuatro %s", "cinco seis.")}
    expected = f"  {t['uno dos.']}\n\n\t{t['cuatro %s']}\r\n   \n 42  \n%s: %s\r{t['cinco seis.']}   \n--force\n"
    assert one(server, text).text == expected


def test_nothing_to_translate_comes_back_unchanged(server):
    """A text of numbers, punctuation and placeholders: itself, no tokens, no engine work."""
    calls = []
    scheduler = server.service.engine.core.scheduler
    submit = scheduler.submit_many
    scheduler.submit_many = lambda requests: (calls.append(len(requests)), submit(requests))[1]
    try:
        text = " 42\n%s: %s -- 3.14\n"
        r = one(server, text)
        assert (r.text, list(r.token_ids), r.usage.input_tokens) == (text, [], 0)
        assert streamed(server, translate_request(text))[0] == text
        assert calls == []
    finally:
        del scheduler.submit_many


def test_ten_sentences_decode_as_ten_rows_of_one_step(server):
    """The 10 segments of a text are submitted as ONE group and admitted in the same engine step,
    where they are 10 rows of the batch."""
    scheduler, gate = server.service.engine.core.scheduler, server.gate
    assert len(plan(TEN).segments) == 10
    expected = one(server, TEN).text
    server.wait_idle()
    groups = []
    submit = scheduler.submit_many
    scheduler.submit_many = lambda requests: (groups.append(len(requests)), submit(requests))[1]
    try:
        gate.close()
        future = server.stub.Translate.future(translate_request(TEN), timeout=WAIT)
        gate.wait_held()
        wait_for(lambda: scheduler.queue_depth() == 10, what="the 10 segments to be queued")
        gate.step(1)
        assert (scheduler.last.admitted, scheduler.last.rows) == (10, 10)
        assert groups == [10]
        gate.open()
        assert future.result().text == expected
    finally:
        gate.open()
        del scheduler.submit_many


def test_cancelling_a_text_cancels_all_its_segments(server):
    """A caller that goes away mid-stream: every segment of its text is cancelled and its rows freed."""
    scheduler, gate = server.service.engine.core.scheduler, server.gate
    server.wait_idle()
    gate.close()
    try:
        call = server.stub.TranslateStream(translate_request(TEN), timeout=WAIT)
        gate.wait_held()
        gate.step(1)
        assert scheduler.last.rows == 10
        next(call)
        call.cancel()
        wait_for(lambda: len(scheduler.active) == 10 and all(r.cancelled for r in scheduler.active), what="cancels")
    finally:
        gate.open()
    server.wait_idle()


@pytest.mark.parametrize(
    "text, format",
    [
        (PARAGRAPH, pb.FORMAT_TEXT),
        ("  uno dos.\n\n\tcuatro %s\r\n 42  \ncinco seis. siete!\n", pb.FORMAT_TEXT),
        ("<p><b>uno</b> dos. tres <i>%s</i> cuatro.</p>\n<ul><li>cinco &amp; seis.</li></ul>", pb.FORMAT_HTML),
    ],
    ids=["paragraph", "lines", "html"],
)
def test_streamed_deltas_concatenate_to_the_unary_text(server, text, format):
    """The concatenation of every text_delta is the unary text exactly; one message per token
    (numbered 0, 1, 2, ...), then the final one with the summed usage."""
    unary = server.stub.Translate(pb.TranslateRequest(text=text, format=format), timeout=WAIT)
    joined, messages = streamed(server, pb.TranslateRequest(text=text, format=format))
    assert joined == unary.text
    *tokens, final = messages
    assert [m.index for m in tokens] == list(range(len(unary.token_ids)))
    assert sorted(m.token_id for m in tokens) == sorted(unary.token_ids)  # segments interleave
    assert final.token_id == -1 and final.finish_reason == unary.finish_reason
    assert (final.usage.input_tokens, final.usage.output_tokens) == (
        unary.usage.input_tokens,
        unary.usage.output_tokens,
    )


def test_the_first_segment_streams_as_it_decodes(server):
    """The head segment arrives token by token (several non-empty deltas before it is complete),
    not all at once when it finishes; the segment behind it follows in text order."""
    head_text, tail_text = "uno dos tres cuatro cinco seis siete.", "ocho."
    head, tail = alone(server, head_text), alone(server, tail_text)
    joined, messages = streamed(server, translate_request(f"{head_text} {tail_text}"))
    assert joined == f"{head} {tail}"
    sent, pieces = "", 0
    for m in messages:
        if len(sent) >= len(head):
            break
        pieces += bool(m.text_delta)
        sent += m.text_delta
    assert len(head.split()) >= 3 and pieces >= 2


def test_options_apply_per_segment(server):
    """max_new_tokens bounds each segment, not the text: three sentences give up to three times as many."""
    sentences = SENTENCES[:3]
    singles = [one(server, s, max_new_tokens=2, min_new_tokens=2) for s in sentences]
    r = one(server, " ".join(sentences), max_new_tokens=2, min_new_tokens=2)
    assert len(r.token_ids) == 6 and list(r.token_ids) == [t for s in singles for t in s.token_ids]
    beam = one(server, " ".join(sentences), beam_size=2)
    assert beam.text == " ".join(one(server, s, beam_size=2).text for s in sentences)


def test_a_short_segment_is_decoded_with_a_beam_of_4_a_longer_one_as_asked(server):
    """Greedy decoding of a segment of one or two pieces lost letters on the packaged models ("hi"
    into German gave "h"): such a segment is decoded with a beam of 4 (options.for_segment),
    per segment; a beam asked for, and sampling, are kept."""
    from traductor.options import SHORT_SOURCE_BEAM, SHORT_SOURCE_TOKENS, DecodingOptions
    from traductor.service.pipeline import prepare

    engine = server.service.registry.get().engine
    tokens = lambda word: len(engine.encode(word, DecodingOptions())[0])  # noqa: E731
    short = next(w for w in ("uno", "dos", "a", "e", "o", "x") if tokens(w) <= SHORT_SOURCE_TOKENS)
    assert tokens(SENTENCES[2]) > SHORT_SOURCE_TOKENS
    text = short + "\n" + SENTENCES[2]
    assert [o.beam_size for _, _, o in prepare(engine, text, DecodingOptions()).inputs] == [SHORT_SOURCE_BEAM, 1]
    assert [o.beam_size for _, _, o in prepare(engine, text, DecodingOptions(beam_size=2)).inputs] == [2, 2]
    sampled = prepare(engine, text, DecodingOptions(temperature=0.5, seed=1)).inputs
    assert [o.beam_size for _, _, o in sampled] == [1, 1]
    beam = one(server, short, beam_size=SHORT_SOURCE_BEAM).text
    assert one(server, text).text == beam + "\n" + alone(server, SENTENCES[2])


def test_long_sentence_is_cut_not_refused(server):
    """A sentence over the model's per-segment token limit is cut into pieces that fit, and served."""
    engine = server.service.engine
    limit = engine.limits.max_input_tokens
    text = ", ".join(["uno dos tres cuatro cinco seis siete"] * 10) + "."
    assert len(engine.tokenizer.encode(text)[0]) > limit
    pieces = plan(text, too_long=lambda s: len(engine.tokenizer.encode(s)[0]) > limit)
    assert len(pieces.segments) > 1
    expected = pieces.assemble([one(server, s.text).text for s in pieces.segments])
    assert one(server, text).text == expected


def test_batch_texts_are_segmented_like_single_ones(server):
    """TranslateBatch gives each text what Translate gives it, with the same format."""
    html = "<p>uno <b>dos</b>. tres.</p>"
    request = pb.TranslateBatchRequest(texts=[PARAGRAPH, html], format=pb.FORMAT_HTML)
    results = server.stub.TranslateBatch(request, timeout=WAIT).results
    singles = [
        server.stub.Translate(pb.TranslateRequest(text=t, format=pb.FORMAT_HTML), timeout=WAIT)
        for t in (PARAGRAPH, html)
    ]
    assert [r.text for r in results] == [s.text for s in singles]
    assert [list(r.token_ids) for r in results] == [list(s.token_ids) for s in singles]


class Tags(HTMLParser):
    def __init__(self, text: str):
        super().__init__(convert_charrefs=False)
        self.tags: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(f"<{tag} {attrs}>")

    def handle_endtag(self, tag):
        self.tags.append(f"</{tag}>")


HTML = (
    '<div class="note"><p><b>Warning:</b> uno dos <i>%s</i> tres. cuatro <a href="x.html?a=1&amp;b=2">cinco</a>.'
    "</p>\n  <ul><li>seis &amp; siete.</li><li>ocho.</li></ul><pre>uno  dos</pre>"
    "<p>nueve <code>cero</code> uno.</p><script>var s = 'uno dos';</script></div>"
)


def test_html_keeps_its_tags_and_parses(server):
    """HTML: the same sequence of tags (attributes included) and entities, untranslated pre/script/code,
    well-formed output (html5lib strict, lxml as XML)."""
    r = server.stub.Translate(pb.TranslateRequest(text=HTML, format=pb.FORMAT_HTML), timeout=WAIT)
    assert Tags(r.text).tags == Tags(HTML).tags
    for kept in ("<pre>uno  dos</pre>", "<code>cero</code>", "<script>var s = 'uno dos';</script>", "&amp;"):
        assert kept in r.text
    html5lib.HTMLParser(strict=True).parseFragment(r.text)
    etree.fromstring(f"<root>{r.text}</root>")
    assert streamed(server, pb.TranslateRequest(text=HTML, format=pb.FORMAT_HTML))[0] == r.text


def test_plain_text_with_angle_brackets_is_one_message(server):
    """Without FORMAT_HTML a '<' is just a character: the message goes to the model whole, as before."""
    text = "cp <uno> <dos> %s"
    assert [s.text for s in plan(text).segments] == [text]
    r = one(server, text)
    assert r.text == alone(server, text) and r.usage.input_tokens == len(
        server.service.engine.tokenizer.encode(text)[0]
    )


def test_the_shared_functions_give_the_rpc_results(server):
    """pipeline.translate / translate_many, which the HTTP API calls too, give what the RPCs give."""
    from traductor.options import DecodingOptions
    from traductor.service import pipeline

    engine, html = server.service.engine, "<p>uno <b>dos</b>. tres.</p>"
    single = server.run(pipeline.translate(engine, PARAGRAPH, DecodingOptions(), "shared"))
    assert single.text == one(server, PARAGRAPH).text
    many = server.run(pipeline.translate_many(engine, [PARAGRAPH, html], DecodingOptions(), "shared", format="html"))
    request = pb.TranslateBatchRequest(texts=[PARAGRAPH, html], format=pb.FORMAT_HTML)
    assert [e.text for e in many] == [r.text for r in server.stub.TranslateBatch(request, timeout=WAIT).results]
