"""Confidence per model (engine/confidence.py: THRESHOLDS, calibration): each packaged model's own
threshold, chosen on its own dev split, falls on LOW once its engine shifts its scores, so one
threshold flags on every interface; a model not listed, or an imported one, is left as it is."""

from __future__ import annotations

import math

import pytest

from traductor.engine import confidence as conf
from traductor.engine.bundle import load_bundle
from traductor.engine.bundle_config import Languages
from traductor.engine.translator import OnnxTranslator
from traductor.options import DecodingOptions


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def test_a_models_own_threshold_falls_on_low(monkeypatch):
    monkeypatch.setattr(conf, "THRESHOLDS", {"en-es": 0.75, "en-de": 0.62, "fr-en": 0.85})
    assert conf.calibration("en-es") == 0.0
    for pair, threshold in (("en-de", 0.62), ("fr-en", 0.85)):
        shift = conf.calibration(pair)
        for p in (0.05, threshold - 0.01, threshold + 0.01, 0.99):
            shifted = sigmoid(math.log(p / (1 - p)) + shift)
            assert conf.low(shifted) == (p < threshold), (pair, p)
    assert conf.calibration("en-de") > 0 > conf.calibration("fr-en")  # a lower threshold lifts the scores


def test_unlisted_and_imported_models_keep_the_scores(monkeypatch):
    monkeypatch.setattr(conf, "THRESHOLDS", {"en-de": 0.62})
    assert conf.calibration("en-it") == 0.0
    assert conf.calibration("en-de", own=False) == 0.0

    class Config:
        languages = Languages("en", "de")
        tokenizer = None

    assert conf.bundle_calibration(Config()) == conf.calibration("en-de") != 0.0
    Config.tokenizer = object()  # an imported model's tokenizer config
    assert conf.bundle_calibration(Config()) == 0.0


def test_the_shift_moves_the_logit_of_a_segments_score():
    source, tokens, logprobs = [5, 6, 7, 3], [8, 9, 10], [-0.4, -1.2, -0.3]
    plain = conf.confidence(source, tokens, logprobs, 3, False)
    lifted = conf.confidence(source, tokens, logprobs, 3, False, shift=1.0)
    assert lifted == pytest.approx(sigmoid(math.log(plain / (1 - plain)) + 1.0), abs=1e-3)
    assert conf.confidence(source, tokens, logprobs, 3, True, shift=5.0) == 0.0  # cut short: 0 whatever the shift


def test_an_engine_of_a_listed_model_gives_calibrated_confidences(tiny_bundle, monkeypatch):
    languages = load_bundle(tiny_bundle).config.languages
    pair = f"{languages.source}-{languages.target}"
    sources = [[5, 6, 7, 8, 3], [9, 10, 11, 3]]
    monkeypatch.setattr(conf, "THRESHOLDS", {})
    plain = [e.confidence for e in OnnxTranslator.load(tiny_bundle, threads=1).generate(sources, DecodingOptions())]
    monkeypatch.setattr(conf, "THRESHOLDS", {pair: 0.4})
    shift = conf.calibration(pair)
    events = OnnxTranslator.load(tiny_bundle, threads=1).generate(sources, DecodingOptions())
    for before, event in zip(plain, events):
        if before in (0.0, 1.0):
            assert event.confidence == before
        else:
            assert event.confidence == pytest.approx(sigmoid(math.log(before / (1 - before)) + shift), abs=1e-3)
