"""With a token configured (the same `token` setting as gRPC), /translate and /detect need it as
LibreTranslate's api_key (or an Authorization: Bearer header): missing or wrong is 403."""

from __future__ import annotations

import grpc
import pytest
from http_harness import call, http_requests
from server_harness import WAIT, translate_request

TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def server_settings():
    return {"token": TOKEN}


@pytest.mark.parametrize("key", [None, "", "wrong", TOKEN + "x"], ids=["missing", "empty", "wrong", "longer"])
@pytest.mark.parametrize("endpoint", ["translate", "detect"])
def test_missing_or_wrong_key_is_403(server, key, endpoint):
    body = {"q": "uno dos", "source": "en", "target": "es"} | ({} if key is None else {"api_key": key})
    before = http_requests(server, "/" + endpoint, "UNAUTHENTICATED")
    answer = call(server.url + endpoint, "POST", json_body=body)
    assert answer.status == 403 and answer.json() == {"error": "Invalid API key"}
    assert http_requests(server, "/" + endpoint, "UNAUTHENTICATED") == before + 1


def test_the_token_as_api_key_or_bearer_is_served_like_grpc(server):
    metadata = (("authorization", f"Bearer {TOKEN}"),)
    expected = server.stub.Translate(translate_request("uno dos"), timeout=WAIT, metadata=metadata).text
    as_json = call(
        server.url + "translate", "POST", json_body={"q": "uno dos", "source": "en", "target": "es", "api_key": TOKEN}
    )
    as_form = call(
        server.url + "translate", "POST", form={"q": "uno dos", "source": "en", "target": "es", "api_key": TOKEN}
    )
    as_bearer = call(
        server.url + "translate",
        "POST",
        json_body={"q": "uno dos", "source": "en", "target": "es"},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert [a.status for a in (as_json, as_form, as_bearer)] == [200, 200, 200]
    assert {a.json()["translatedText"] for a in (as_json, as_form, as_bearer)} == {expected}


def test_grpc_needs_the_same_token(server):
    with pytest.raises(grpc.RpcError) as e:
        server.stub.Translate(translate_request("uno dos"), timeout=WAIT)
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_languages_and_settings_stay_open_and_say_a_key_is_needed(server):
    assert call(server.url + "languages").status == 200
    settings = call(server.url + "frontend/settings").json()
    assert settings["apiKeys"] is True and settings["keyRequired"] is True
