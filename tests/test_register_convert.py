"""text/register_convert.py: formal -> informal rewrites of Russian and Dutch messages (вы -> ты,
u -> je) for data augmentation, exact outputs; the pairs skipped, with their reason, where a
formal word is one the rules do not convert with certainty; every rewrite read as informal by
text/address.read; and scripts/model/register_augment.py over a small TSV."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from traductor.text import address
from traductor.text import register_convert as rc

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "model" / "register_augment.py"

RUSSIAN = [
    # imperatives where they stand: -ите/-йте/-ьте -> -и/-й/-ь, reflexives -> -сь/-ся
    ("Нажмите кнопку, чтобы продолжить.", "Нажми кнопку, чтобы продолжить."),
    ("Выберите другую нацию", "Выбери другую нацию"),
    ("Попробуйте ещё раз.", "Попробуй ещё раз."),
    ("Проверьте подключение.", "Проверь подключение."),
    ("Установите пакет.", "Установи пакет."),
    ("Убедитесь, что у вас есть доступ.", "Убедись, что у тебя есть доступ."),
    ("Зарегистрируйтесь на сайте.", "Зарегистрируйся на сайте."),
    ("Не забудьте открыть порты", "Не забудь открыть порты"),
    ("Щёлкните и ведите мышью по картинке.", "Щёлкни и веди мышью по картинке."),
    ("Пожалуйста, проверьте Ваши данные и попробуйте еще раз.", "Пожалуйста, проверь твои данные и попробуй еще раз."),
    ("НАЖМИТЕ ЛЮБУЮ КЛАВИШУ", "НАЖМИ ЛЮБУЮ КЛАВИШУ"),
    # pronouns and possessives, case by preposition; ё only where the text writes it
    ("Это сообщение для вас.", "Это сообщение для тебя."),
    ("Мы думаем о вас.", "Мы думаем о тебе."),
    ("Вам нужно перезапустить программу.", "Тебе нужно перезапустить программу."),
    ("Сохраните файл в вашем каталоге.", "Сохрани файл в твоем каталоге."),
    ("Сохраните файл в вашем каталоге ещё раз.", "Сохрани файл в твоём каталоге ещё раз."),
    ("Проверьте ваше подключение.", "Проверь твое подключение."),
    ("Ваш Рынок был захвачен.", "Твой Рынок был захвачен."),
    ("Введите вашу почту.", "Введи твою почту."),
    ("Если я по-вашему медленный, нажмите «Выход».", "Если я по-твоему медленный, нажми «Выход»."),
    # 2nd plural verbs with вы -> 2nd singular, irregulars by table
    ("Вы действительно хотите выйти?", "Ты действительно хочешь выйти?"),
    ("Хотите ли вы продолжить?", "Хочешь ли ты продолжить?"),
    ("Хотите сохранить изменения?", "Хочешь сохранить изменения?"),
    ("Вы можете выбрать эту стрелку!", "Ты можешь выбрать эту стрелку!"),
    ("Если вы установите пакет, он будет работать.", "Если ты установишь пакет, он будет работать."),
    ("Когда вы нажмёте на рынок, вам будет показан список.", "Когда ты нажмёшь на рынок, тебе будет показан список."),
    ("Вы передадите данные.", "Ты передашь данные."),
    ("Вы ошибаетесь.", "Ты ошибаешься."),
    # nouns in -те after a preposition are no verbs
    ("Найдите файл на этом сайте.", "Найди файл на этом сайте."),
]

RUSSIAN_SKIPS = [
    ("Вы выиграли.", "ru: past tense with вы (gender)"),
    ("Вы уверены, что хотите удалить %1?", "ru: short adjective with вы (gender)"),
    ("Уверены ли вы?", "ru: short adjective with вы (gender)"),
    ("Вы — модератор.", "ru: вы without a verb the rules convert"),
    ("Вы все умрёте!", "ru: вы + все (a group)"),
    ("Будьте внимательны: враги рядом.", "ru: short adjective with вы (gender)"),
    ("Вы будете счастливы.", "ru: short adjective with вы (gender)"),
    ("Мы надеемся на вас.", "ru: вас after в/на (case)"),
    ("Если вы выберите файл, нажмите OK.", "ru: -ите verb after вы of no known conjugation"),
    ("Если вы откроете файл и измените его, нажмите OK.", "ru: imperative or verb after вы (uncertain)"),
    ("Если позволите, вы ошибаетесь.", "ru: 2nd plural form inside a sentence (uncertain)"),
    ("Если вы ступите... или выползете... на землю", "ru: 2nd plural form inside a sentence (uncertain)"),
    ("Вы_брать приложение", "accelerator or escape inside a word"),
    ("Введите ваш па&роль", "accelerator or escape inside a word"),
    # the rules convert it, but the reader does not know "установи" inside a sentence
    ("Для просмотра страниц установите пакет man2html.", rc.NOT_INFORMAL),
]

DUTCH = [
    ("Wilt u doorgaan?", "Wil je doorgaan?"),
    ("Weet u zeker dat u de bestanden wilt verwijderen?", "Weet je zeker dat je de bestanden wilt verwijderen?"),
    ("U heeft zojuist een cd ingevoerd.", "Je hebt zojuist een cd ingevoerd."),
    ("Het bestand dat u heeft versleept is niet lokaal.", "Het bestand dat je hebt versleept is niet lokaal."),
    ("Kunt u dit controleren?", "Kun je dit controleren?"),
    ("Heeft u een account?", "Heb je een account?"),
    ("Bent u zeker?", "Ben je zeker?"),
    ("Als u een uitbreiding verwijdert, zult u deze opnieuw moeten downloaden",
     "Als je een uitbreiding verwijdert, zul je deze opnieuw moeten downloaden"),
    ("Als u wilt, kunt u de URL invoeren.", "Als je wilt, kun je de URL invoeren."),
    ("Hier geeft u de URL in.", "Hier geef je de URL in."),
    ("Wordt u niet moe?", "Word je niet moe?"),
    ("Vindt u dit goed?", "Vind je dit goed?"),
    ("Moet u opnieuw starten?", "Moet je opnieuw starten?"),
    ("Meld u aan met uw account.", "Meld je aan met je account."),
    ("Uw wachtwoord is verlopen.", "Je wachtwoord is verlopen."),
    ("U moet een naam invullen.", "Je moet een naam invullen."),
    ("Vergeet uzelf niet.", "Vergeet jezelf niet."),
    ("Dank u wel!", "Dank je wel!"),
    ("Voer a.u.b. uw naam in", "Voer alsjeblieft je naam in"),
    ("Wacht a.u.b. U wordt verbonden.", "Wacht alsjeblieft. Je wordt verbonden."),
    ("Alstublieft, kies uw taal.", "Alsjeblieft, kies je taal."),
    ("<p>U kunt het nu inschakelen.</p>", "<p>Je kunt het nu inschakelen.</p>"),
]  # fmt: skip

DUTCH_SKIPS = [
    ("De randbinding die u gekozen heeft, is al in gebruik.", "nl: heeft away from u (je hebt?)"),
    ("Dit geeft u de mogelijkheid om te kiezen.", "nl: verb before u may have u as its object"),
    ("Met deze optie verwijdert u alle bladwijzers.", "nl: verb before u may have u as its object"),
    ("Hoe lacht u?", "nl: inverted verb the rules do not know"),
    ("Snelheid in km/u, uw keuze", "nl: u as a letter or unit"),
    ("Druk op 'u' voor uw keuze", "nl: u as a letter or unit"),
    ("Brève - \\u, uw keuze", "accelerator or escape inside a word"),
    ("U kunt dit u zelf afvragen.", "nl: u zelf"),
    ("U vergist zich.", "nl: zich (reflexive of u or of another)"),
    ("Wacht a.u.b.", rc.NOT_INFORMAL),  # nothing the reader reads as informal is left
]


@pytest.mark.parametrize("formal, informal", RUSSIAN)
def test_russian_rewrites(formal, informal):
    assert address.read(formal, "ru") == address.FORMAL
    assert rc.informal(formal, "ru") == (informal, rc.CONVERTED)
    assert address.read(informal, "ru") == address.INFORMAL


@pytest.mark.parametrize("formal, reason", RUSSIAN_SKIPS)
def test_russian_skips(formal, reason):
    assert rc.informal(formal, "ru") == (None, reason)


@pytest.mark.parametrize("formal, informal", DUTCH)
def test_dutch_rewrites(formal, informal):
    assert address.read(formal, "nl") == address.FORMAL
    assert rc.informal(formal, "nl") == (informal, rc.CONVERTED)
    assert address.read(informal, "nl") == address.INFORMAL


@pytest.mark.parametrize("formal, reason", DUTCH_SKIPS)
def test_dutch_skips(formal, reason):
    assert rc.informal(formal, "nl") == (None, reason)


@pytest.mark.parametrize(
    "text, language",
    [("Привет, мир", "ru"), ("Нажми кнопку", "ru"), ("Hallo wereld", "nl"), ("Wil je doorgaan?", "nl")],
)
def test_only_formal_texts_are_rewritten(text, language):
    assert rc.informal(text, language) == (None, rc.NOT_FORMAL)


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="no conversion rules for 'de'"):
        rc.informal("Klicken Sie hier", "de")


def _script():
    spec = importlib.util.spec_from_file_location("register_augment", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_writes_rewrites_and_counts_skips(tmp_path, capsys):
    corpus = tmp_path / "train.tsv"
    corpus.write_text(
        "Press OK\tНажмите OK\n"
        "Do you want to quit?\tВы действительно хотите выйти?\n"
        "You won.\tВы выиграли.\n"
        "Hello\tПривет\n"
        "a line without a tab\n",
        encoding="utf-8",
    )
    out = tmp_path / "augment.tsv"
    assert _script().main(["--lang", "ru", str(corpus), str(out), "--no-progress"]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [
        "Press OK\tНажми OK",
        "Do you want to quit?\tТы действительно хочешь выйти?",
    ]
    report = {line[11:]: int(line[:9].replace(",", "")) for line in capsys.readouterr().err.splitlines()}
    assert report["read"] == 5 and report["formal"] == 3 and report["converted"] == 2 and report["written"] == 2
    assert report["skipped: ru: past tense with вы (gender)"] == 1
    assert report["line without source<TAB>target"] == 1
    # training reads these languages with the same reader: every rewrite is tagged informal
    assert report["training tag (augment.register): informal"] == 2


def test_script_limit(tmp_path, capsys):
    corpus = tmp_path / "train.tsv"
    pairs = "Press OK\tНажмите OK\nDo you want to quit?\tВы хотите выйти?\nPress\tНажмите\n"
    corpus.write_text(pairs, encoding="utf-8")
    out = tmp_path / "augment.tsv"
    script = _script()
    assert script.main(["--lang", "ru", str(corpus), str(out), "--no-progress", "--limit", "1"]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == ["Press OK\tНажми OK"]


def test_script_bad_input_is_a_clear_error(tmp_path, capsys):
    script = _script()
    with pytest.raises(SystemExit) as e:
        script.main(["--lang", "ru", str(tmp_path / "missing.tsv"), str(tmp_path / "out.tsv")])
    assert e.value.code == 2
    assert "input corpus not found" in capsys.readouterr().err
    corpus = tmp_path / "train.tsv"
    corpus.write_text("a\tb\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        script.main(["--lang", "ru", str(corpus), str(corpus)])
    assert "OUT_TSV must differ" in capsys.readouterr().err
    assert corpus.read_text(encoding="utf-8") == "a\tb\n"
