"""`alternatives=N`: the beam search's other hypotheses, best first, each different from the main
translation and from one another, the same on every call; through LibreTranslate's /translate, gRPC
(DecodingOptions.alternatives -> TranslateResponse.alternatives) and the client library; the
ranking of the beams (engine/beams.others) on a hand-made beam."""

from __future__ import annotations

import numpy as np
import pytest
from http_harness import call
from server_harness import WAIT, translate_request

from traductor.engine import beams
from traductor.engine.request import BeamState, Request
from traductor.options import DecodingOptions
from traductor_client import TranslatorClient
from traductor_client.v1 import translator_pb2 as pb

EOS, PAD = 2, 0
TEXTS = ["uno dos tres", "cuatro cinco. seis siete ocho"]


def _translate(server, **body):
    return call(server.url + "translate", "POST", json_body={"source": "en", "target": "es", **body})


def test_others_are_the_beams_but_the_best_ranked_by_score_over_length():
    req = Request("r", [5, EOS], [], DecodingOptions(beam_size=4, alternatives=3), sink=lambda e: None)
    req.state.beam = BeamState(
        scores=np.array([-3.0, -1.0, -2.0, -np.inf]),
        finished=np.array([True, True, True, False]),
        lengths=np.array([3.0, 2.0, 1.0, 0.0]),  # per token: -1, -0.5, -2, never grew
        prefixes=np.array([[7, 8, 9, EOS], [6, 6, EOS, PAD], [4, EOS, PAD, PAD], [PAD] * 4]),
        logprobs=np.zeros((4, 4)),
    )
    assert beams.others(req, EOS, PAD) == [[7, 8, 9], [4]]  # the best ([6, 6]) and the -inf beam left out


@pytest.mark.parametrize("count", [1, 2, 3])
def test_http_alternatives_are_new_distinct_and_deterministic(server, count):
    answers = [_translate(server, q=TEXTS[0], alternatives=count) for _ in range(2)]
    assert all(a.status == 200 for a in answers)
    body = answers[0].json()
    assert body == answers[1].json()  # the same on every call
    others = body["alternatives"]
    assert 1 <= len(others) <= count and len(set(others)) == len(others)
    assert body["translatedText"] not in others and all(isinstance(t, str) and t for t in others)


def test_http_alternatives_equal_grpc_and_the_client_library(server):
    body = _translate(server, q=TEXTS[1], alternatives=3).json()
    grpc = server.stub.Translate(translate_request(TEXTS[1], alternatives=3), timeout=WAIT)
    assert (grpc.text, list(grpc.alternatives)) == (body["translatedText"], body["alternatives"])
    assert body["alternatives"]
    with TranslatorClient(server.target) as client:
        result = client.translate(TEXTS[1], alternatives=3)
        batch = client.translate_batch(TEXTS, alternatives=2)
    assert (result.text, result.alternatives) == (grpc.text, list(grpc.alternatives))
    assert [r.alternatives for r in batch] == _translate(server, q=TEXTS, alternatives=2).json()["alternatives"]


def test_a_list_q_gives_one_list_per_text_and_none_asked_none_given(server):
    body = _translate(server, q=TEXTS, alternatives=2).json()
    assert len(body["alternatives"]) == 2 and all(1 <= len(a) <= 2 for a in body["alternatives"])
    assert "alternatives" not in _translate(server, q=TEXTS[0]).json()
    plain = server.stub.Translate(translate_request(TEXTS[0]), timeout=WAIT)
    assert list(plain.alternatives) == []


def test_bad_alternatives_are_400_naming_the_problem(server):
    over = _translate(server, q="uno", alternatives=4)
    assert over.status == 400 and "alternatives parameter must be <= 3" in over.json()["error"]
    stream = call(
        server.url + "translate_stream",
        "POST",
        json_body={"q": "uno", "source": "en", "target": "es", "alternatives": 1},
    )
    assert stream.status == 400 and "without alternatives" in stream.json()["error"]


def test_grpc_refuses_alternatives_it_cannot_give(server):
    import grpc

    for request, words in [
        (translate_request("uno", alternatives=8), "alternatives must be between 0 and 7"),
        (translate_request("uno", alternatives=1, temperature=0.5), "not with sampling"),
    ]:
        with pytest.raises(grpc.RpcError) as caught:
            server.stub.Translate(request, timeout=WAIT)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and words in caught.value.details()
    with pytest.raises(grpc.RpcError) as caught:
        list(server.stub.TranslateStream(pb.TranslateRequest(text="uno", options=pb.DecodingOptions(alternatives=1))))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "not by a stream" in caught.value.details()
