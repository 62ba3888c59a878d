"""The verifier (text/verify.py): every output segment against its source. The failures issue 53
reported, each repaired where the repair is certain and flagged (named) where it is not; outputs
that are right pass untouched."""

import pytest

from traductor.text.verify import Verdict, holds_anything, verify

REPAIRED = [
    # (language, source, output, repaired output, the check that repaired it)
    (
        "es",
        "Set %APPDATA% to the folder.",
        "Establecer %APDATA% a la carpeta.",
        "Establecer %APPDATA% a la carpeta.",
        "spans",
    ),
    (
        "fr",
        "The color is #ff0000 by default.",
        "La couleur est #ff000 par défaut.",
        "La couleur est #ff0000 par défaut.",
        "spans",
    ),
    (
        "es",
        "It listens on 127.0.0.1:5000 now.",
        "Escucha en 127.0.0.1:500 ahora.",
        "Escucha en 127.0.0.1:5000 ahora.",
        "spans",
    ),
    ("es", "Use -o FILE here", "Use -o FICHERO aquí", "Use -o FILE aquí", "spans"),
    (
        "es",
        "$(EXIF.EXPOSURE) - EXIF exposure",
        "EXIF.EXPOSURE) – exposición EXIF",
        "$(EXIF.EXPOSURE) – exposición EXIF",
        "spans",
    ),
    ("es", "Copy %s now", "Copiar %s %d ahora", "Copiar %s ahora", "spans"),  # a placeholder the source lacks
    ("es", "Copy %s now", "Copiar %s %s ahora", "Copiar %s ahora", "spans"),  # one copy too many
    ("es", "The file is 10\u00a0MB.", "El archivo es 10 MB.", "El archivo es 10\u00a0MB.", "spaces"),
    ("de", "Delete this note\u00a0?", "Diese Notiz löschen?", "Diese Notiz löschen\u00a0?", "spaces"),
    ("es", "Delete this note\u00a0?", "¿Eliminar esta nota\u00a0\u00a0?", "¿Eliminar esta nota\u00a0?", "spaces"),
    ("es", "Save\u200bnow", "Guardar\u200b\u200bahora", "Guardar\u200bahora", "spaces"),
    ("es", "Save the file", "Guardar  el archivo", "Guardar el archivo", "doublespacing"),
    ("es", "Save the file", " Guardar el archivo ", "Guardar el archivo", "edges"),
    ("es", "<em>font size</em>", "<em>el tamaño de la</em> fuente", "<em>el tamaño de la fuente</em>", "markup"),
    (
        "es",
        'Click <a href="x">here</a> now.',
        'Haga clic <a href="x">aquí </a>ahora.',
        'Haga clic <a href="x">aquí</a> ahora.',
        "markup",
    ),
]


@pytest.mark.parametrize("language,source,output,fixed,check", REPAIRED)
def test_a_certain_repair_is_made_and_counted(language, source, output, fixed, check):
    verdict = verify(source, output, language)
    assert verdict == Verdict(fixed, (check,), ())


def test_a_space_moved_out_of_a_tag_leaves_no_double_space():
    verdict = verify("uno <b>dos</b> tres", "C <b> B</b> A", "es")
    assert verdict == Verdict("C <b>B</b> A", ("markup", "doublespacing"), ())


FLAGGED = [
    # (language, source, output, a check it must fail)
    ("es", "Delete this note\u00a0?", "¿Eliminar esta nota\u00a0\u00a0▸", "endpunc"),  # the ▸ is no repair
    ("es", "%llu / %llu blocks (%d%%)", "%llu / %s Block %s) (%s)", "spans"),  # a %llu lost
    ("es", "%llu / %llu blocks (%d%%)", "%llu / %s Block %s) (%s)", "printf"),
    ("es", "Read https://example.com/a first", "Lea primero", "spans"),  # a span dropped altogether
    ("es", "Read https://example.com/a first", "Lea primero", "urls"),
    ("es", "Wait 15 seconds", "Espere 16 segundos", "numbers"),
    ("es", "Open the file.", "Abrir el archivo see.example.org", "spans"),  # a span the source lacks
    ("es", "Line one\nline two", "Línea uno línea dos", "newlines"),
]


@pytest.mark.parametrize("language,source,output,check", FLAGGED)
def test_an_uncertain_failure_is_flagged_by_name(language, source, output, check):
    assert check in verify(source, output, language).failed


@pytest.mark.parametrize(
    "language,source,output",
    [
        ("fr", "Are you sure?", "Êtes-vous sûr ?"),  # French typography: its own no-break space is fine
        ("fr", "Are you sure?", "Êtes-vous sûr\u00a0?"),
        ("es", "Are you sure?", "¿Está seguro?"),
        ("fr", "Copy 1,000 files (3.5 GB)", "Copier 1 000 fichiers (3,5 Go)"),  # numbers localized
        ("es", "Press OK to continue, e.g. now.", "Pulse Aceptar para continuar, p.ej. ahora."),
        ("es", "Set %APPDATA% and open <b>x86_64</b>.", "Defina %APPDATA% y abra <b>x86_64</b>."),
        ("de", "Press Ctrl+Shift+T.", "Drücken Sie Strg+Umschalt+T."),  # key names are localized
    ],
)
def test_a_right_output_passes_untouched(language, source, output):
    assert verify(source, output, language) == Verdict(output)


def test_without_repair_a_failure_is_a_flag_and_the_text_is_kept():
    """A segment already streamed cannot change: its failure is flagged instead of repaired."""
    verdict = verify("Set %APPDATA% now.", "Defina %APDATA% ahora.", "es", repair=False)
    assert verdict.text == "Defina %APDATA% ahora." and "spans" in verdict.failed and not verdict.repaired


def test_which_sources_hold_something_to_repair():
    assert holds_anything("10\u00a0MB") and holds_anything("open %s") and holds_anything("<b>x</b> y")
    assert not holds_anything("Save the file.")


@pytest.mark.parametrize(
    "source, output, sent",
    [
        ("Save the file", "Guardar  el   archivo ", "Guardar el archivo"),  # runs made one, the last space held
        ("Save  the file", "Guardar  el archivo", "Guardar  el archivo"),  # the source has a run: kept
        ("Open", "  Abrir  ", "  Abrir"),  # leading spaces are the edges check's, not this one's
        ("Open it", "Abrir  \nlo", "Abrir  \nlo"),  # spaces before a line break are no run between words
        ("Open it", "Abrir \t  lo", "Abrir \t  lo"),  # a tab breaks the run
        ("Open", "   ", ""),  # only spaces: nothing sent until a word comes
    ],
)
def test_a_stream_sends_each_prefix_as_the_verifier_will_leave_it(source, output, sent):
    """text/verify.streamable: for every prefix the model could have decoded so far, what is sent
    begins with what was sent before, and the verifier's repair of the whole output (STREAM_REPAIRS,
    as for a streamed segment) begins with all of it: nothing sent is ever taken back."""
    from traductor.text.verify import STREAM_REPAIRS, streamable

    before = ""
    final = verify(source, output, "es", STREAM_REPAIRS)
    for end in range(len(output) + 1):
        now = streamable(source, output[:end])
        assert now.startswith(before) and final.text.startswith(now), (output[:end], now, final.text)
        before = now
    assert before == sent and "doublespacing" not in final.failed
    assert verify(source, output, "es", frozenset()).failed == verify(source, output, "es", False).failed
