"""Glossary terms in Italian, Portuguese, Dutch and Russian (issue 55): the target's plural by each
language's regular rules (forms.py, plurals_romance.py, plurals_dutch.py), and the determiner
before a replaced word made to agree in Italian and Portuguese as in Spanish (agreement.py,
determiners.py); Spanish contractions before a plural term no longer fail."""

from __future__ import annotations

import pytest

from traductor.glossary import Glossary
from traductor.glossary.agreement import agree
from traductor.glossary.forms import plural
from traductor.glossary.masking import terms
from traductor.glossary.substitute import substitute

ITALIAN = {
    "cartella": "cartelle",  # -a -> -e
    "archivio": "archivi",  # -io -> -i
    "documento": "documenti",  # -o -> -i
    "impostazione": "impostazioni",  # -e -> -i
    "sistema": "sistemi",  # masculine -a -> -i
    "programma": "programmi",
    "banca": "banche",  # -ca/-ga -> -che/-ghe
    "riga": "righe",
    "blocco": "blocchi",  # -co/-go -> -chi/-ghi
    "catalogo": "cataloghi",
    "grafico": "grafici",  # -ico -> -ici
    "arancia": "arance",  # -cia after a consonant -> -ce
    "valigia": "valigie",
    "invio": "invii",  # stressed -io
    "uomo": "uomini",  # irregular
    "città": "città",  # invariable: accented vowel
    "computer": "computer",  # consonant (English words)
    "server": "server",
    "file": "file",  # English word in -e
    "database": "database",
    "directory": "directory",  # -y
    "menu": "menu",  # -u
    "analisi": "analisi",  # -i
    "serie": "serie",  # -ie
    "re": "re",  # one syllable
    "foto": "foto",  # abbreviation
    "CPU": "CPU",  # acronym
    "Cartella": "Cartelle",  # a capital kept
    "cartella condivisa": "cartelle condivise",  # the adjective too
    "disco rigido": "dischi rigidi",
    "barra degli strumenti": "barre degli strumenti",  # up to the first preposition
    "file di sistema": "file di sistema",
    "nome dell'utente": "nomi dell'utente",
    "pagina web": "pagine web",
}
PORTUGUESE = {
    "arquivo": "arquivos",  # -s after a vowel
    "pasta": "pastas",
    "opção": "opções",  # -ão -> -ões
    "botão": "botões",
    "mão": "mãos",  # the -ãos and -ães of a list
    "pão": "pães",
    "mensagem": "mensagens",  # -m -> -ns
    "item": "itens",
    "servidor": "servidores",  # -r/-z -> -es
    "luz": "luzes",
    "canal": "canais",  # -al -> -ais
    "painel": "painéis",  # -el -> -éis
    "nível": "níveis",  # unstressed -el -> -eis
    "farol": "faróis",  # -ol -> -óis
    "perfil": "perfis",  # -il -> -is
    "portátil": "portáteis",  # unstressed -il -> -eis
    "mês": "meses",  # -ês -> -eses
    "país": "países",
    "vírus": "vírus",  # -s invariable
    "lápis": "lápis",
    "link": "links",  # other consonants: -s
    "driver": "drivers",  # English words of a list
    "CPU": "CPUs",
    "Configuração": "Configurações",
    "arquivo oculto": "arquivos ocultos",
    "área de transferência": "áreas de transferência",  # up to the first preposition
    "barra de ferramentas": "barras de ferramentas",
    "nome do usuário": "nomes do usuário",
}
DUTCH = {
    "bestand": "bestanden",  # -en
    "map": "mappen",  # the consonant doubled after a short vowel
    "knop": "knoppen",
    "adres": "adressen",
    "naam": "namen",  # a doubled long vowel written single
    "probleem": "problemen",
    "huis": "huizen",  # s/f voiced after a long vowel
    "archief": "archieven",
    "instelling": "instellingen",
    "mogelijkheid": "mogelijkheden",  # -heid -> -heden
    "sleutel": "sleutels",  # unstressed -el/-er/-en: -s
    "gebruiker": "gebruikers",
    "teken": "tekens",
    "module": "modules",  # -e: -s
    "functie": "functies",
    "menu": "menu's",  # a, i, o, u, y: -'s
    "foto": "foto's",
    "pagina": "pagina's",
    "bureau": "bureaus",
    "idee": "ideeën",  # -ee, stressed -ie: -ën
    "categorie": "categorieën",
    "tabel": "tabellen",  # a listed stressed -el
    "link": "links",  # English words of a list
    "e-mail": "e-mails",
    "URL": "URL's",
    "verborgen bestand": "verborgen bestanden",  # the last word
    "map van de gebruiker": "mappen van de gebruiker",  # before the first preposition
    "bestandsnaam": "bestandsnamen",  # a compound is one word
}
RUSSIAN = {"файл": "файл", "папка": "папка", "скрытый файл": "скрытый файл"}  # as written


