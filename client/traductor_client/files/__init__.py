"""File translation: fill the untranslated units of a translation file, in its own format.

One package serves both ways in: ``traductor-client translate-file`` and ``traductor-client po``
(through gRPC ``TranslateBatch``, :mod:`.client`) and the HTTP API's ``POST /translate_file``
(through the server's engine). It never talks to the service itself:

    document = read(name, data, limits)     formats.py: size, XML safety, the format's reader
    job = Job(document)                     job.py: units to fill, distinct texts to send
    outcomes = <the caller translates job.requests>
    filled = job.finish(outcomes)           placeholders checked, translations written, review marked
    document.render(filled, language)       the file's bytes: everything not filled kept as read
    job.report                              units.py: filled, rejected, skipped... and why

Formats: gettext .po/.pot (gettext.py, polib; po_syntax.py refuses what msgfmt would), and
through translate-toolkit (toolkit.py, the base) XLIFF 1.2 and 2.0 and Qt .ts (bilingual.py),
Android strings.xml (android.py), JSON, SubRip .srt and text (monolingual.py), HTML (webpage.py)
and Markdown (markdown.py; markdown_inline.py sends Markdown as HTML). docs/files.md describes each.

A file comes back as it was read but for its translated texts (and what its format adds around
them: a new <target>, a review mark): XML through xmlsplice.py, the text formats through
textsplice.py, gettext line by line (gettext.py); translate-toolkit's own rewriting is only the
fallback of a file whose texts cannot be found in it.
"""

from __future__ import annotations

from traductor_client.files.errors import FileError
from traductor_client.files.formats import EXTENSIONS, Limits, read
from traductor_client.files.job import Document, Job, Outcome, outcome, split_edges
from traductor_client.files.units import Report, Unit

__all__ = [
    "EXTENSIONS",
    "Document",
    "FileError",
    "Job",
    "Limits",
    "Outcome",
    "Report",
    "Unit",
    "outcome",
    "read",
    "split_edges",
]
