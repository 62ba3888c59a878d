"""Anchor: Hugging Face Optimum + ONNX Runtime ``generate`` on the random Marian model.

What a user gets by exporting the model with Optimum and running it on ONNX Runtime:
the saved Transformers model is exported once with
``ORTModelForSeq2SeqLM.from_pretrained(model_dir, export=True)`` (an encoder, a
first-step decoder and a decoder *with past*, i.e. with a KV cache) and saved under
``<model_dir>/onnx-fp32``. It is then loaded with ONNX Runtime session options
``intra_op_num_threads=threads, inter_op_num_threads=1`` on the CPU provider and run
with ``generate(num_beams=1, do_sample=False, min_new_tokens=32, max_new_tokens=32)``.

Precisions:

* ``fp32``: the exported graphs.
* ``int8``: each of the three graphs quantized with Optimum's ``ORTQuantizer``,
  dynamic quantization (``is_static=False``), per-tensor, with the
  ``AutoQuantizationConfig`` matching the CPU (avx512_vnni, avx512 or avx2), saved
  under ``<model_dir>/onnx-int8``.

Optimum ONNX pins an older Transformers than the other anchors, so this script runs
in its own virtual environment (``work/venvs/optimum``, see ``benchmarks/setup.sh``).

    python benchmarks/anchor_optimum.py --shape 64,2,4,128,1000 --runs 1
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
import make_marian  # noqa: E402

ENGINE = "optimum"
PRECISIONS = ("fp32", "int8")
GRAPHS = ("encoder_model", "decoder_model", "decoder_with_past_model")
MARKER = "anchor-export.ok"


def export_fp32(model_dir: Path) -> Path:
    """Export the saved model to ONNX with Optimum once; return the folder."""
    from optimum.onnxruntime import ORTModelForSeq2SeqLM

    out = model_dir / "onnx-fp32"
    if not (out / MARKER).is_file():
        if out.exists():
            shutil.rmtree(out)
        common.log(f"[{ENGINE}] exporting {model_dir} -> {out}")
        model = ORTModelForSeq2SeqLM.from_pretrained(model_dir, export=True, use_cache=True)
        model.save_pretrained(out)
        (out / MARKER).write_text("ok\n")
    return out


def quantization_config():
    """Dynamic int8 configuration for the best instruction set this CPU has."""
    from optimum.onnxruntime.configuration import AutoQuantizationConfig

    flags = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags.update(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    if "avx512_vnni" in flags:
        return "avx512_vnni", AutoQuantizationConfig.avx512_vnni(is_static=False, per_channel=False)
    if "avx512f" in flags:
        return "avx512", AutoQuantizationConfig.avx512(is_static=False, per_channel=False)
    return "avx2", AutoQuantizationConfig.avx2(is_static=False, per_channel=False)


def export_int8(fp32_dir: Path, model_dir: Path) -> tuple[Path, str]:
    """Quantize each exported graph (dynamic int8) once; return the folder and the ISA."""
    from optimum.onnxruntime import ORTQuantizer

    out = model_dir / "onnx-int8"
    isa, qconfig = quantization_config()
    if not (out / MARKER).is_file():
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        common.log(f"[{ENGINE}] quantizing {fp32_dir} -> {out} ({isa}, dynamic)")
        for graph in GRAPHS:
            quantizer = ORTQuantizer.from_pretrained(fp32_dir, file_name=f"{graph}.onnx")
            quantizer.quantize(save_dir=out, quantization_config=qconfig)
        for name in ("config.json", "generation_config.json"):
            if (fp32_dir / name).is_file():
                shutil.copy(fp32_dir / name, out / name)
        (out / MARKER).write_text(isa + "\n")
    return out, isa


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_common_args(parser, PRECISIONS)
    args = parser.parse_args(argv)
    precisions = common.selected_precisions(args, PRECISIONS)

    import onnxruntime as ort
    import torch
    from optimum.onnxruntime import ORTModelForSeq2SeqLM

    torch.set_num_threads(args.threads)  # torch only glues the steps together here
    model_dir = make_marian.ensure_model(args.shape, args.seed, args.model_dir)
    fp32_dir = export_fp32(model_dir)
    settings = {
        "api": "ORTModelForSeq2SeqLM.generate",
        "intra_op_num_threads": args.threads,
        "inter_op_num_threads": 1,
        "provider": "CPUExecutionProvider",
        "decoder": "decoder_model + decoder_with_past_model (KV cache)",
    }
    models: dict[str, ORTModelForSeq2SeqLM] = {}

    def session_options() -> ort.SessionOptions:
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        options.inter_op_num_threads = 1
        return options

    def load(precision: str) -> ORTModelForSeq2SeqLM:
        if precision not in models:
            models.clear()  # keep one model in memory at a time
            if precision == "fp32":
                models[precision] = ORTModelForSeq2SeqLM.from_pretrained(
                    fp32_dir,
                    use_cache=True,
                    use_merged=False,
                    provider="CPUExecutionProvider",
                    session_options=session_options(),
                )
            else:
                int8_dir, isa = export_int8(fp32_dir, model_dir)
                settings["int8"] = f"ORTQuantizer dynamic, per-tensor, {isa}"
                models[precision] = ORTModelForSeq2SeqLM.from_pretrained(
                    int8_dir,
                    use_cache=True,
                    use_merged=False,
                    encoder_file_name="encoder_model_quantized.onnx",
                    decoder_file_name="decoder_model_quantized.onnx",
                    decoder_with_past_file_name="decoder_with_past_model_quantized.onnx",
                    provider="CPUExecutionProvider",
                    session_options=session_options(),
                )
        return models[precision]

    def make_generate(precision: str, batch: int):
        model = load(precision)
        input_ids = torch.from_numpy(common.source_ids(batch, args.shape, args.seed))
        attention_mask = torch.ones_like(input_ids)

        def generate() -> list[list[int]]:
            with torch.inference_mode():
                out = model.generate(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    num_beams=1,
                    do_sample=False,
                    min_new_tokens=common.NEW_TOKENS,
                    max_new_tokens=common.NEW_TOKENS,
                )
            return out[:, 1:].tolist()  # drop the decoder start token

        return generate

    doc = common.run_engine(
        ENGINE,
        args,
        precisions,
        make_generate,
        common.versions("optimum-onnx", "optimum", "onnxruntime", "onnx", "transformers", "torch", "numpy"),
    )
    doc["settings"] = settings
    common.emit(doc)
    return 0 if doc["results"] else 1


if __name__ == "__main__":
    sys.exit(main())
