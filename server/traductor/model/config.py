"""The model's dimensions and special token ids: one dataclass, no torch.

The trainer nests it in `TrainConfig`, a checkpoint's config.json stores it under "model", the
exporter copies it into the bundle, and the engine reads it back from there, so the serving
path knows the model's shape without importing torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

# The language pair of checkpoints and corpora made before it was recorded: English->Spanish.
LEGACY_LANGUAGES = {"source": "en", "target": "es"}


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 8000  # the trainer replaces it with the tokenizer's actual size
    d_model: int = 256
    n_heads: int = 4
    d_ff: int = 1024
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    dropout: float = 0.0  # the default model's recipe: its data are seen about twice, too few times to overfit
    max_len: int = 256  # longest source or target sequence, in tokens (BOS/EOS included)
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        """Build from a config.json "model" object; unknown, missing or ill-typed keys are a ValueError."""
        if not isinstance(data, dict):
            raise ValueError(f"the model config must be an object, got {type(data).__name__}")
        known = {f.name: f for f in fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise ValueError(f"unknown model config keys: {sorted(unknown)}")
        missing = set(known) - set(data)
        if missing:  # a config.json always holds every field; a gap means it was edited or cut
            raise ValueError(f"missing model config keys: {sorted(missing)}")
        for name, value in data.items():
            want = float if known[name].type == "float" else int
            if isinstance(value, bool) or not isinstance(value, (int, float) if want is float else int):
                raise ValueError(f"{name} must be {want.__name__}, got {value!r}")
        return cls(**data)
