"""How an imported model is decoded: the rules transformers' `generate()` applies to it, torch-free.

The project's own models are decoded by the project's rules (model/constraints.py, and the beam
search of engine/selection.py). A model imported from transformers (`traductor import`) must give
the tokens `generate()` gives, so its bundle carries a `GenerationConfig`, read from its
generation_config.json:

    suppressed_ids       never generated: `bad_words_ids` of one token each (Marian's PAD)
    forced_eos_at_limit  the last token a length limit allows is EOS (`forced_eos_token_id`)
    renormalize          beam search: log-softmax again after the rules (`renormalize_logits`, which
                         OPUS-MT's generation configs set)
    beam                 "traductor" (engine/selection.py) or "transformers" (engine/beam_transformers.py:
                         2K candidates a step, finished hypotheses scored by sum log p / length**length_penalty,
                         `early_stopping` as transformers reads it)

and the request names the forced first token (`forced_bos_token_id`: NLLB's target language),
which the tokenizer knows. `apply_rules` applies them to one step's scores, numpy or torch alike.
This module does not know where a config came from or which engine runs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

BEAMS = ("traductor", "transformers")


@dataclass(frozen=True)
class GenerationConfig:
    beam: str = "traductor"
    length_penalty: float = 1.0
    early_stopping: bool = False
    suppressed_ids: tuple[int, ...] = ()
    forced_eos_at_limit: bool = False
    renormalize: bool = False

    def __post_init__(self):
        if self.beam not in BEAMS:
            raise ValueError(f"beam={self.beam!r}; known: {', '.join(BEAMS)}")

    def to_dict(self) -> dict:
        out = asdict(self)
        out["suppressed_ids"] = list(self.suppressed_ids)
        return out

    @classmethod
    def from_dict(cls, data) -> GenerationConfig:
        """From a bundle's "generation" object; a ValueError names the field that is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"must be an object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown keys: {sorted(unknown)}")
        checks = {
            "beam": lambda v: isinstance(v, str),
            "length_penalty": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "early_stopping": lambda v: isinstance(v, bool),
            "suppressed_ids": lambda v: isinstance(v, list) and all(type(i) is int for i in v),
            "forced_eos_at_limit": lambda v: isinstance(v, bool),
            "renormalize": lambda v: isinstance(v, bool),
        }
        for name, value in data.items():
            if not checks[name](value):
                raise ValueError(f"{name}: bad value {value!r}")
        values = dict(data)
        if "suppressed_ids" in values:
            values["suppressed_ids"] = tuple(values["suppressed_ids"])
        if "length_penalty" in values:
            values["length_penalty"] = float(values["length_penalty"])
        return cls(**values)


def apply_rules(
    scores, generated: int, limit: int, forced_first: int | None, config: GenerationConfig, eos_id: int
) -> None:
    """Apply the rules to one step's scores (R, V) in place (logits, or log-probabilities: beam
    search applies them after the log-softmax, as transformers does), for rows that have all
    generated `generated` tokens of at most `limit`. A forced token scores 0, every other -inf."""
    if config.suppressed_ids:
        scores[:, list(config.suppressed_ids)] = float("-inf")
    for token, due in ((forced_first, generated == 0), (eos_id, config.forced_eos_at_limit and generated == limit - 1)):
        if due and token is not None:
            scores[:] = float("-inf")
            scores[:, token] = 0.0
