"""text/register_convert (the package): formal -> informal rewrites of Russian and Dutch messages (вы -> ты,
u -> je) and informal -> formal ones of Italian (tu -> Lei) for data augmentation, exact outputs;
the pairs skipped, with their reason, where a word of the register left is one the rules do not
convert with certainty; every rewrite read in its new register by text/address.read; and
scripts/model/register_augment.py over a small TSV."""

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


ITALIAN = [
    # possessives take the polite capital; imperatives where they stand, their pronoun first
    ("Inserisci il tuo nome.", "Enter your name.", "Inserisca il Suo nome."),
    ("Fai clic qui per accedere al tuo account.", "Click here to access your account.",
     "Faccia clic qui per accedere al Suo account."),
    ("Per continuare, premi Invio e seleziona il tuo file.", "To continue, press Enter and select your file.",
     "Per continuare, prema Invio e selezioni il Suo file."),
    ("Assicurati che il tuo computer sia connesso.", "Make sure your computer is connected.",
     "Si assicuri che il Suo computer sia connesso."),
    ("Salvalo nella tua cartella.", "Save it in your folder.", "Lo salvi nella Sua cartella."),
    ("Contattaci per aiutarti.", "Contact us so we can help you.", "Ci contatti per aiutarla."),
    ("Non spegnere il tuo computer.", "Do not turn off your computer.", "Non spenga il Suo computer."),
    ("Non preoccuparti, il tuo file è salvo.", "Don't worry, your file is safe.",
     "Non si preoccupi, il Suo file è salvo."),
    ("Per favore, inserisci la tua password.", "Please enter your password.", "Per favore, inserisca la Sua password."),
    # second-person verbs -> third; "sei" only where it is "you are"
    ("Vuoi salvare le tue modifiche?", "Do you want to save your changes?", "Vuole salvare le Sue modifiche?"),
    ("Sei sicuro di voler uscire?", "Are you sure you want to quit?", "È sicuro di voler uscire?"),
    ("Hai dimenticato la password?", "Did you forget your password?", "Ha dimenticato la password?"),
    ("Se selezioni questa opzione, potrai modificare il tuo profilo.",
     "If you select this option, you will be able to edit your profile.",
     "Se seleziona questa opzione, potrà modificare il Suo profilo."),
    ("Potresti perdere i tuoi dati.", "You could lose your data.", "Potrebbe perdere i Suoi dati."),
    ("Puoi registrarti qui per ricevere il tuo codice.", "You can register here to get your code.",
     "Può registrarsi qui per ricevere il Suo codice."),
    ("Hai sei file nella tua cartella.", "You have six files in your folder.", "Ha sei file nella Sua cartella."),
    # ti -> La (object) or Le (to you) by the verb; te -> Lei
    ("Ti preghiamo di riprovare.", "Please try again.", "La preghiamo di riprovare."),
    ("Ti consigliamo di riavviare il tuo computer.", "We recommend that you restart your computer.",
     "Le consigliamo di riavviare il Suo computer."),
    ("Questo file è per te.", "This file is for you.", "Questo file è per Lei."),
    ("Ti consiglio di salvare.", "I advise you to save.", "Le consiglio di salvare."),
    ("Ti ringrazio per il tuo aiuto.", "Thank you for your help.", "La ringrazio per il Suo aiuto."),
    ("Non dimenticarti il tuo ombrello.", "Don't forget your umbrella.", "Non si dimentichi il Suo ombrello."),
    ("Il file che chiudi è il tuo.", "The file you close is yours.", "Il file che chiude è il Suo."),
    ("Poi chiudi il tuo file.", "Then close your file.", "Poi chiuda il Suo file."),
    # a noun that is also an imperative stays; a third person stays
    ("Prova gratuita del tuo abbonamento", "Free trial of your subscription", "Prova gratuita del Suo abbonamento"),
    ("Il programma seleziona il tuo file.", "The program selects your file.", "Il programma seleziona il Suo file."),
    ("SALVA IL TUO FILE", "SAVE YOUR FILE", "SALVI IL SUO FILE"),
    # nothing left that says "you" after the verbs: "Lei" before the first, before "non" and pronouns
    ("Hai 6 nuovi messaggi.", "You have 6 new messages.", "Lei ha 6 nuovi messaggi."),
    ("Non puoi annullare questa azione.", "You cannot undo this action.", "Lei non può annullare questa azione."),
    ("Il file che hai scaricato è pronto.", "The file you downloaded is ready.",
     "Il file che Lei ha scaricato è pronto."),
    ("Ti sei disconnesso.", "You have logged out.", "Lei si è disconnesso."),
    # a question opening with the verb is read formal where the English says "you": no "Lei"
    ("Vuoi uscire?", "Do you want to quit?", "Vuole uscire?"),
    # digits glued to a name belong to it: "Le" after "Gcolor3" stands inside the sentence
    ("Gcolor3 ti permette di scegliere il colore.", "Gcolor3 enables you to pick the color.",
     "Gcolor3 Le permette di scegliere il colore."),
    # a condition's tu verb: "se premi" -> "se preme", with "Lei" where nothing else says "you"
    ("Se premi questo pulsante, i segnalibri sono cancellati.", "If you press this button, bookmarks are deleted.",
     "Se Lei preme questo pulsante, i segnalibri sono cancellati."),
    # a tu imperative capitalised inside the sentence is a label the text names: it stays
    ("Se premi il pulsante Converti, i byte sono sostituiti.", "If you press the Convert button, bytes are replaced.",
     "Se Lei preme il pulsante Converti, i byte sono sostituiti."),
    ("Scegli la voce Apri del menu.", "Choose the Open item of the menu.", "Scelga la voce Apri del menu."),
]  # fmt: skip