@pytest.mark.parametrize(
    "language, table",
    [("it", ITALIAN), ("pt-BR", PORTUGUESE), ("nl", DUTCH), ("ru", RUSSIAN)],
    ids=["it", "pt-BR", "nl", "ru"],
)
def test_the_plural_of_a_term_by_the_target_language_rules(language, table):
    assert {term: plural(term, language) for term in table} == table


def test_language_codes_in_any_form_take_their_rules():
    assert [plural("opção", code) for code in ("pt", "pt-BR", "pt_PT", "PT-br")] == ["opções"] * 4
    assert plural("cartella", "it-IT") == "cartelle" and plural("map", "nl-BE") == "mappen"


def found(text: str, target_language: str, entries) -> list[tuple[str, str]]:
    glossary = Glossary("en", target_language, tuple(entries))
    return [(text[f.start : f.end], target) for f, target in terms(glossary, text)]


def test_plural_occurrences_take_the_target_plural_in_their_case():
    entries = [("hidden file", "file nascosto"), ("folder", "cartella"), ("toolbar", "barra degli strumenti")]
    assert found("Hidden files, FOLDERS and toolbars", "it", entries) == [
        ("Hidden files", "File nascosti"),
        ("FOLDERS", "CARTELLE"),
        ("toolbars", "barre degli strumenti"),
    ]
    assert found("Options and buttons", "pt-BR", [("option", "opção"), ("button", "botão")]) == [
        ("Options", "Opções"),
        ("buttons", "botões"),
    ]
    dutch = found("hidden files", "nl", [("hidden file", "verborgen bestand")])
    assert dutch == [("hidden files", "verborgen bestanden")]
    assert found("Folders", "ru", [("folder", "папка")]) == [("Folders", "Папка")]  # as written, capitalised


