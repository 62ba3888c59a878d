"""Control tokens (model/controls.py) and the training sources that teach them (training/augment.py):
a base tokenizer grows the tokens without moving a piece, a warm start keeps every weight, register
tags and term annotations land where the references say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from sentencepiece import sentencepiece_model_pb2
from test_training import small_corpus, tiny_config  # noqa: F401  (the module's fixture)

from traductor.model import checkpoint, controls
from traductor.model.tokenizer import Tokenizer, with_symbols
from traductor.text import address
from traductor.training import augment
from traductor.training import train as train_module
from traductor.training.augment import Augmenter, register, term_dictionary
from traductor.training.corpus import Pair
from traductor.training.train import train

PACKAGED = Path(__file__).resolve().parents[1] / "server/traductor/checkpoints/en-es/tokenizer.model"


def test_a_tokenizer_grows_the_control_tokens_without_moving_a_piece(tmp_path):
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(PACKAGED.read_bytes())
    for piece in [p for p in proto.pieces if p.piece in controls.TOKENS]:  # the packaged one has them
        proto.pieces.remove(piece)
    (tmp_path / "base.model").write_bytes(proto.SerializeToString())
    base = Tokenizer(tmp_path / "base.model")
    grown_file = tmp_path / "tokenizer.model"
    grown_file.write_bytes(with_symbols(proto.SerializeToString(), controls.TOKENS))
    grown = Tokenizer(grown_file)
    assert grown.vocab_size == base.vocab_size + len(controls.TOKENS)
    assert all(grown.sp.id_to_piece(i) == base.sp.id_to_piece(i) for i in range(base.vocab_size))
    assert grown.controls and not base.controls
    text = "Open the folder %s"
    assert grown.encode(text) == base.encode(text)  # a text without controls: the same ids
    ids = grown.encode(controls.with_register(controls.annotate(text, [(9, 15, "Verzeichnis")]), "formal"))[0]
    assert {grown.sp.piece_to_id(t) for t in controls.TOKENS if t != controls.INFORMAL} <= set(ids)
    assert grown.decode(ids, ["%s"]).count("<") == 0  # control tokens are never rendered
    assert with_symbols(grown_file.read_bytes(), controls.TOKENS) == grown_file.read_bytes()


def test_annotations_and_tags_are_written_around_the_words():
    text = "Open the folder now"
    assert controls.annotate(text, [(9, 15, "Verzeichnis")]) == "Open the <term> folder <to> Verzeichnis </term> now"
    assert controls.with_register("Open", "informal") == "<informal> Open"
    assert controls.with_register("Open", None) == "Open"


def test_register_is_read_from_the_pronouns_and_mixed_says_nothing():
    assert register("Prüfe deine Internetverbindung", "de") == "informal"
    assert register("Prüfen Sie Ihre Internetverbindung", "de") == "formal"
    assert register("Sie ist leer", "de") is None  # "she" at the start of a sentence
    assert register("Prüfen Sie deine Verbindung", "de") is None
    assert register("Vérifiez votre connexion", "fr") == "formal"
    assert register("Vérifie ta connexion, tu verras", "fr") == "informal"
    assert register("¿Desea usted continuar?", "es") == "formal"
    assert register("Datei nicht gefunden", "de") is None
    assert register("anything", "sv") is None


def test_the_register_is_read_from_the_words_the_decoders_ban():
    """One table (controls.ADDRESS) for both uses: each word a decoder may not write in the other
    register is what training reads as this register, the READ_INSIDE_SENTENCE ones only inside a
    sentence ("Sie ist leer": she); a keyboard accelerator inside a word makes no word of it.
    (The languages read by the text layer's reader: the next test.)"""
    for language, registers in controls.ADDRESS.items():
        if language in augment._READ_BY_TEXT_LAYER:
            continue
        for wanted, words in registers.items():
            inside = controls.READ_INSIDE_SENTENCE.get((language, wanted), ())
            for word in words:
                word += "aide" if word[-1] in "'’" else ""  # an elision: t'aide
                if word[0] == "-":  # a clitic after its verb: Voulez-vous
                    assert register(f"Voulez{word} 1 2", language) == wanted, (language, word)
                    continue
                assert register(f"Ja, {word} 1 2", language) == wanted, (language, word)
                expected = None if word in inside else wanted
                assert register(f"{word} 1 2", language) == expected, (language, word)
    assert register("Hô&te :", "fr") is None and register("Durée du te&mps", "fr") is None
    assert register("Di&spositivo:", "es") is None
    assert register("Ob ihr Projekt baut, sagt Ihr Werkzeug", "de") == "formal"


@pytest.mark.parametrize(
    ("language", "reference", "source", "wanted"),
    [
        ("ru", "Выбери клип для воспроизведения", "Select a clip to play", "informal"),  # an imperative alone
        ("ru", "Выберите клип для воспроизведения", "Select a clip to play", "formal"),
        ("ru", "Ты уверен? Вы уверены?", "", None),  # both: mixed, no tag
        ("ru", "Вы&ход из программы", "", None),  # an accelerator inside "Выход": no "вы"
        ("nl", "Wil je de bijlage verwijderen?", "Do you want to delete the attachment?", "informal"),
        ("nl", "Wilt u de bijlage verwijderen?", "Do you want to delete the attachment?", "formal"),
        ("it", "Vuoi salvare il tuo file?", "Do you want to save your file?", "informal"),
        ("pt-BR", "O senhor deseja salvar o arquivo?", "Do you want to save the file?", "formal"),
    ],
)
def test_the_new_languages_are_read_as_their_formality_is_measured(language, reference, source, wanted):
    """Italian, Brazilian Portuguese, Dutch and Russian references are read by text/address.py,
    the reader of scripts/measure/formality_eval.py: imperatives and verb forms count, not only
    the pronouns of controls.ADDRESS."""
    assert register(reference, language, source) == wanted
    read = address.read(reference.replace("&", ""), language, source)
    assert register(reference, language, source) == (read if read in ("formal", "informal") else None)


def test_spanish_register_is_read_from_verb_forms_when_the_english_addresses_the_reader():
    assert register("Pulsa Intro para continuar", "es", "Press Enter to continue") == "informal"
    assert register("Pulse Intro para continuar", "es", "Press Enter to continue") == "formal"
    assert register("Por favor, elige un archivo", "es", "Please choose a file") == "informal"
    assert register("Asegúrese de que el archivo existe", "es", "Make sure the file exists") == "formal"
    # a described action ("Selects") is the same form as the tú imperative: it says nothing
    assert register("Selecciona todos los elementos", "es", "Selects all items") is None
    assert register("¿Desea guardar los cambios?", "es", "Do you want to save the changes?") == "formal"
    assert register("¿Quieres guardar los cambios?", "es", "Do you want to save the changes?") == "informal"
    assert register("Su contraseña ha caducado", "es", "Your password has expired") == "formal"
    assert register("Su contraseña ha caducado", "es", "The password has expired") is None  # "su": his, her, its
    assert register("Tu contraseña ha caducado", "es") == "informal"
    assert register("Copia de seguridad", "es", "Backup") is None
    assert register("Pulse aquí si tú quieres", "es", "Click here if you want") is None  # both


def _pairs():
    short = [("Folder", "Ordner", "a"), ("Folder", "Ordner", "b"), ("Folder", "Verzeichnis", "c")]
    short += [("folder", "Verzeichnis", "d"), ("and", "und", "e"), ("and", "und", "f")]
    short += [("Printer", "Drucker", "k"), ("Printer", "Drucker", "l")]
    long = [
        ("The folder is empty", "Der Ordner ist leer", "g"),
        ("The folder is empty", "Das Verzeichnis ist leer", "h"),
        ("Open the folders here now", "Die Verzeichnisse hier öffnen", "i"),
        ("Check your connection and retry", "Prüfen Sie Ihre Verbindung", "j"),
    ]
    return [Pair(s, t, c) for s, t, c in short + long]


def test_the_term_dictionary_comes_from_short_messages_and_leaves_function_words_out():
    terms = term_dictionary(_pairs())
    assert terms == {"folder": {"ordner", "verzeichnis"}, "printer": {"drucker"}}


def test_each_pair_is_annotated_with_the_word_its_own_reference_uses():
    """The annotation is the reference's own word (inflected as there); the word annotated is the
    source's, or in about half the annotations another word of the dictionary, so that only the
    annotation says what to write."""
    pairs = _pairs()
    shown = []
    for seed in range(40):
        augment = Augmenter(pairs, "de", register_tags=1.0, term_annotations=1.0, seed=seed)
        for source, target, word in (
            ("The folder is empty", "Der Ordner ist leer", "Ordner"),
            ("The folder is empty", "Das Verzeichnis ist leer", "Verzeichnis"),
            ("Open the folders here now", "Die Verzeichnisse hier öffnen", "Verzeichnisse"),  # inflected
        ):
            m = re.fullmatch(rf"(?:The|Open the) <term> (\w+) <to> {word} </term> .*", augment.source(source, target))
            assert m, augment.source(source, target)
            shown.append(m.group(1))
        assert augment.source("Check your connection and retry", "Prüfen Sie Ihre Verbindung") == (
            "<formal> Check your connection and retry"
        )
        again = Augmenter(pairs, "de", register_tags=1.0, term_annotations=1.0, seed=seed)  # workers, restarts
        assert all(again.source(p.source, p.target) == augment.source(p.source, p.target) for p in pairs)
    # a stand-in is either dictionary word: "printer" about a quarter of the time
    assert set(shown) <= {"folder", "folders", "printer"} and 0.1 < shown.count("printer") / len(shown) < 0.45
    none = Augmenter(pairs, "de", register_tags=0.0, term_annotations=0.0, seed=3)
    assert all(none.source(p.source, p.target) == p.source for p in pairs)


def test_the_terms_of_a_source_are_whole_words_a_two_word_term_first():
    """Augmenter.term_words: dictionary words and two-word terms (or with an "s" more), case aside,
    left to right, a two-word term before its first word; not a word glued after "<", ">" or "-"
    or before ">" or "-" (control tokens, placeholders, compounds), nor one with digits."""
    augment = Augmenter([], "de", register_tags=0.0, term_annotations=1.0, seed=1)
    augment.terms = {"folder": {"ordner"}, "print queue": {"druckwarteschlange"}, "print": {"drucken"}}
    source = "Print queues and Folders: print, sub-folder folder-x <folder> folder2 print  queue"
    found = [source[a:b] for a, b in augment.term_words(source)]
    assert found == ["Print queues", "Folders", "print", "print"]


def test_a_warm_start_grows_the_base_vocabulary_and_keeps_every_weight(small_corpus, tmp_path):  # noqa: F811
    """--init-from with its own vocabulary predating the control tokens: the run's tokenizer is the
    base's plus the tokens, every base weight is carried over (rows keep their ids), and the run
    trains on augmented sources."""
    base_dir = tmp_path / "base"
    cfg = tiny_config(2)
    train(small_corpus, base_dir, cfg, quiet=True)
    base, base_tokenizer, _ = checkpoint.load(base_dir)
    assert not base_tokenizer.controls  # a run that does not teach them does not have them
    run = tmp_path / "run"
    run.mkdir()
    warm = tiny_config(1)
    warm.init_from, warm.register_tags, warm.term_annotations = str(base_dir), 1.0, 1.0
    pairs, pair = train_module.load_split(small_corpus / "train.tsv"), train_module.languages(small_corpus)
    tokenizer = train_module.prepare_tokenizer(warm, run, pairs, True, pair)
    model = train_module.prepare_model(warm, tokenizer, None, run)[0]
    n = base_tokenizer.vocab_size
    assert tokenizer.vocab_size == n + len(controls.TOKENS)
    assert torch.equal(model.embedding.weight[:n], base.embedding.weight)


@pytest.mark.parametrize(
    "source, addresses",
    [
        ("Do you want to save?", True),
        ("Your changes are lost", True),
        ("GAME OVER. YOU WON!", True),
        ("Make it yourself", True),
        ("Disable these plugins", False),  # an imperative without "you": a button, an infinitive in ru/de
        ("Youth hostel", False),
        ("bayou", False),
        ("<ph0> your <ph1>", True),
        # a glossary annotation's target side is not the English source
        ("Open the <term> file <to> you </term>", False),
        ("Open your <term> file <to> Datei </term>", True),
        ("Save the <term> you <to> Sie </term> entry", True),
    ],
)
def test_a_source_addresses_its_reader_when_it_says_you(source, addresses):
    """Where a model's default register applies (model/controls.addresses_reader)."""
    assert controls.addresses_reader(source) is addresses
