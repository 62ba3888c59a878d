"""Pure pieces of the client: percentile/rate arithmetic, options, retry policy, health wire
format and error mapping. No server involved."""

from __future__ import annotations

import math
import random

import grpc
import pytest
from grpc_health.v1 import health_pb2

from traductor_client import errors, health, options
from traductor_client.loadtest import inputs
from traductor_client.loadtest.runner import Workload
from traductor_client.loadtest.stats import distribution, per_second, percentile, poisson_arrivals, stream_slot
from traductor_client.retry import Deadline, RetryPolicy, next_delay


# -- percentiles ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "values, p, expected",
    [
        ([1, 2, 3, 4], 50, 2.5),  # even count: mean of the middle two
        ([1, 2, 3, 4, 5], 50, 3.0),  # odd count: the middle value
        (list(range(1, 11)), 90, 9.1),  # rank 0.9 * 9 = 8.1 -> 9 + 0.1 * (10 - 9)
        (list(range(1, 11)), 99, 9.91),
        (list(range(1, 101)), 99, 99.01),
        ([10, 20], 25, 12.5),
        ([7], 99, 7.0),  # a single value is every percentile
        ([1, 2, 3], 0, 1.0),
        ([1, 2, 3], 100, 3.0),
    ],
)
def test_percentile_linear_interpolation(values, p, expected):
    assert percentile(values, p) == pytest.approx(expected)


def test_percentile_rejects_empty_and_out_of_range():
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_distribution_sorts_and_handles_empty():
    summary = distribution([4.0, 1.0, 3.0, 2.0])
    assert summary == {
        "count": 4,
        "mean": 2.5,
        "p50": 2.5,
        "p90": pytest.approx(3.7),
        "p99": pytest.approx(3.97),
        "max": 4.0,
    }
    assert distribution([], points=(50, 99)) == {"count": 0, "mean": None, "p50": None, "p99": None, "max": None}


# -- rates ------------------------------------------------------------------------------------
def test_per_second():
    assert per_second(50, 2.0) == 25.0
    assert per_second(0, 0.0) == 0.0
    assert per_second(3, 0.0) is None
    with pytest.raises(ValueError):
        per_second(1, -1.0)


def test_poisson_arrivals_have_the_requested_rate():
    rate = 40.0
    arrivals = poisson_arrivals(rate, random.Random(7))
    times = [next(arrivals) for _ in range(20000)]
    assert all(b > a for a, b in zip(times, times[1:]))
    gaps = [b - a for a, b in zip([0.0] + times, times)]
    mean_gap = sum(gaps) / len(gaps)
    assert mean_gap == pytest.approx(1 / rate, rel=0.03)
    # exponential gaps: the standard deviation equals the mean
    std = math.sqrt(sum((g - mean_gap) ** 2 for g in gaps) / len(gaps))
    assert std == pytest.approx(mean_gap, rel=0.05)
    # same seed, same schedule
    again = poisson_arrivals(rate, random.Random(7))
    assert [next(again) for _ in range(5)] == times[:5]


@pytest.mark.parametrize("fraction, n, expected", [(0.5, 20, 10), (0.25, 8, 2), (0.0, 9, 0), (1.0, 9, 9), (0.3, 10, 3)])
def test_stream_slot_gives_the_exact_mix(fraction, n, expected):
    assert sum(stream_slot(i, fraction) for i in range(n)) == expected


# -- inputs -----------------------------------------------------------------------------------
def test_inputs_tsv_first_column_and_blank_lines():
    assert inputs.parse_lines(["Hello\tHola", "", "  ", "Bye\n"]) == ["Hello", "Bye"]


def test_builtin_sentences_are_shipped():
    texts = inputs.load_texts()
    assert len(texts) >= 150
    assert any("%s" in t for t in texts) and any("--" in t for t in texts)


def test_workload_plan_cycles_through_texts_and_is_reproducible():
    texts = ["a", "b", "c", "d"]
    workload = Workload(texts, stream_fraction=0.5, seed=3)
    plans = [workload.plan(i) for i in range(40)]
    for cycle in range(10):  # every cycle sends each text exactly once
        assert sorted(text for text, _ in plans[cycle * 4 : (cycle + 1) * 4]) == texts
    assert sum(stream for _, stream in plans) == 20
    assert plans == [Workload(texts, stream_fraction=0.5, seed=3).plan(i) for i in range(40)]
    assert plans != [Workload(texts, stream_fraction=0.5, seed=4).plan(i) for i in range(40)]
    # the mix is not tied to the text: every text is sent both ways over the run
    for text in texts:
        assert {stream for t, stream in plans if t == text} == {True, False}


