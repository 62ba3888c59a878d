"""The model's dimensions and special token ids: one dataclass, no torch.

The trainer nests it in `TrainConfig`, a checkpoint's config.json stores it under "model", the
exporter copies it into the bundle, and the engine reads it back from there, so the serving
path knows the model's shape without importing torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

ACTIVATIONS = ("relu", "swish", "gelu")
POSITIONS = ("interleaved", "halves", "fairseq")
CHOICES = {"activation": ACTIVATIONS, "positions": POSITIONS}
# Fields added after the first checkpoints were written: a config.json without them takes the default.
VARIANT_FIELDS = ("activation", "scale_embedding", "positions", "position_offset", "pre_norm", "tied_output")


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
    eos_id: int = 3  # bos_id is the decoder's first input token (Marian: pad_id, M2M100/NLLB: eos_id)
    # Variants of imported models (`traductor import`, docs/import.md); the defaults are the project's
    # own model, and a config.json written before they existed loads with them.
    activation: str = "relu"  # the feed-forward's: relu | swish | gelu
    scale_embedding: bool = True  # W_E[ids] * sqrt(d); False: W_E[ids]
    positions: str = "interleaved"  # sinusoid layout, see transformer.sinusoidal_positions
    position_offset: int = 0  # the table row of position 0 (M2M100: pad_id + 1)
    pre_norm: bool = False  # LN before each sublayer, and one more after the encoder and the decoder
    tied_output: bool = True  # the output projection is W_E^T; False: a matrix of its own

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name}={getattr(self, name)!r}; known: {', '.join(allowed)}")

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
        missing = set(known) - set(data) - set(VARIANT_FIELDS)
        if missing:  # a config.json always holds every field; a gap means it was edited or cut
            raise ValueError(f"missing model config keys: {sorted(missing)}")
        for name, value in data.items():
            want = {"float": float, "bool": bool, "str": str}.get(known[name].type, int)
            accepted = (int, float) if want is float else want
            if isinstance(value, bool) is not (want is bool) or not isinstance(value, accepted):
                raise ValueError(f"{name} must be {want.__name__}, got {value!r}")
        return cls(**data)
