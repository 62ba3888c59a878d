"""text/address.py for Italian, Brazilian Portuguese, Dutch and Russian (text/address_more.py):
the register a translation addresses its reader in, read from pronouns, possessives and the verb
forms that mark it; words that are also something else (Italian "La" the article, "lei" she,
"sei" six, "Selezioni" selections; Russian "на сайте") are no address."""

from __future__ import annotations

import pytest

from traductor.model import controls
from traductor.text import address
from traductor.text.address import FORMAL, INFORMAL, MIXED, NEUTRAL

YOU = "Do you want to save your changes?"

CASES = [
    # Italian: pronouns, possessives, verbs of the second person
    ("it", "Vuoi salvare le tue modifiche?", YOU, INFORMAL),
    ("it", "Vuole salvare le Sue modifiche?", YOU, FORMAL),
    ("it", "Vuoi salvare le Sue modifiche?", YOU, MIXED),
    ("it", "Hai dimenticato la password?", "Did you forget your password?", INFORMAL),
    ("it", "Ha dimenticato la password?", "Did you forget your password?", FORMAL),
    ("it", "Stai per lasciare questa pagina.", "You are about to leave this page.", INFORMAL),
    ("it", "Potrai trovare i file nella cartella Documenti.", "You will find the files in Documents.", INFORMAL),
    # imperatives, tu against Lei
    ("it", "Inserisci la tua password.", "Enter your password.", INFORMAL),
    ("it", "Inserisca la Sua password.", "Enter your password.", FORMAL),
    ("it", "Inserisci la Sua password.", "Enter your password.", MIXED),
    ("it", "Fai clic qui per continuare.", "Click here to continue.", INFORMAL),
    ("it", "Faccia clic qui per continuare.", "Click here to continue.", FORMAL),
    ("it", "Seleziona un file.", "Select a file.", INFORMAL),
    ("it", "Selezioni un file.", "Select a file.", FORMAL),
    ("it", "Per favore, prema un tasto qualsiasi.", "Please press any key.", FORMAL),
    ("it", "Assicurati che il dispositivo sia connesso.", "Make sure your device is connected.", INFORMAL),
    ("it", "Si assicuri che il dispositivo sia connesso.", "Make sure your device is connected.", FORMAL),
    ("it", "Contattaci per assistenza.", "Contact us for help.", INFORMAL),
    ("it", "Ci contatti per assistenza.", "Contact us for help.", FORMAL),
    ("it", "Riprova più tardi.", "Try again later.", INFORMAL),
    ("it", "Riprovi più tardi.", "Try again later.", FORMAL),
    ("it", "Sei sicuro di voler uscire?", "Are you sure you want to quit?", INFORMAL),
    ("it", "È sicuro di voler uscire?", "Are you sure you want to quit?", FORMAL),
    ("it", "Se vuole, può cambiarlo più tardi.", "If you want, you can change it later.", FORMAL),
    # the object pronouns La/Le, against the article
    ("it", "La preghiamo di attendere.", "Please wait.", FORMAL),
    ("it", "Le consiglio di riavviare.", "I recommend that you restart.", FORMAL),
    ("it", "Le opzioni sono salvate.", "The options are saved.", NEUTRAL),
    ("it", "Le consigliamo di riavviare il computer.", "We recommend restarting your computer.", FORMAL),
    ("it", "Vorremmo che La contattasse il supporto.", "We would like you to contact support.", FORMAL),
    ("it", "La password è scaduta.", "Your password has expired.", NEUTRAL),
    ("it", "Irian Jaya e Le Molucche", "Irian Jaya & the Moluccas", NEUTRAL),
    ("it", "Potrebbe essere necessario impostare una stampante.", "You may need to set a printer.", NEUTRAL),
    ("it", "Le modifiche sono state salvate.", "Your changes have been saved.", NEUTRAL),
    ("it", "Gcolor3 Le permette di salvare i colori.", "Gcolor3 lets you save colors.", FORMAL),
    ("it", "Passo 3 Le impostazioni", "Step 3 Settings", NEUTRAL),
    # a second-person present after "se", "quando": the tu verb of a condition
    ("it", "Se premi questo pulsante, il file è salvato.", "If you press this button, the file is saved.", INFORMAL),
    ("it", "Quando lo selezioni, si apre.", "When you select it, it opens.", INFORMAL),
    ("it", "Se preme questo pulsante, il file è salvato.", "If you press this button, the file is saved.", NEUTRAL),
    ("it", "I premi sono stati assegnati.", "The prizes were awarded.", NEUTRAL),
    # words that are also something else: no address
    ("it", "Lei ha modificato il file.", "She changed the file.", NEUTRAL),
    ("it", "Lei ha modificato il file.", "You changed the file.", FORMAL),
    ("it", "Il documento che lei ha scritto", "The document she wrote", NEUTRAL),
    ("it", "Sua maestà il re", "His majesty the king", NEUTRAL),
    ("it", "Sei nuovi messaggi", "Six new messages", NEUTRAL),
    ("it", "Selezioni multiple non supportate.", "Multiple selections are not supported.", NEUTRAL),
    ("it", "Controlli che falliscono", "Checks that fail", NEUTRAL),
    ("it", "Seleziona il file corrente", "Selects the current file", NEUTRAL),
    ("it", "Il programma non può aprire il file.", "The program cannot open the file.", NEUTRAL),
    ("it", "Il file che hai scelto non può essere aperto.", "The file you chose cannot be opened.", INFORMAL),
    ("it", "Inserisci il codice che ha inviato al tuo telefono.", "Enter the code we sent to your phone.", INFORMAL),
    ("it", "È necessario riavviare il computer.", "You must restart your computer.", NEUTRAL),
    ("it", "Aprile 2026", "April 2026", NEUTRAL),
    # found reading Debian's Italian catalogs: third persons and subjunctives that are no Lei
    ("it", "Può succedere se tutti gli ID sono stati presi.", "It occurs if you run out of IDs.", NEUTRAL),
    ("it", "Potrebbe non essere possibile rimuovere l'utente.", "You may not remove the user.", NEUTRAL),
    ("it", "forse qualcos'altro\nha già introdotto le modifiche", "something else introduced your changes", NEUTRAL),
    ("it", "Fa sì che il sistema azzeri la pagina e continui l'esecuzione.", "Makes the system go on.", NEUTRAL),
    ("it", "OSTYPE\tLa versione di Unix", "OSTYPE\tThe version of Unix you run", NEUTRAL),
    ("it", "Ha dimenticato la password? Può reimpostarla qui.", "Did you forget your password?", FORMAL),
    ("it", "Prova gratuita", "Free trial", NEUTRAL),
    ("it", "Scegli una cartella per i vostri scaricamenti.", "Choose a folder for your downloads.", INFORMAL),
    ("it", "Controllare la connessione.", "Check your connection.", NEUTRAL),
    # Brazilian Portuguese: você against o senhor; imperatives and seu/sua are both registers'
    ("pt-BR", "Você deseja salvar suas alterações?", YOU, INFORMAL),
    ("pt-BR", "O senhor deseja salvar suas alterações?", YOU, FORMAL),
    ("pt-BR", "A senhora pode reiniciar o computador agora.", "You can restart the computer now.", FORMAL),
    ("pt-BR", "Enviamos um código para a senhora.", "We sent you a code.", FORMAL),
    ("pt-BR", "Te enviamos um código.", "We sent you a code.", INFORMAL),
    ("pt-BR", "Você e o senhor Silva", "You and Mr Silva", MIXED),
    ("pt-BR", "Digite sua senha.", "Enter your password.", NEUTRAL),
    ("pt-BR", "Senhor dos Anéis", "Lord of the Rings", NEUTRAL),
    ("pt-BR", "Até logo.", "See you.", NEUTRAL),
    # Dutch: je/jij against u; imperatives are both registers'
    ("nl", "Wil je je wijzigingen opslaan?", YOU, INFORMAL),
    ("nl", "Wilt u uw wijzigingen opslaan?", YOU, FORMAL),
    ("nl", "U hebt geen toegang tot deze map.", "You do not have access to this folder.", FORMAL),
    ("nl", "Jouw account is geblokkeerd.", "Your account has been locked.", INFORMAL),
    ("nl", "Uw account is geblokkeerd.", "Your account has been locked.", FORMAL),
    ("nl", "Weet je zeker dat u wilt afsluiten?", "Are you sure you want to quit?", MIXED),
    ("nl", "Klik hier om door te gaan.", "Click here to continue.", NEUTRAL),
    ("nl", "Uitvoeren van het script", "Running the script", NEUTRAL),
    ("nl", "Lengte %u is te lang voor een adres", "Length %u is too long for an address", NEUTRAL),
    ("nl", "Je hebt %1$u berichten", "You have %1$u messages", INFORMAL),
    # Russian: ты against вы (Вы), verbs of the second person and imperatives
    ("ru", "Вы уверены, что хотите выйти?", "Are you sure you want to quit?", FORMAL),
    ("ru", "Ты уверен, что хочешь выйти?", "Are you sure you want to quit?", INFORMAL),
    ("ru", "Вы уверены, что хочешь выйти?", "Are you sure you want to quit?", MIXED),
    ("ru", "Нажмите любую клавишу, чтобы продолжить.", "Press any key to continue.", FORMAL),
    ("ru", "Нажми любую клавишу, чтобы продолжить.", "Press any key to continue.", INFORMAL),
    ("ru", "Проверьте подключение к интернету.", "Check your internet connection.", FORMAL),
    ("ru", "Проверь своё подключение к интернету.", "Check your internet connection.", INFORMAL),
    ("ru", "Убедитесь, что устройство подключено.", "Make sure your device is connected.", FORMAL),
    ("ru", "Убедись, что устройство подключено.", "Make sure your device is connected.", INFORMAL),
    ("ru", "Пожалуйста, заполните все обязательные поля.", "Please fill in all required fields.", FORMAL),
    ("ru", "Щелкните здесь, чтобы начать.", "Click here to start.", FORMAL),
    ("ru", "Введи ваш пароль.", "Enter your password.", MIXED),
    ("ru", "Можешь изменить это позже в настройках.", "You can change this later in the settings.", INFORMAL),
    ("ru", "Вы можете изменить это позже.", "You can change this later.", FORMAL),
    ("ru", "Информация на сайте обновлена.", "The information on the site was updated.", NEUTRAL),
    ("ru", "Все поля должны быть заполнены.", "All fields must be filled in.", NEUTRAL),
    ("ru", "Мышь не подключена.", "The mouse is not connected.", NEUTRAL),
    ("ru", "Файл сохранён.", "The file was saved.", NEUTRAL),
    ("ru", "Секретные подключи доступны.", "Secret subkeys are available.", NEUTRAL),
    ("ru", "Вы хотите отозвать выбранные подключи?", "Do you want to revoke the selected subkeys?", FORMAL),
    ("ru", "восстановить функцию ИМЯ(арг-ты)", "restore function NAME(args)", NEUTRAL),
    ("ru", "ух ты: сбой %s", "oops: %s failed", NEUTRAL),
    ("ru", "Не забудь сохранить файл.", "Do not forget to save the file.", INFORMAL),
]