# -- options ----------------------------------------------------------------------------------
def test_options_only_given_fields_are_set():
    message = options.to_pb({"max_new_tokens": 5, "temperature": 1, "beam_size": None})
    assert message.HasField("max_new_tokens") and message.max_new_tokens == 5
    assert message.HasField("temperature") and message.temperature == 1.0
    assert not message.HasField("beam_size") and not message.HasField("top_p")
    assert options.from_pb(message) == {"max_new_tokens": 5, "temperature": 1.0}


@pytest.mark.parametrize(
    "bad", [{"beam": 4}, {"beam_size": "4"}, {"beam_size": True}, {"return_scores": 1}, {"temperature": "hot"}]
)
def test_options_reject_unknown_names_and_wrong_types(bad):
    with pytest.raises(TypeError):
        options.to_pb(bad)


def test_options_reject_int32_overflow():
    with pytest.raises(ValueError):
        options.to_pb({"max_new_tokens": 2**40})


# -- retry policy -----------------------------------------------------------------------------
def test_backoff_is_exponential_capped_and_jittered():
    policy = RetryPolicy(initial_backoff=0.1, multiplier=2, max_backoff=0.5)
    assert [policy.backoff_cap(n) for n in (1, 2, 3, 4, 5)] == pytest.approx([0.1, 0.2, 0.4, 0.5, 0.5])
    rng = random.Random(1)
    draws = [policy.backoff(3, rng) for _ in range(2000)]
    assert all(0 <= d <= 0.4 for d in draws)
    assert sum(draws) / len(draws) == pytest.approx(0.2, rel=0.1)  # full jitter: mean cap/2


def test_next_delay_only_for_unavailable_and_within_limits():
    policy = RetryPolicy(max_attempts=3, initial_backoff=0.01)
    rng = random.Random(0)
    unavailable, invalid = errors.Unavailable("down"), errors.InvalidArgument("bad")
    no_deadline = Deadline(None)
    assert next_delay(policy, 1, unavailable, no_deadline, rng) is not None
    assert next_delay(policy, 2, unavailable, no_deadline, rng) is not None
    assert next_delay(policy, 3, unavailable, no_deadline, rng) is None  # attempts used up
    for code in grpc.StatusCode:
        if code is not grpc.StatusCode.UNAVAILABLE:
            assert next_delay(policy, 1, errors.error_for(code), no_deadline, rng) is None
    assert next_delay(policy, 1, invalid, no_deadline, rng) is None
    # a backoff that would not fit in what is left of the deadline is not attempted
    slow = RetryPolicy(initial_backoff=100.0, max_backoff=100.0)
    assert next_delay(slow, 1, unavailable, Deadline(0.001), random.Random(5)) is None


# -- health wire format (checked against grpc_health's generated messages) --------------------
@pytest.mark.parametrize("service", ["", "traductor.v1.Translator", "x" * 300, "ñandú"])
def test_health_request_encoding_matches_protobuf(service):
    expected = health_pb2.HealthCheckRequest(service=service).SerializeToString()
    assert health.encode_check_request(service) == expected


@pytest.mark.parametrize("status", [0, 1, 2, 3])
def test_health_response_decoding_matches_protobuf(status):
    data = health_pb2.HealthCheckResponse(status=status).SerializeToString()
    assert health.decode_check_response(data) == status


def test_health_response_skips_unknown_fields():
    # field 2 (string "hi"), field 3 (fixed32), then status = NOT_SERVING
    data = b"\x12\x02hi" + b"\x1d\x00\x00\x00\x00" + b"\x08\x02"
    assert health.decode_check_response(data) == 2
    with pytest.raises(ValueError):
        health.decode_check_response(b"\x08")  # truncated varint
    assert health.status_name(1) == "SERVING" and health.status_name(9) == "UNKNOWN_STATUS_9"


# -- errors -----------------------------------------------------------------------------------
def test_error_classes_carry_their_code():
    error = errors.error_for(grpc.StatusCode.RESOURCE_EXHAUSTED, "queue full")
    assert isinstance(error, errors.ResourceExhausted) and isinstance(error, errors.TranslatorError)
    assert error.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.code_name == "RESOURCE_EXHAUSTED" and error.details == "queue full"
    assert str(error) == "RESOURCE_EXHAUSTED: queue full"
    other = errors.error_for(grpc.StatusCode.DATA_LOSS, "gone")  # no dedicated class
    assert type(other) is errors.TranslatorError and other.code is grpc.StatusCode.DATA_LOSS
