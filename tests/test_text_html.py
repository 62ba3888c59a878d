"""The text layer on HTML: markup kept exactly, text between tags translated, output well-formed."""

from __future__ import annotations

import re

import html5lib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from traductor.text import plan
from traductor.text.html import restore_markup, tokens


def tags(text: str) -> list[str]:
    """The sequence of tags, comments and declarations, as html.parser reads them."""
    return [raw for raw, sort, *_ in tokens(text) if sort not in ("text", "entity")]


def well_formed(text: str) -> None:
    """Raises unless `text` parses as an XML fragment (stricter than HTML) and as HTML5."""
    etree.fromstring(f"<root>{text}</root>".encode())
    html5lib.HTMLParser(strict=True).parseFragment(text)


_MARKUP = re.compile(r"(<[^>]*>|&[#\w]+;)|([^<&]+)")


def upper(p):
    """A 'translation' that upper-cases every letter outside the markup."""
    return p.assemble([_MARKUP.sub(lambda m: m.group(1) or m.group(2).upper(), s.text) for s in p.segments])


ISSUE = "<b>Warning:</b> the file <i>%s</i> is read-only."


def test_inline_tags_stay_inside_their_sentence():
    p = plan(ISSUE, "html")
    assert [s.text for s in p.segments] == [ISSUE]
    assert p.pieces[0].markers == ("<b>", "</b>", "<i>", "</i>")
    out = p.assemble(["<b>Aviso:</b> el fichero <i>%s</i> es de solo lectura."])
    assert out == "<b>Aviso:</b> el fichero <i>%s</i> es de solo lectura."
    well_formed(out)


def test_block_elements_split_segments_and_markup_comes_back_unchanged():
    text = (
        '<div class="note">\n  <h1 id="t">Title here</h1>\n  <p>First sentence. Second &amp; last.</p>'
        '<!-- a comment --><ul><li>One</li><li><a href="https://x.org/?a=1&amp;b=2" data-n="Not this">Two</a></li></ul>'
        "<br/>After break</div>"
    )
    p = plan(text, "html")
    assert [s.text for s in p.segments] == [
        "Title here",
        "First sentence.",
        "Second &amp; last.",
        "One",
        "Two",
        "After break",
    ]
    assert p.assemble([s.text for s in p.segments]) == text
    out = upper(p)
    assert tags(out) == tags(text)
    assert 'data-n="Not this"' in out and "SECOND &amp; LAST." in out and ">TWO</a>" in out
    well_formed(out)


PAGE = (
    '<head><meta name="description" content="A page &amp; more"><meta name="keywords" content="kept words"></head>'
    '<button aria-label="Close the dialog" title=\'Close it\' class="big">X</button>'
    '<input type=submit value=Send><input type="text" value="typed text" placeholder="Your name">'
    '<p>See <img src="cat.png" alt="A cat"> here.</p><div translate="no" title="Brand title">Brand</div>'
)


def test_the_attributes_people_see_or_hear_are_translated_where_they_stand():
    """issue 45: title, alt, aria-label, placeholder, a button's value and the page description,
    by markup.shown_attributes (the file readers' rule too); not a text field's value, other
    meta content, classes, or anything in a translate="no" element."""
    p = plan(PAGE, "html")
    assert [s.text for s in p.segments] == [
        "A page & more",  # references read: the model gets the text
        "Close the dialog",
        "Close it",
        "X",
        "Send",
        "Your name",
        "See",  # an inline tag with a shown attribute ends the sentence around it
        "A cat",
        "here.",
    ]
    out = p.assemble(
        ["Une page & plus", 'Fermer "le" dialogue', "L'ouvrir", "X", "Envoyer", "Votre nom", "Voir", "Un chat", "ici."]
    )
    assert '<meta name="description" content="Une page &amp; plus">' in out
    assert 'aria-label="Fermer &quot;le&quot; dialogue" title=\'L&#39;ouvrir\' class="big">X</button>' in out
    assert '<input type=submit value="Envoyer">' in out  # an unquoted value gets quotes
    assert '<input type="text" value="typed text" placeholder="Votre nom">' in out
    assert '<p>Voir <img src="cat.png" alt="Un chat"> ici.</p>' in out
    assert '<meta name="keywords" content="kept words">' in out and 'title="Brand title">Brand</div>' in out
    # the values changed, nothing else: the tags without attributes are the same
    assert [t for t in tags(out) if "=" not in t] == [t for t in tags(PAGE) if "=" not in t]
    identity = p.assemble([s.text for s in p.segments])
    assert identity == PAGE.replace("value=Send", 'value="Send"')


