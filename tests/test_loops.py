"""No runaway output (issue 41): an output that loops is ended and flagged, in every decoder.

The loop rule is model/constraints.py's; these tests drive a model that loops on purpose
(loop_model.py) through the serving engine's greedy, sampling, beam search and transformers' beam
search, and through the PyTorch reference's greedy and beam search.
"""

from __future__ import annotations

import pytest
from loop_model import CONFIG, END, PLACEHOLDER, LoopModel, LoopRunner, PlaceholderTokenizer

from traductor.engine.request import FinishReason
from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import drive
from traductor.model.constraints import Constraints, longest_repeat, looped, looping
from traductor.model.generate import beam_search, greedy
from traductor.model.generation import GenerationConfig
from traductor.options import DecodingOptions, Limits, resolve

EOS = CONFIG.eos_id
LIMITS = Limits(max_input_tokens=64, max_new_tokens=64, max_beam_size=4)
MODES = {
    "greedy": DecodingOptions(),
    "sampling": DecodingOptions(temperature=1.0, seed=3),
    "beam": DecodingOptions(beam_size=3),
}


def decode(sources: list[list[int]], options: DecodingOptions, generation=None, rows: int = 16, tokenizer=None):
    """(tokens, reason) of each source through the serving scheduler over the looping model."""
    scheduler = Scheduler(LoopRunner(generation), tokenizer, max_rows=rows, max_queue=len(sources) + 1)
    work = [(s, [], resolve(options, len(s), LIMITS)) for s in sources]
    return [(e.token_ids, e.reason) for e in drive(scheduler, work)]


def test_looping_reads_the_end_of_the_output_only():
    assert looping([5, 7, 7, 7, 7], 4)
    assert looping([5, 7, 8, 7, 8, 7, 8, 7, 8], 4)
    assert not looping([7, 8, 7, 8, 7, 8, 7], 4)  # three units and a half
    assert not looping([7, 7, 7, 7, 5], 4)  # the loop ended by itself
    assert not looping([7] * 9, 10)
    assert not looping([7] * 9, 0)  # limit 0: the rule is off
    unit = list(range(10, 18))  # MAX_PERIOD tokens: still a unit
    assert looping(unit * 4, 4) and not looping(unit[:-1] + [9] + unit * 3, 4)


def test_looped_finds_a_loop_anywhere_in_the_output():
    for tokens in ([5, 7, 7, 7, 7], [5, 7, 7, 7, 7, 30, 31], [7, 8] * 4 + [30], list(range(10, 18)) * 4 + [30]):
        assert looped(tokens, 4)
        assert any(looping(tokens[:n], 4) for n in range(len(tokens) + 1))
    for tokens in ([7, 7, 7, 5, 7, 7, 7], [7, 8] * 3 + [7], [], [7] * 9):
        assert not looped(tokens, 4 if len(tokens) < 9 else 10)
    assert not looped([7] * 9, 0)


def test_the_limit_grows_with_what_the_source_repeats():
    c = Constraints(set(), EOS)
    assert longest_repeat([5, 6, 7]) == 1 and longest_repeat([5, 6, 5, 6, 5, 6, 9]) == 3
    assert c.repeat_limit([5, 6, 7, EOS]) == 4
    assert c.repeat_limit([6] * 5 + [EOS]) == 10  # "ha ha ha ha ha": the output may say it too


@pytest.mark.parametrize("mode", MODES)
def test_every_engine_mode_ends_a_loop_at_its_fourth_unit(mode):
    got = decode([[7, EOS], [7, 8, EOS], [9, 10, 11, EOS]], MODES[mode])
    assert got == [
        ([7] * 4, FinishReason.LOOP),
        ([7, 8] * 4, FinishReason.LOOP),
        ([9, 10, 11] * 4, FinishReason.LOOP),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_ordinary_outputs_end_as_before(mode):
    ha = [END] + [6] * 5  # the source repeats "6" five times: so may the translation
    got = decode([[END, 9, 10, 11, EOS], ha + [EOS]], MODES[mode])
    assert got == [([9, 10, 11], FinishReason.EOS), ([6] * 5, FinishReason.EOS)]


def test_transformers_beam_search_ends_a_loop_too():
    got = decode([[7, EOS], [END, 9, 10, EOS]], MODES["beam"], generation=GenerationConfig(beam="transformers"))
    assert got == [([7] * 4, FinishReason.LOOP), ([9, 10], FinishReason.EOS)]


def test_the_rule_yields_to_min_new_tokens_and_can_be_turned_off():
    (at_least,) = decode([[7, EOS]], DecodingOptions(min_new_tokens=10))
    assert at_least == ([7] * 10, FinishReason.LOOP)
    (off,) = decode([[7, EOS]], DecodingOptions(stop_loops=False))
    assert off == ([7] * (2 * 2 + 10), FinishReason.LENGTH)  # the automatic length limit: 2 x source + 10


def test_a_loop_the_source_allows_runs_to_the_length_limit():
    source = [6] * 5 + [9]  # a unit of 6 tokens said again and again: the source repeats "6" 5 times
    ((tokens, reason),) = decode([source + [EOS]], DecodingOptions())
    assert reason is FinishReason.LENGTH and len(tokens) == 2 * 7 + 10


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_the_pytorch_reference_ends_the_same_loops(search):
    sources = [[7, EOS], [7, 8, EOS], [END, 9, 10, 11, EOS]]
    if search == "greedy":
        out = greedy(LoopModel(), sources, max_new_tokens=30)
    else:
        out = beam_search(LoopModel(), sources, beam_size=3, max_new_tokens=30)
    assert out == [[7] * 4 + [EOS], [7, 8] * 4 + [EOS], [9, 10, 11, EOS]]
    options = DecodingOptions(max_new_tokens=30, beam_size=1 if search == "greedy" else 3)
    assert out == [tokens + [EOS] for tokens, _ in decode(sources, options)]  # the engine's, the same
    unstopped = greedy(LoopModel(), sources[:1], max_new_tokens=30, stop_loops=False)
    assert unstopped == [[7] * 30]


@pytest.mark.parametrize("mode", MODES)
def test_a_loop_that_owes_a_placeholder_gives_it_and_is_flagged(mode):
    ((tokens, reason),) = decode([[7, PLACEHOLDER, EOS]], MODES[mode], tokenizer=PlaceholderTokenizer())
    assert tokens[:5] == [7, 7, 7, 7, PLACEHOLDER] and tokens.count(PLACEHOLDER) == 1
    assert reason is FinishReason.LOOP and len(tokens) < 2 * 3 + 10
