"""The trainer's settings (`traductor train` flags), importable without torch.

The model's own sizes are a `ModelConfig` nested here (one definition, one set of defaults);
the rest says how to train it. `traductor train` has one flag per field of both, with the same
names as before (--d-model, --batch-tokens, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ..model.config import ModelConfig

# ModelConfig fields the trainer sets itself, never from a flag
FIXED_MODEL_FIELDS = ("pad_id", "unk_id", "bos_id", "eos_id")


PRECISIONS = ("auto", "bf16", "fp32")  # the trainer's; train.uses_bf16 says what each means here
INIT_VOCABS = ("init", "own")  # where a warm-started run's vocabulary comes from (TrainConfig.init_vocab)


@dataclass
class TrainConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    batch_tokens: int = 4000
    warmup: int = 400
    lr_scale: float = 0.5  # peak lr 1.6e-3 at d_model 256; 1.0 (3.1e-3) stalled in the pilots (docs/model-card.md)
    label_smoothing: float = 0.1
    max_steps: int = 100_000
    max_minutes: float = 48.0
    eval_every: int = 300
    seed: int = 1
    threads: int = 0  # per worker; 0: all cores, shared among the workers
    workers: int = 1  # data-parallel processes on the CPU (gradients averaged each update; see training/parallel.py)
    # "bf16": autocast matrix products to bfloat16 (weights stay fp32); "fp32"; "auto": bf16 where the
    # device computes it natively (a GPU, a CPU with AVX-512 BF16 or AMX), else fp32: on an AVX2 CPU
    # bf16 is emulated, and an update took 95 s instead of 5 s (docs/model-card.md)
    precision: str = "auto"
    init_from: str = ""  # a checkpoint to start from (its tokenizer, sizes and weights) instead of scratch
    # with init_from: "init" keeps its tokenizer; "own" trains one on this corpus and carries over the
    # embedding rows of the pieces both vocabularies have (state.transfer_weights), the rest start fresh
    init_vocab: str = "init"
    # a fresh model (new weights, sizes from the flags) with the tokenizer of this checkpoint: a bigger
    # model trained from scratch keeps the packaged model's vocabulary and control tokens
    tokenizer_from: str = ""
    # control tokens (model/controls.py, training/augment.py): the share of pairs whose reference has
    # a register that get its tag, and of pairs with a dictionary term that get it annotated; 0: none
    register_tags: float = 0.0
    term_annotations: float = 0.0
    device: str = "cpu"  # where the updates run: "cpu", or "cuda" / "cuda:N" on a machine with an NVIDIA GPU

    @classmethod
    def flat_fields(cls) -> list:
        """Every setting a flag can give: the model's sizes, then the training fields."""
        model = [f for f in fields(ModelConfig) if f.name not in FIXED_MODEL_FIELDS]
        return model + [f for f in fields(cls) if f.name != "model"]

    @classmethod
    def from_flat(cls, values: dict) -> TrainConfig:
        """Build from one flat mapping (flags, or keyword arguments) of model and training fields."""
        model_names = {f.name for f in fields(ModelConfig)}
        model = ModelConfig(**{k: v for k, v in values.items() if k in model_names})
        return cls(model=model, **{k: v for k, v in values.items() if k not in model_names})

    def to_dict(self) -> dict:
        """Flat, as checkpoints' config.json "training" has always been written."""
        out = self.model.to_dict()
        for name in FIXED_MODEL_FIELDS:
            out.pop(name)
        out.update({f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"})
        return out