ITALIAN_SKIPS = [
    ("Vuoi che ti avvisi?", "Do you want me to notify you?", "it: ti before a verb the rules do not know"),
    ("Te lo mostriamo subito, tu aspetta.", "We show it to you now, you wait.", "it: te + pronoun (glielo)"),
    ("Non lamentarti del tuo computer.", "Don't complain about your computer.",
     "it: non + an infinitive the rules do not know"),
    ("Vuoi abbracciarti?", "Do you want to hug yourself?", "it: ti joined to a verb the rules do not know"),
    ("I file aperti li chiudi tu.", "You close the open files.", "it: a tu verb where the rules do not know its use"),
    ("Inserisci il t&uo nome", "Enter your name", "accelerator or escape inside a word"),
    # converted, but nothing the reader reads as formal is left: an opening "Sua" is hers where
    # the English says no "your"
    ("Tua la scelta.", "The choice is hers.", rc.NOT_FORMAL_RESULT),
    ("Salve, mondo", "Hello, world", rc.NOT_INFORMAL_TEXT),
    ("Inserisca il Suo nome.", "Enter your name.", rc.NOT_INFORMAL_TEXT),
]  # fmt: skip


@pytest.mark.parametrize("informal, source, formal", ITALIAN)
def test_italian_rewrites(informal, source, formal):
    assert address.read(informal, "it", source) == address.INFORMAL
    assert rc.formal(informal, "it", source) == (formal, rc.CONVERTED)
    assert address.read(formal, "it", source) == address.FORMAL


@pytest.mark.parametrize("informal, source, reason", ITALIAN_SKIPS)
def test_italian_skips(informal, source, reason):
    assert rc.formal(informal, "it", source) == (None, reason)


def test_formal_rewrites_only_languages_with_rules():
    with pytest.raises(ValueError, match="no conversion rules to the formal register for 'ru'"):
        rc.formal("Нажми кнопку", "ru")
    with pytest.raises(ValueError, match="no register rules for 'pt-PT'"):
        rc.formal("Você está offline.", "pt-PT")  # in Portugal "você" is no informal word
    assert rc.FORMAL_LANGUAGES == {"it", "pt-BR"} and rc.INFORMAL_LANGUAGES == {"ru", "nl"}


PORTUGUESE = [
    ("Você deseja salvar suas alterações?", "Do you want to save your changes?",
     "O senhor deseja salvar suas alterações?"),
    ("Selecione a impressora que você deseja usar.", "Select the printer you want to use.",
     "Selecione a impressora que o senhor deseja usar."),
    ("Este arquivo é para você.", "This file is for you.", "Este arquivo é para o senhor."),
    ("Enviamos um e-mail a você.", "We sent you an email.", "Enviamos um e-mail ao senhor."),
    ("Precisamos de você!", "We need you!", "Precisamos do senhor!"),
    ("Confiamos em você.", "We trust you.", "Confiamos no senhor."),
    ("Vocês estão prontos?", "Are you ready?", "Os senhores estão prontos?"),
    ("Podemos falar contigo?", "Can we talk with you?", "Podemos falar com o senhor?"),
    ("VOCÊ ESTÁ OFFLINE", "YOU ARE OFFLINE", "O SENHOR ESTÁ OFFLINE"),
]  # fmt: skip


@pytest.mark.parametrize("informal, source, formal", PORTUGUESE)
def test_brazilian_rewrites(informal, source, formal):
    assert address.read(informal, "pt-BR", source) == address.INFORMAL
    assert rc.formal(informal, "pt-BR", source) == (formal, rc.CONVERTED)
    assert address.read(formal, "pt-BR", source) == address.FORMAL


@pytest.mark.parametrize(
    "text, reason",
    [
        ("Te enviamos um e-mail.", "pt: tu forms (te, teu) the rules do not convert"),
        ("Você e teu irmão", "pt: tu forms (te, teu) the rules do not convert"),
        ("Digite seu nome.", rc.NOT_INFORMAL_TEXT),  # imperatives and seu/sua: both registers
        ("Você está offline: abr&a o menu", rc.ACCELERATOR),
    ],
)
def test_brazilian_skips(text, reason):
    assert rc.formal(text, "pt-BR", "You") == (None, reason)


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
    with pytest.raises(ValueError, match="no conversion rules to the informal register for 'de'"):
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


def test_script_rewrites_italian_into_the_formal_register(tmp_path, capsys):
    corpus = tmp_path / "train.tsv"
    corpus.write_text(
        "Enter your name.\tInserisci il tuo nome.\n"
        "Enter the name.\tInserire il nome.\n"
        "Do you want me to notify you?\tVuoi che ti avvisi?\n",
        encoding="utf-8",
    )
    out = tmp_path / "augment.tsv"
    assert _script().main(["--lang", "it", str(corpus), str(out), "--no-progress"]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == ["Enter your name.\tInserisca il Suo nome."]
    report = {line[11:]: int(line[:9].replace(",", "")) for line in capsys.readouterr().err.splitlines()}
    assert report["read"] == 3 and report["informal"] == 2 and report["converted"] == 1
    assert report["skipped: it: ti before a verb the rules do not know"] == 1
    assert report["training tag (augment.register): formal"] == 1
