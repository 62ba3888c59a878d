"""What POST /v2/translate takes: every parameter DeepL documents for it, each honoured, accepted
with no effect (docs/deepl-api.md says why for each), or refused with DeepL's 400 naming it; a
parameter DeepL does not document is refused naming it (nothing a caller sends is silently dropped).

    honoured        text, source_lang, target_lang, formality, glossary_id, glossary_ids (one id),
                    tag_handling, ignore_tags, model_type (answered by model_type_used),
                    show_billed_characters (false: no billed_characters), auth_key (the key)
    no effect       split_sentences, preserve_formatting (the text layer always splits sentences
                    and keeps the text's formatting), context, outline_detection,
                    non_splitting_tags, splitting_tags, tag_handling_version, enable_beta_languages
                    (their values are still checked)
    refused         custom_instructions, style_id, translation_memory_id,
                    translation_memory_threshold (when given a value: the models take no
                    instructions, there are no style rules or translation memories), glossary_ids
                    of more than one id

The official `deepl` client sends `show_billed_characters: true` with every call, and each of the
others only when its caller asks. This module reads parameters only: deepl.py acts on them.
"""

from __future__ import annotations

from ...errors import InvalidInput
from .deepl_params import Values, tag_names

MODEL_TYPES = ("quality_optimized", "prefer_quality_optimized", "latency_optimized")
MODEL_TYPE_USED = "latency_optimized"  # one model per pair, of the size DeepL's classic models are (docs)
TAG_HANDLING_VERSIONS = ("v1", "v2")
HONOURED = (
    "text",
    "source_lang",
    "target_lang",
    "formality",
    "glossary_id",
    "glossary_ids",
    "tag_handling",
    "ignore_tags",
    "model_type",
    "show_billed_characters",
    "auth_key",
)
NO_EFFECT = (
    "split_sentences",
    "preserve_formatting",
    "context",
    "outline_detection",
    "non_splitting_tags",
    "splitting_tags",
    "tag_handling_version",
    "enable_beta_languages",
)
REFUSED = {
    "custom_instructions": "this server's models translate without instructions",
    "style_id": "this server has no style rules",
    "translation_memory_id": "this server has no translation memories",
    "translation_memory_threshold": "this server has no translation memories",
}
KNOWN = (*HONOURED, *NO_EFFECT, *REFUSED)


def check(values: Values) -> None:
    """Every parameter of a /v2/translate call known and its value usable (400 naming it)."""
    unknown = sorted(name for name in values.items if name not in KNOWN)
    if unknown:
        raise InvalidInput(
            f"Parameter '{unknown[0]}' not supported: /v2/translate takes {', '.join(KNOWN)} (docs/deepl-api.md)"
        )
    for name, why in REFUSED.items():
        given = [v for v in values.all(name) if v not in (None, "", [])]
        if given:
            raise InvalidInput(f"Value for '{name}' not supported: {why} (docs/deepl-api.md)")
    for name in ("outline_detection", "enable_beta_languages", "show_billed_characters"):
        values.flag(name)
    for name in ("non_splitting_tags", "splitting_tags"):
        tag_names(values, name)
    version = values.one("tag_handling_version")
    if version not in (None, "", *TAG_HANDLING_VERSIONS):
        known = ", ".join(TAG_HANDLING_VERSIONS)
        raise InvalidInput(f"Value for 'tag_handling_version' not supported (supported: {known}).")
    for name in ("context", "auth_key", "glossary_id"):  # null: absent
        if values.one(name) is not None and not isinstance(values.one(name), str):
            raise InvalidInput(f"Value for '{name}' not supported: a string expected")
    model_type(values)


def model_type(values: Values) -> str | None:
    """The model_type_used to answer: None when no `model_type` was sent (DeepL then says none)."""
    asked = values.one("model_type")
    if asked in (None, ""):
        return None
    if asked not in MODEL_TYPES:
        raise InvalidInput(f"Value for 'model_type' not supported (supported: {', '.join(MODEL_TYPES)}).")
    return MODEL_TYPE_USED


def glossary_id(values: Values) -> object:
    """The one glossary of the call: `glossary_id`, or `glossary_ids` naming one (a JSON list, or
    comma-separated in a form, as DeepL takes it)."""
    ids = [i.strip() if isinstance(i, str) else i for v in values.all("glossary_ids") for i in _split(v)]
    ids = [i for i in ids if i not in (None, "")]
    if not ids:
        return values.one("glossary_id")
    if values.one("glossary_id") not in (None, ""):
        raise InvalidInput("Value for 'glossary_ids' not supported: give glossary_id or glossary_ids, not both")
    if len(ids) > 1:
        raise InvalidInput("Value for 'glossary_ids' not supported: this server applies one glossary to a call")
    return ids[0]


def _split(value: object) -> list:
    return value.split(",") if isinstance(value, str) else [value]