@pytest.mark.parametrize(
    "language, before, own, target, singular, agreed",
    [
        ("it", "Apri la ", "cartella", "archivio", "archivio", "Apri l'"),  # gender and elision
        ("it", "Apri la ", "cartella", "strumento", "strumento", "Apri lo "),  # s + consonant
        ("it", "Apri la ", "cartella", "documento", "documento", "Apri il "),
        ("it", "Apri l'", "archivio", "cartella", "cartella", "Apri la "),  # "l'" says the own word's gender
        ("it", "Apri l’", "archivio", "cartella", "cartella", "Apri la "),
        ("it", "Apri una ", "cartella", "archivio", "archivio", "Apri un "),
        ("it", "Apri un ", "archivio", "applicazione", "applicazione", "Apri un'"),
        ("it", "Nome della ", "cartella", "archivio", "archivio", "Nome dell'"),
        ("it", "Nome del ", "documento", "cartella", "cartella", "Nome della "),
        ("it", "Nelle ", "cartelle", "archivi", "archivio", "Negli "),  # the plural's gender from the singular
        ("it", "Apri i ", "documenti", "cartelle", "cartella", "Apri le "),
        ("it", "Apri il ", "file", "cartella", "cartella", "Apri la "),  # an English word: the determiner's gender
        ("it", "Apri il ", "documento", "applicazione", "applicazione", "Apri l'"),  # form only: -e says no gender
        ("it", "Apri la ", "cartella", "sistema", "sistema", "Apri il "),  # masculine -a
        ("it", "Apri la ", "password", "chiave", "chiave", "Apri la "),  # -e: unknown, left alone
        ("it", "LA ", "CARTELLA", "ARCHIVIO", "archivio", "L'"),
        ("pt", "Abrir a ", "pasta", "diretório", "diretório", "Abrir o "),
        ("pt", "Nome da ", "pasta", "diretório", "diretório", "Nome do "),
        ("pt", "Ir à ", "pasta", "diretório", "diretório", "Ir ao "),
        ("pt", "Abrir na ", "pasta", "diretório", "diretório", "Abrir no "),
        ("pt", "Abrir uma ", "pasta", "diretório", "diretório", "Abrir um "),
        ("pt", "Abrir esta ", "pasta", "diretório", "diretório", "Abrir este "),
        ("pt", "Abrir as ", "pastas", "diretórios", "diretório", "Abrir os "),
        ("pt", "Abrir os ", "botões", "opções", "opção", "Abrir as "),
        ("pt", "Abrir o ", "arquivo", "sistema", "sistema", "Abrir o "),  # masculine -a
        ("pt", "Abrir a ", "senha", "chave", "chave", "Abrir a "),  # -e: unknown
        ("pt", "Salvar a ", "configuração", "preferências", "preferência", "Salvar as "),  # plural for singular
        ("pt", "Salvar a ", "configuração", "ajustes", "ajustes", "Salvar "),  # no gender said: dropped
        ("pt", "Nome da ", "configuração", "ajustes", "ajustes", "Nome de "),  # the contraction's preposition kept
        ("es", "Datos de la ", "configuración", "opciones", "opciones", "Datos de las "),  # failed before
        ("es", "Datos de la ", "configuración", "ajustes", "ajustes", "Datos de "),  # dropped "de la" before
        ("es", "Datos del ", "directorio", "carpetas", "carpeta", "Datos de las "),
        ("fr", "Ouvrir la ", "chemise", "dossier", "dossier", "Ouvrir la "),  # other languages: as they are
        ("nl", "Open de ", "map", "bestand", "bestand", "Open de "),
        ("ru", "Открыть ", "папку", "каталог", "каталог", "Открыть "),
    ],
)
def test_a_determiner_agrees_with_the_term_that_replaced_a_word(language, before, own, target, singular, agreed):
    assert agree(before, own, target, language, singular) == (agreed, False)


def test_a_dropped_determiner_gives_its_capital_to_the_term():
    assert agree("A ", "configuração", "ajustes", "pt-BR") == ("", True)


def test_pass_one_replaces_the_model_word_and_its_determiner_agrees():
    own = {"folder": "cartella", "folders": "cartelle", "tool": "utilità", "settings": "configurazione"}
    glossary = Glossary("en", "it", (("folder", "archivio"), ("tool", "strumento"), ("settings", "impostazioni")))

    def it(source: str, translation: str) -> str | None:
        return substitute(translation, terms(glossary, source), own, "it")

    assert it("Open the folder", "Apri la cartella") == "Apri l'archivio"
    assert it("Name of the folder", "Nome della cartella") == "Nome dell'archivio"
    assert it("Folders", "Le cartelle") == "Gli archivi"
    assert it("Open the tool", "Apri l'utilità") == "Apri lo strumento"
    assert it("the folder", "il documento") is None  # no own word: pass 2

    own = {"folder": "pasta", "folders": "pastas", "settings": "configuração"}
    glossary = Glossary("en", "pt-BR", (("folder", "diretório"), ("settings", "ajustes")))

    def pt(source: str, translation: str) -> str | None:
        return substitute(translation, terms(glossary, source), own, "pt-BR")

    assert pt("Open the folder", "Abrir a pasta") == "Abrir o diretório"
    assert pt("Folders", "As pastas") == "Os diretórios"
    assert pt("The settings", "A configuração") == "Ajustes"
    assert pt("Save the settings", "Salvar a configuração") == "Salvar ajustes"
    dutch = Glossary("en", "nl", (("folder", "bestandsmap"),))
    assert substitute("Open de map", terms(dutch, "Open the folder"), {"folder": "map"}, "nl") == "Open de bestandsmap"
