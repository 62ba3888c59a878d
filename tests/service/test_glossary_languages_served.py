"""Glossary plurals of the new target languages served end to end (issue 55): the tiny model
("uno dos" -> "C B") copied as en-it, en-pt-BR, en-nl and en-ru (the pair its config.json declares
is all that differs), an inline entry "tres -> <term>", over gRPC. An occurrence of the English
plural ("treses") comes out in the target language's plural, whether pass 1 replaced the model's
word or pass 2 masked it; a segment of terms alone is answered with their target forms, no
model call. Determiner agreement needs a model that writes determiners:
tests/test_glossary_languages.py tests it on strings, as tests/test_glossary.py does for Spanish."""

from __future__ import annotations

import pytest
from server_harness import WAIT, ServerThread, make_repository, make_settings

from traductor_client.v1 import translator_pb2 as pb

# model -> (the entry's target, its plural in that language)
TERMS = {
    "en-it": ("cartella", "cartelle"),
    "en-pt-BR": ("opção", "opções"),
    "en-nl": ("map", "mappen"),
    "en-ru": ("папка", "папка"),  # Russian: the term as written
}
PAIRS = {"en-it": ("en", "it"), "en-pt-BR": ("en", "pt-BR"), "en-nl": ("en", "nl"), "en-ru": ("en", "ru")}


@pytest.fixture(scope="module")
def server(tiny_bundle, tmp_path_factory):
    repository = make_repository(tiny_bundle, tmp_path_factory.mktemp("repo"), PAIRS)
    s = ServerThread(make_settings("", model_repository=str(repository), default_model="en-it"))
    yield s
    s.close()


def request(text: str, model: str) -> pb.TranslateRequest:
    r = pb.TranslateRequest(text=text, model=model)
    r.glossary.append(pb.GlossaryEntry(source="tres", target=TERMS[model][0]))
    return r


@pytest.mark.parametrize("model", list(TERMS))
def test_a_plural_occurrence_takes_the_target_languages_plural(server, model):
    singular, plural = TERMS[model]
    result = server.stub.Translate(request("uno Tres. cuatro treses", model), timeout=WAIT)
    words = result.text.lower().split()
    # (the case follows the word it replaces: the tiny model writes capitals)
    assert any(w.strip(".") == plural for w in words), result.text
    assert sum(w.strip(".") in (singular, plural) for w in words) == 2, result.text


@pytest.mark.parametrize("model", list(TERMS))
def test_a_segment_of_terms_alone_is_their_target_forms(server, model):
    singular, plural = TERMS[model]
    for text, want in (("Treses:", plural[:1].upper() + plural[1:] + ":"), ("tres", singular)):
        result = server.stub.Translate(request(text, model), timeout=WAIT)
        assert (result.text, list(result.token_ids), result.confidence) == (want, [], 1.0), (model, text)
