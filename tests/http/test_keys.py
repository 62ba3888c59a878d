"""Keys per caller on one server (SQLite store, --api-keys, and --token as the administrator's):
every interface reads the key as its clients send it and answers with its own status; a key's
limits (requests a minute, characters a day), pairs, usage and metrics; glossaries and documents
seen only by the key that made them, through the official `deepl` client and `libretranslatepy`."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import grpc
import pytest
from http_harness import call
from prometheus_client import generate_latest
from server_harness import WAIT, translate_request

from traductor.service.keys.model import Limits, new_key
from traductor.service.keys.stores import open_store
from traductor_client.v1 import translator_pb2 as pb

deepl = pytest.importorskip("deepl")
libretranslatepy = pytest.importorskip("libretranslatepy")

ADMIN = "admin-token-of-the-test"
KEYS = {
    "alice": Limits(),
    "bob": Limits(),
    "slow": Limits(requests_per_minute=5),
    "small": Limits(chars_per_day=20),
    "gone": Limits(),
    "french": Limits(),
}
SECRETS: dict[str, str] = {}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    directory = tmp_path_factory.mktemp("data")
    store = open_store(path=directory / "keys.sqlite3")
    for name, limits in KEYS.items():
        key, SECRETS[name] = new_key(name, limits, pairs=("en-fr",) if name == "french" else ())
        store.add(key)
    store.save(replace(store.get("gone"), revoked=True))
    store.close()
    return {"glossary_dir": str(directory), "api_keys": True, "token": ADMIN}


def libre(server, secret: str | None, text: str = "uno dos", where: str = "json"):
    body = {"q": text, "source": "en", "target": "es"}
    if secret is not None and where == "json":
        return call(server.url + "translate", "POST", json_body=body | {"api_key": secret})
    if where == "form":
        return call(server.url + "translate", "POST", form=body | {"api_key": secret})
    if where == "query":
        return call(server.url + "translate", "POST", form=body, query={"api_key": secret})
    return call(server.url + "translate", "POST", json_body=body)


def client(server, secret: str):
    """The official DeepL client (no retries, no proxy)."""
    translator = deepl.Translator(secret, server_url=server.url.rstrip("/"))
    translator._client._session.trust_env = False
    return translator


@pytest.fixture(autouse=True)
def _no_retries():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deepl.http_client, "max_network_retries", 0)
        yield


def grpc_call(server, secret: str | None, text: str = "uno dos", **fields):
    metadata = () if secret is None else (("authorization", f"Bearer {secret}"),)
    request = translate_request(text)
    for name, value in fields.items():
        setattr(request, name, value)
    return server.stub.Translate.with_call(request, timeout=WAIT, metadata=metadata)


# ---- the key as each interface's clients send it --------------------------------------------


@pytest.mark.parametrize("where", ["json", "form", "query"])
def test_libretranslate_reads_api_key_from_json_form_and_query(server, where):
    answer = libre(server, SECRETS["alice"], where=where)
    assert answer.status == 200 and answer.json()["translatedText"]


@pytest.mark.parametrize("secret", [None, "trk_wrong", "gone"], ids=["missing", "wrong", "revoked"])
def test_libretranslate_refuses_a_missing_wrong_or_revoked_key_with_403(server, secret):
    answer = libre(server, SECRETS.get(secret, secret))
    assert answer.status == 403 and answer.json()["error"].startswith("Invalid API key")
    assert SECRETS["gone"] not in answer.body.decode()


def test_deepl_reads_every_documented_form_and_refuses_with_403(server):
    body = {"text": "uno dos", "target_lang": "ES"}
    forms = [
        {"headers": {"Authorization": f"DeepL-Auth-Key {SECRETS['alice']}"}},
        {"headers": {"Authorization": f"Bearer {SECRETS['alice']}"}},
        {"query": {"auth_key": SECRETS["alice"]}},
    ]
    for how in forms:
        assert call(server.url + "v2/translate", "POST", form=body, **how).status == 200, how
    assert call(server.url + "v2/translate", "POST", form=body | {"auth_key": SECRETS["alice"]}).status == 200
    for secret in ("trk_wrong", SECRETS["gone"]):
        with pytest.raises(deepl.AuthorizationException):
            client(server, secret).translate_text("uno dos", target_lang="ES")


def test_grpc_reads_the_bearer_metadata_and_answers_unauthenticated(server):
    response, _ = grpc_call(server, SECRETS["alice"])
    assert response.text
    for secret in (None, "trk_wrong", SECRETS["gone"]):
        with pytest.raises(grpc.RpcError) as e:
            grpc_call(server, secret)
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as e:
        server.stub.ListModels(pb.ListModelsRequest(), timeout=WAIT)
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_the_admin_token_still_works_everywhere(server):
    assert libre(server, ADMIN).status == 200
    assert grpc_call(server, ADMIN)[0].text
    assert client(server, ADMIN).translate_text("uno dos", target_lang="ES").text


def test_the_page_settings_say_a_key_is_needed(server):
    settings = call(server.url + "frontend/settings").json()
    assert settings["keyRequired"] is True and settings["apiKeys"] is True


# ---- limits ---------------------------------------------------------------------------------


def test_the_request_limit_holds_under_concurrent_calls_then_429_with_retry_after(server):
    start = threading.Barrier(12)

    def one(_):
        start.wait()
        return libre(server, SECRETS["slow"])

    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(one, range(12)))
    assert sorted(a.status for a in answers) == [200] * 5 + [429] * 7
    refused = next(a for a in answers if a.status == 429)
    assert 1 <= int(refused.headers["retry-after"]) <= 60 and "requests a minute" in refused.json()["error"]
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(server, SECRETS["slow"])
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    pushback = dict(e.value.trailing_metadata())["grpc-retry-pushback-ms"]
    assert 1000 <= int(pushback) <= 60_000
    assert server.metric("traductor_key_refusals_total", {"key": "slow", "reason": "rate"}) == 8


def test_the_character_quota_is_456_on_deepl_and_429_elsewhere(server):
    translator = client(server, SECRETS["small"])
    assert translator.translate_text("uno dos tres cuatro", target_lang="ES").text  # 19 characters
    with pytest.raises(deepl.QuotaExceededException):
        translator.translate_text("dos", target_lang="ES")
    answer = libre(server, SECRETS["small"], text="dos")
    assert answer.status == 429 and "quota" in answer.json()["error"] and int(answer.headers["retry-after"]) > 0
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(server, SECRETS["small"], "dos")
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    usage = translator.get_usage()
    assert (usage.character.count, usage.character.limit) == (19, 20) and usage.character.limit_reached is False


def test_pairs_outside_the_key_are_403_and_permission_denied(server):
    answer = libre(server, SECRETS["french"])
    assert answer.status == 403 and "en-es" in answer.json()["error"]
    with pytest.raises(grpc.RpcError) as e:
        grpc_call(server, SECRETS["french"])
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert server.metric("traductor_key_refusals_total", {"key": "french", "reason": "pair"}) == 2


def test_usage_and_metrics_count_each_key_by_name_never_its_secret(server):
    translator = client(server, SECRETS["bob"])
    before = translator.get_usage().character.count
    chars = server.metric("traductor_key_characters_total", {"key": "bob"})
    translator.translate_text(["uno dos", "tres"], target_lang="ES")
    lt = libretranslatepy.LibreTranslateAPI(server.url, api_key=SECRETS["bob"])
    assert lt.translate("cinco", "en", "es")
    assert translator.get_usage().character.count == before + 7 + 4 + 5
    assert server.metric("traductor_key_characters_total", {"key": "bob"}) == chars + 16
    exposed = generate_latest(server.service.metrics.registry).decode()
    assert 'key="bob"' in exposed and not any(secret in exposed for secret in SECRETS.values())


# ---- isolation ------------------------------------------------------------------------------


def test_glossaries_and_documents_belong_to_the_key_that_made_them(server, tmp_path):
    alice, bob, admin = client(server, SECRETS["alice"]), client(server, SECRETS["bob"]), client(server, ADMIN)
    made = alice.create_glossary("mine", "EN", "ES", {"uno": "UNO"})
    assert [g.glossary_id for g in alice.list_glossaries()] == [made.glossary_id]
    assert made.glossary_id not in [g.glossary_id for g in bob.list_glossaries()]
    assert made.glossary_id in [g.glossary_id for g in admin.list_glossaries()]
    for refused in (
        lambda: bob.get_glossary(made.glossary_id),
        lambda: bob.get_glossary_entries(made.glossary_id),
        lambda: bob.translate_text("uno", source_lang="EN", target_lang="ES", glossary=made.glossary_id),
        lambda: bob.delete_glossary(made.glossary_id),
    ):
        with pytest.raises(deepl.DeepLException) as e:
            refused()
        assert "not found" in str(e.value).lower()
    lt = libretranslatepy.LibreTranslateAPI(server.url, api_key=SECRETS["bob"])
    body = {"q": "uno", "source": "en", "target": "es", "glossary_id": made.glossary_id, "api_key": SECRETS["bob"]}
    assert call(server.url + "translate", "POST", json_body=body).status == 404
    assert lt.translate("uno", "en", "es")  # bob's own call works
    assert alice.translate_text("uno", source_lang="EN", target_lang="ES", glossary=made.glossary_id).text

    source = tmp_path / "messages.txt"
    source.write_text("uno dos\n")
    with source.open("rb") as upload:
        handle = alice.translate_document_upload(upload, target_lang="ES", source_lang="EN", filename="messages.txt")
    with pytest.raises(deepl.DeepLException) as e:
        bob.translate_document_get_status(handle)
    assert "not found" in str(e.value).lower()
    assert admin.translate_document_get_status(handle).ok
    alice.translate_document_wait_until_done(handle)
    assert alice.translate_document_get_status(handle).done
    admin.delete_glossary(made.glossary_id)  # the administrator may delete anyone's
    assert alice.list_glossaries() == []
