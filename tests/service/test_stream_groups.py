"""TranslateStream with StreamOptions.group_tokens against the tiny model's server: the tokens
ready together travel in one message, the grouped stream carries exactly the ungrouped one's
tokens, texts and scores, the client library hands out one event a token either way, the metric
counts the messages and their tokens, and bad options are INVALID_ARGUMENT."""

from __future__ import annotations

import grpc
import pytest
from service_harness import WAIT, translate_request

from traductor_client import TranslatorClient
from traductor_client.v1 import translator_pb2 as pb

TWO_LINES = "uno dos tres cuatro\ncinco seis siete"  # two segments: rows of the same steps


def grouped_request(text: str, max_delay_ms: int = 0, **options) -> pb.TranslateRequest:
    request = translate_request(text, **options)
    request.stream.group_tokens = True
    request.stream.max_delay_ms = max_delay_ms
    return request


def stream(server, request) -> list[pb.TranslateStreamResponse]:
    return list(server.stub.TranslateStream(request, timeout=WAIT))


def tokens(messages) -> list[tuple[int, int, str, float]]:
    """(index, token id, text, log p) of every token of a stream, grouped or not."""
    out = []
    for m in messages[:-1]:
        if m.token_ids:
            assert m.text_delta == "".join(m.text_deltas) and m.token_id == m.token_ids[0]
            logprobs = list(m.token_logprobs) or [0.0] * len(m.token_ids)
            out += [(m.index + i, t, d, p) for i, (t, d, p) in enumerate(zip(m.token_ids, m.text_deltas, logprobs))]
        else:
            out.append((m.index, m.token_id, m.text_delta, m.token_logprob))
    return out


@pytest.mark.parametrize("text", ["uno dos tres", TWO_LINES, "cinco {x:ñ😀}"])
@pytest.mark.parametrize("max_delay_ms", [0, 1000])
def test_a_grouped_stream_carries_the_ungrouped_ones_tokens(server, text, max_delay_ms):
    plain = stream(server, translate_request(text, "r-1", return_scores=True))
    grouped = stream(server, grouped_request(text, max_delay_ms, request_id="r-1", return_scores=True))
    assert tokens(grouped) == tokens(plain)
    assert [t[0] for t in tokens(grouped)] == list(range(len(tokens(plain))))
    assert untimed(grouped[-1]) == untimed(plain[-1])
    unary = server.stub.Translate(translate_request(text), timeout=WAIT)
    assert "".join(m.text_delta for m in grouped) == unary.text


def untimed(message: pb.TranslateStreamResponse) -> pb.TranslateStreamResponse:
    copy = pb.TranslateStreamResponse()
    copy.CopyFrom(message)
    copy.ClearField("timings")
    return copy


def test_the_tokens_of_one_step_travel_together(server):
    """Two segments decode as rows of the same steps: each step's two tokens come in one message."""
    plain = stream(server, translate_request(TWO_LINES))
    grouped = stream(server, grouped_request(TWO_LINES))
    sizes = [len(m.token_ids) for m in grouped[:-1]]
    assert sum(sizes) == len(plain) - 1
    assert max(sizes) >= 2 and len(grouped) < len(plain)
    assert all(m.token_id == -1 or m.token_ids for m in grouped)  # never an empty token message


def test_a_beam_streams_tokens_in_one_message(server):
    """A beam's tokens are known only at its end: they come at once, so in one message."""
    grouped = stream(server, grouped_request("cinco {x:ñ😀}", beam_size=3))
    *messages, final = grouped
    assert len(messages) == 1 and len(messages[0].token_ids) == final.index == final.usage.output_tokens


def test_the_metric_counts_messages_and_their_tokens(server):
    count, total = (server.metric(f"traductor_stream_group_tokens_{s}") for s in ("count", "sum"))
    grouped = stream(server, grouped_request(TWO_LINES))
    assert server.metric("traductor_stream_group_tokens_count") - count == len(grouped) - 1
    assert server.metric("traductor_stream_group_tokens_sum") - total == grouped[-1].index
    before = server.metric("traductor_stream_group_tokens_count")
    stream(server, translate_request(TWO_LINES))  # ungrouped streams are not counted
    assert server.metric("traductor_stream_group_tokens_count") == before


@pytest.mark.parametrize(
    ("group", "delay", "said"),
    [(True, 1001, "between 0 and 1000"), (True, -1, "between 0 and 1000"), (False, 5, "needs stream.group_tokens")],
)
def test_bad_stream_options_are_invalid_argument(server, group, delay, said):
    request = translate_request("uno dos")
    request.stream.group_tokens, request.stream.max_delay_ms = group, delay
    with pytest.raises(grpc.RpcError) as error:
        stream(server, request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT and said in error.value.details()


def test_the_client_library_hands_out_one_event_a_token_either_way(server):
    with TranslatorClient(server.target) as client:
        grouped = list(client.stream_events(TWO_LINES, return_scores=True))
        plain = list(client.stream_events(TWO_LINES, return_scores=True, group_tokens=False))
        held = list(client.stream_events(TWO_LINES, return_scores=True, max_delay_ms=1000))
    assert grouped[:-1] == plain[:-1] == held[:-1]
    assert [e.index for e in grouped[:-1]] == list(range(len(grouped) - 1))
    assert all(e.logprob is not None for e in grouped[:-1])
    assert grouped[-1].text == plain[-1].text and grouped[-1].num_tokens == plain[-1].num_tokens
