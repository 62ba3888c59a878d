"""text/address.py: the register a Spanish, French or German translation addresses its reader in,
read from its verbs, possessives and pronouns (with the English source where a word is also
something else): informal, formal, mixed or neutral."""

from __future__ import annotations

import pytest

from traductor.text import address
from traductor.text.address import FORMAL, INFORMAL, MIXED, NEUTRAL

CASES = [
    # Spanish: the outputs of formality=less, and their informal forms
    ("es", "¿Desea guardar sus cambios?", "Do you want to save your changes?", FORMAL),
    ("es", "Por favor, introduzca su nombre.", "Please enter your name.", FORMAL),
    ("es", "Debes reiniciar su equipo.", "You must restart your computer.", MIXED),
    ("es", "¿Confirma que quiere eliminar tu cuenta?", "Are you sure you want to delete your account?", MIXED),
    ("es", "¿Quieres guardar tus cambios?", "Do you want to save your changes?", INFORMAL),
    ("es", "Por favor, introduce tu nombre.", "Please enter your name.", INFORMAL),
    ("es", "Inténtalo de nuevo más tarde.", "Try again later.", INFORMAL),
    ("es", "Inténtelo de nuevo más tarde.", "Try again later.", FORMAL),
    ("es", "Asegúrate de que el dispositivo está conectado.", "Make sure your device is connected.", INFORMAL),
    ("es", "Pulse cualquier tecla para continuar.", "Press any key to continue.", FORMAL),
    ("es", "Pulsa cualquier tecla para continuar.", "Press any key to continue.", INFORMAL),
    ("es", "¿Está seguro de que quiere salir?", "Are you sure you want to quit?", FORMAL),
    ("es", "¿Estás seguro de que quieres salir?", "Are you sure you want to quit?", INFORMAL),
    ("es", "Sigue las instrucciones de su pantalla.", "Follow the instructions on your screen.", MIXED),
    # a third person with a subject of its own, "su" of another owner, a described action: no address
    ("es", "El archivo no puede abrirse.", "The file cannot be opened.", NEUTRAL),
    ("es", "El archivo no puede abrirse.", "The file you chose cannot be opened.", NEUTRAL),
    ("es", "El archivo y su contenido", "The file and its contents", NEUTRAL),
    ("es", "Guarda el archivo actual", "Saves the current file", NEUTRAL),
    ("es", "No se pudo abrir el archivo.", "Could not open the file.", NEUTRAL),
    # French
    ("fr", "Saisissez ton nom.", "Enter your name.", MIXED),
    ("fr", "Saisis ton nom.", "Enter your name.", INFORMAL),
    ("fr", "Voulez-vous enregistrer vos modifications ?", "Do you want to save your changes?", FORMAL),
    ("fr", "Tu veux enregistrer vos changements ?", "Do you want to save your changes?", MIXED),
    ("fr", "Assure-toi que ton appareil est connecté.", "Make sure your device is connected.", INFORMAL),
    ("fr", "Appuie sur une touche pour continuer.", "Press any key to continue.", INFORMAL),
    ("fr", "Fermer la fenêtre", "Close the window", NEUTRAL),
    ("fr", "Le ton du message a changé.", "The tone of the message changed.", NEUTRAL),
    ("fr", "Va-t-il redémarrer ?", "Will it restart?", NEUTRAL),
    ("fr", "Le serveur t'a envoyé un code.", "The server sent you a code.", INFORMAL),
    ("fr", "Dites-nous ce que tu penses.", "Tell us what you think.", MIXED),
    # German
    ("de", "Geben Sie Ihren Namen ein.", "Enter your name.", FORMAL),
    ("de", "Gib deinen Namen ein.", "Enter your name.", INFORMAL),
    ("de", "Bitte gib Ihren Namen ein.", "Please enter your name.", MIXED),
    ("de", "Sie müssen den Computer neu starten.", "You must restart the computer.", FORMAL),
    ("de", "Sie müssen den Computer neu starten.", "They must restart the computer.", NEUTRAL),
    ("de", "Ihr Passwort ist abgelaufen.", "Your password has expired.", FORMAL),
    ("de", "Ihr Passwort ist abgelaufen.", "Her password has expired.", NEUTRAL),
    ("de", "Wählen sie den Drucker.", "Select the printer.", FORMAL),
    ("de", "Klicke hier, um fortzufahren.", "Click here to continue.", INFORMAL),
    ("de", "Die Datei wurde gespeichert.", "The file has been saved.", NEUTRAL),
    ("de", "Hast du Ihr Passwort vergessen?", "Did you forget your password?", MIXED),
]


@pytest.mark.parametrize(("language", "text", "source", "expected"), CASES)
def test_reads_the_register_of_the_whole_output(language, text, source, expected):
    assert address.read(text, language, source) == expected, address.markers(text, language, source)


def test_markers_name_the_words_of_each_register_in_order():
    found = address.markers("Debes reiniciar su equipo.", "es", "You must restart your computer.")
    assert found == {FORMAL: ["su"], INFORMAL: ["Debes"]}
    found = address.markers("Bitte gib Ihren Namen ein.", "de-DE", "Please enter your name.")
    assert found == {FORMAL: ["Ihren"], INFORMAL: ["gib"]}


def test_without_the_source_only_unambiguous_words_count():
    assert address.read("¿Desea guardar los cambios?", "es") == NEUTRAL  # "desea" is "you" only if the English says so
    assert address.read("¿Deseas guardar los cambios?", "es") == INFORMAL
    assert address.read("Seleccione un archivo.", "es") == FORMAL


def test_a_language_without_rules_is_refused_by_name():
    with pytest.raises(ValueError, match="no register rules for 'sv'"):
        address.read("Vill du spara?", "sv")