@pytest.mark.parametrize(
    "text, segments",
    [
        ("<p><a href='x'><b> Click here. </b></a></p>", ["Click here."]),  # wrapping tags stay outside
        ("<b>One. Two.</b>", ["One.", "Two."]),  # an element around two sentences
        ("<span><img src=x> Hi</span>", ["Hi"]),
        ("<b>One</b> and <b>two</b>", ["<b>One</b> and <b>two</b>"]),  # not one wrapping pair
        (ISSUE, [ISSUE]),
    ],
)
def test_tags_at_the_edges_of_a_sentence_stay_out_of_the_segment(text, segments):
    p = plan(text, "html")
    assert [s.text for s in p.segments] == segments
    assert p.assemble([s.text for s in p.segments]) == text


def test_script_style_code_and_pre_are_not_translated():
    """Blocks (pre, script, style, a translate="no" paragraph) are separators; an inline kept
    element (code) is one marker inside its sentence, which the model gets as a stand-in."""
    text = (
        "<p>Run <code>ls -l. Then</code> now.</p><pre>  Keep\n  this. Text</pre>"
        "<script>if (a < b) { x = '<b>'; }</script><style>p { color: red; }</style>"
        '<p translate="no">Brand Name. Here</p><p>Done.</p>'
    )
    p = plan(text, "html")
    assert [s.text for s in p.segments] == ["Run <var/> now.", "Done."]
    out = p.assemble(["EJECUTA <var/> AHORA.", "HECHO."])
    assert out == text.replace("Run <", "EJECUTA <").replace("> now.", "> AHORA.").replace("Done.", "HECHO.")
    extra = p.assemble(["<var/> <var/> EJECUTA", "HECHO."])  # the extra copy dropped
    assert extra.startswith("<p><code>ls -l. Then</code>  EJECUTA</p>")


@pytest.mark.parametrize(
    "text, model_text, translation, out",
    [
        (  # Android's <xliff:g>: one marker, its content (a placeholder) kept
            'Hello <xliff:g id="user">%1$s</xliff:g>, welcome back.',
            "Hello <var/>, welcome back.",
            "Hola <var/>, bienvenido.",
            'Hola <xliff:g id="user">%1$s</xliff:g>, bienvenido.',
        ),
        (  # a tag the model's rules do not know: a stand-in it does
            "Press <mark>Save</mark> now.",
            "Press <span>Save</span> now.",
            "Pulsa <span>Guardar</span> ya.",
            "Pulsa <mark>Guardar</mark> ya.",
        ),
        (  # an inline translate="no" element and a known tag side by side
            'Open <span translate="no">Foo Bar</span> in <b>two</b> steps.',
            "Open <var/> in <b>two</b> steps.",
            "Abre <var/> en <b>dos</b> pasos.",
            'Abre <span translate="no">Foo Bar</span> en <b>dos</b> pasos.',
        ),
    ],
)
def test_markers_the_model_would_not_keep_go_as_stand_ins_and_come_back(text, model_text, translation, out):
    p = plan(text, "html")
    assert [s.text for s in p.segments] == [model_text]
    assert p.assemble([translation]) == out
    assert p.assemble([s.text for s in p.segments]) == text  # the identity gives the source back
    well_formed(out.replace("xliff:g", "g"))


@pytest.mark.parametrize("fmt", ["text", "html"])
@pytest.mark.parametrize("empty", ["", "   ", "<ph0>", "%s --help  ", "<b></b> ."])
def test_a_segment_that_comes_back_with_nothing_keeps_its_source(fmt, empty):
    text = "Cannot open %s --help. <b>Saved</b> now."
    p = plan(text, fmt)
    assert len(p.segments) == 2
    translations = [empty.replace("<ph0>", ""), "Guardado ya."]
    assert p.untranslated(translations) == [0]
    assert p.assemble(translations).startswith("Cannot open %s --help. ")