@pytest.mark.parametrize(("language", "text", "source", "expected"), CASES)
def test_reads_the_register_of_the_whole_output(language, text, source, expected):
    assert address.read(text, language, source) == expected, address.markers(text, language, source)


def test_markers_name_the_words_of_each_register_in_order():
    found = address.markers("Inserisci la Sua password.", "it-IT", "Enter your password.")
    assert found == {FORMAL: ["Sua"], INFORMAL: ["Inserisci"]}
    found = address.markers("Введи ваш пароль.", "ru", "Enter your password.")
    assert found == {FORMAL: ["ваш"], INFORMAL: ["Введи"]}


def test_without_the_source_only_unambiguous_words_count():
    assert address.read("Vuole salvare le modifiche?", "it") == NEUTRAL  # "vuole" is "you" only if the English says so
    assert address.read("Lei ha modificato il file.", "it") == NEUTRAL  # she, or you
    assert address.read("Vuoi salvare le modifiche?", "it") == INFORMAL
    assert address.read("Salvi il file adesso?", "it") == NEUTRAL  # "salvi": a question, not an imperative


def test_the_pronouns_are_the_decoders_register_words():
    """Every word controls.ADDRESS bans under the other register is read in its own (the one table)."""
    for language in ("it", "pt-BR", "nl", "ru"):
        for register in (FORMAL, INFORMAL):
            for word in controls.ADDRESS[language][register]:
                text = f"{word} {word}" if language != "pt-BR" or register == INFORMAL else f"o {word}"
                assert address.read(f"Ecco: x {text}", language, "you your") == register, (language, word)


def test_language_codes():
    assert address.read("Você deseja salvar?", "pt_BR") == INFORMAL
    assert address.read("Você deseja salvar?", "pt") == INFORMAL
    with pytest.raises(ValueError, match="no register rules for 'pt-PT'"):
        address.read("Você deseja salvar?", "pt-PT")
    with pytest.raises(ValueError, match="no register rules for 'sv'"):
        address.read("Vill du spara?", "sv")
    assert "it" in address.LANGUAGES and "pt-BR" in address.LANGUAGES
