"""The register tables of Italian, Brazilian Portuguese, Dutch and Russian (model/controls.ADDRESS):
what training reads from a reference (augment.register) and what a decoder asked for a register bans."""

import pytest

from traductor.model import controls
from traductor.training import augment


@pytest.mark.parametrize(
    ("language", "reference", "register"),
    [
        ("it", "Vuoi salvare il tuo file?", "informal"),
        ("it", "Vuole salvare il Suo file?", "formal"),
        ("it", "Lei è l'amministratore.", None),  # at a sentence's start "Lei" is also "she"
        ("it", "Salvare tutto il testo?", None),  # "tu", "te" inside words are no address
        ("pt-BR", "Você deseja salvar o arquivo?", "informal"),
        ("pt-BR", "O senhor deseja salvar o arquivo?", "formal"),
        ("pt-BR", "Salvar todo o texto?", None),
        ("nl", "Wilt u uw bestand opslaan?", "formal"),
        ("nl", "Wil je je bestand opslaan?", "informal"),
        ("nl", "Uitvoer opslaan", None),  # "u" begins many words
        ("ru", "Вы хотите сохранить ваш файл?", "formal"),
        ("ru", "Ты хочешь сохранить твой файл?", "informal"),
        ("ru", "Выход из программы", None),  # "вы" begins many words
        ("ru", "Ты уверен? Вы уверены?", None),  # both registers: no tag
    ],
)
def test_a_reference_register_is_read_in_the_new_languages(language, reference, register):
    assert augment.register(reference, language) == register


@pytest.mark.parametrize("language", ["it", "pt-BR", "nl", "ru"])
def test_a_decoder_asked_for_one_register_bans_the_other_s_words(language):
    bans = controls.register_bans(language, lambda word: ["▁" + word] if word[:1] != controls.GLUE else list(word))
    informal_tag, formal_tag = controls.REGISTERS["informal"], controls.REGISTERS["formal"]
    banned_when_formal = {seq[0] for seq in bans[formal_tag] if seq and seq[0] is not controls.GLUED}
    banned_when_informal = {seq[0] for seq in bans[informal_tag] if seq and seq[0] is not controls.GLUED}
    informal_word = controls.ADDRESS[language]["informal"][0]
    formal_word = controls.ADDRESS[language]["formal"][0]
    assert "▁" + informal_word in banned_when_formal and "▁" + informal_word not in banned_when_informal
    assert "▁" + formal_word in banned_when_informal and "▁" + formal_word not in banned_when_formal


@pytest.mark.parametrize(("language", "word"), [("nl", "u"), ("ru", "вы"), ("it", "tu"), ("pt-BR", "te")])
def test_a_short_word_of_address_is_banned_only_where_the_word_ends(language, word):
    """ "u" begins "uit", "вы" begins "выход": a decoder must still write those."""
    bans = controls.register_bans(language, lambda w: ["▁" + w] if w[:1] != controls.GLUE else list(w))
    sequences = [seq for tag_bans in bans.values() for seq in tag_bans if seq[:1] == ("▁" + word,)]
    assert sequences and all(seq[-1] is controls.WORD_END for seq in sequences)