def test_markup_is_restored_in_source_order_where_the_translation_has_it():
    markers = ("<b>", "</b>", "<i>", "</i>")
    assert restore_markup(markers, "</b>Aviso:<b> el <i>%s</i>") == "<b>Aviso:</b> el <i>%s</i>"
    assert restore_markup(markers, "Aviso: el %s") == "Aviso: el %s<b></b><i></i>"  # lost: at the end
    assert restore_markup(markers, "<b><b>A</b> <i>x</i></b>") == "<b>A</b> <i>x</i>"  # extra copies dropped
    assert restore_markup(markers, "<i>A</i> <b>x</b>") == "<b>A</b> <i>x</i>"  # reordered: places kept
    assert restore_markup((), "a < b & c <script>&amp;") == "a &lt; b &amp; c &lt;script>&amp;amp;"


def test_a_plain_text_request_with_angle_brackets_is_left_alone():
    p = plan("Use <file> or <b>bold</b>. Next.", "text")
    assert [s.text for s in p.segments] == ["Use <file> or <b>bold</b>.", "Next."]
    assert p.assemble(["X", "Y"]) == "X Y"


def test_entities_and_whitespace():
    text = "<p>\n   Caf&eacute; &#233;t&eacute;.\n   Second\n   line here.\n</p>"
    p = plan(text, "html")
    assert [s.text for s in p.segments] == ["Caf&eacute; &#233;t&eacute;.", "Second line here."]
    assert p.assemble(["Café été.", "b"]) == "<p>\n   Café été.&eacute;&#233;&eacute;\n   b\n</p>"


_words = st.sampled_from(
    ["Hello", "file", "%s", "42", "e.g.", "now.", "Next!", " ", "\n", "&amp;", "&#233;", "a &lt; b", "x"]
)
_inline = st.sampled_from(["b", "i", "a", "span", "em", "code"])


@st.composite
def inline(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth >= 3 or draw(st.booleans()):
            parts.append(draw(_words))
        elif draw(st.integers(0, 4)) == 0:
            parts.append("<br/>")
        else:
            tag = draw(_inline if depth == 0 else _inline.filter(lambda t: t != "a"))  # no <a> in <a>
            attr = ' href="https://x.org/a?b=1&amp;c=2"' if tag == "a" else ""
            parts.append(f"<{tag}{attr}>{draw(inline(depth + 1))}</{tag}>")
    return "".join(parts)


@st.composite
def html_fragments(draw):
    """Well-formed HTML: inline content, and block elements (p, div, h2, blockquote) around it."""
    blocks = draw(
        st.lists(st.tuples(st.sampled_from(["", "p", "div", "h2", "blockquote"]), inline()), min_size=1, max_size=4)
    )
    return "".join(f"<{tag}>{body}</{tag}>" if tag else body for tag, body in blocks)


@settings(max_examples=200, deadline=None)
@given(html_fragments(), st.sampled_from(["keep", "upper", "shuffle", "drop"]))
def test_any_translation_of_well_formed_html_is_well_formed_with_the_same_tags(text, how):
    p = plan(text, "html", max_segment_chars=15)
    if how == "keep":
        out = p.assemble([s.text for s in p.segments])
    elif how == "upper":
        out = upper(p)
    elif how == "shuffle":  # the model moved the markup around and added a stray "<"
        out = p.assemble([" ".join(reversed(s.text.split(" "))) + " <x & y" for s in p.segments])
    else:  # the model lost every tag
        out = p.assemble(["sin marcas" for _ in p.segments])
    well_formed(text)
    well_formed(out)
    assert tags(out) == tags(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"<>&;/!-=\"' \nab.", "<b>", "</b>", "<p>", "<!--", "-->", "<script>", "&amp;", "Hi. "]),
        max_size=40,
    ).map("".join)
)
def test_malformed_html_never_crashes_and_keeps_its_markup(text):
    p = plan(text, "html", max_segment_chars=8)
    out = p.assemble([s.text for s in p.segments])
    assert tags(out) == tags(text)
    assert p.assemble(["x" for _ in p.segments]).count("<") <= text.count("<")
