"""Prometheus metrics of the service. One `Metrics` object, created by the server and passed to
whoever records something (no module-level globals: tests build their own registry).

Every per-request and per-step metric has a `model` label: the served model's name (the
registry's). A request refused before its model was known (overload at accept, a malformed
message, an unknown model) has model="". Each model's engine records through its own
`ModelMetrics` (`Metrics.for_model(name)`), so no engine can write another's series."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

# Decode steps take milliseconds; requests take tens of milliseconds to seconds.
STEP_BUCKETS = (0.0005, 0.001, 0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5)
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0)
BATCH_BUCKETS = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128)
GROUP_BUCKETS = (1, 2, 3, 4, 6, 8, 12, 16, 32)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None):
        r = self.registry = registry or CollectorRegistry()
        # protocol: "grpc" or "http" (the LibreTranslate-compatible API); rpc: the RPC or the HTTP route
        self.requests = Counter(
            "traductor_requests",
            "Requests by protocol, method and status code",
            ["protocol", "rpc", "code", "model"],
            registry=r,
        )
        # calls refused for overload (also counted above, code RESOURCE_EXHAUSTED); stage: where they were
        # refused, "accept" (before the request is parsed), "handler" (before tokenizing), "queue" (engine)
        self.shed = Counter(
            "traductor_shed_requests",
            "Calls refused for overload (RESOURCE_EXHAUSTED with a retry hint) by protocol, method and stage",
            ["protocol", "rpc", "stage", "model"],
            registry=r,
        )
        self.request_duration = Histogram(
            "traductor_request_duration_seconds",
            "Request wall time",
            ["protocol", "rpc", "model"],
            buckets=REQUEST_BUCKETS,
            registry=r,
        )
        self.ttft = Histogram(
            "traductor_time_to_first_token_seconds",
            "Accepted -> first token",
            ["model"],
            buckets=REQUEST_BUCKETS,
            registry=r,
        )
        self.tpot = Histogram(
            "traductor_time_per_output_token_seconds",
            "Decode time / output tokens",
            ["model"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.queue_wait = Histogram(
            "traductor_queue_wait_seconds",
            "Accepted -> joined the batch",
            ["model"],
            buckets=REQUEST_BUCKETS,
            registry=r,
        )
        self.encoder = Histogram(
            "traductor_encoder_duration_seconds",
            "Encoder run (per admitted group)",
            ["model"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.step = Histogram(
            "traductor_decode_step_duration_seconds",
            "One decoder step for the whole batch",
            ["model"],
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.batch_size = Histogram(
            "traductor_batch_size", "Rows (sequences) per decode step", ["model"], buckets=BATCH_BUCKETS, registry=r
        )
        self.active = Gauge("traductor_active_sequences", "Rows being decoded", ["model"], registry=r)
        self.queue_depth = Gauge("traductor_queue_depth", "Requests waiting to join the batch", ["model"], registry=r)
        self.input_tokens = Counter("traductor_input_tokens", "Source tokens accepted", ["model"], registry=r)
        self.output_tokens = Counter("traductor_output_tokens", "Tokens generated", ["model"], registry=r)
        self.kv_cache_bytes = Gauge(
            "traductor_kv_cache_bytes", "KV cache bytes held by active rows", ["model"], registry=r
        )
        self.stream_group = Histogram(
            "traductor_stream_group_tokens",
            "Tokens a message of the streams that group them (StreamOptions.group_tokens)",
            ["model"],
            buckets=GROUP_BUCKETS,
            registry=r,
        )
        # output segments the verifier (text/verify.py) repaired or flagged, by check; outcome "repaired" or "flagged"
        self.verified = Counter(
            "traductor_verified_segments",
            "Output segments a check of the verifier repaired or flagged, by check and outcome",
            ["model", "check", "outcome"],
            registry=r,
        )
        self.restarts = Counter(
            "traductor_model_restarts", "Engine processes started again after one died, by model", ["model"], registry=r
        )
        self.serving = Gauge(
            "traductor_model_serving", "1 while the model takes calls, 0 while it restarts", ["model"], registry=r
        )

        # keys per caller (service/keys): by the key's name ("admin": --token), never its secret
        self.key_requests = Counter("traductor_key_requests", "Calls accepted, by key name", ["key"], registry=r)
        self.key_characters = Counter(
            "traductor_key_characters", "Characters sent to translate, by key name", ["key"], registry=r
        )
        self.key_refusals = Counter(
            "traductor_key_refusals",
            "Calls refused by the key check, by key name ('' when no key matched) and reason "
            "(missing, unknown, revoked, rate, day, month, pair, store_down)",
            ["key", "reason"],
            registry=r,
        )
        self.key_store_up = Gauge("traductor_key_store_up", "1 while the key store answers, 0 while not", registry=r)

        self._request_series: dict[tuple, tuple] = {}  # record_request's series, by their labels

    def for_model(self, model: str) -> ModelMetrics:
        """What one model's engine records, under its name."""
        return ModelMetrics(self, model)

    def forget(self, model: str) -> None:
        """Drop a model's series (it was unloaded): its gauges would otherwise stay at their last value."""
        for metric in (self.active, self.queue_depth, self.kv_cache_bytes, self.serving):
            try:
                metric.remove(model)
            except KeyError:
                pass

    def serve(self, port: int, host: str = "0.0.0.0") -> None:
        start_http_server(port, addr=host, registry=self.registry)

    def record_request(self, protocol: str, rpc: str, code: str, seconds: float, model: str = "") -> None:
        """Called once per gRPC call or HTTP request when it ends (code: a gRPC status code name).
        The two series of a (protocol, rpc, code, model) are looked up once (the labels are few)."""
        key = (protocol, rpc, code, model)
        series = self._request_series.get(key)
        if series is None:
            series = (self.requests.labels(*key), self.request_duration.labels(protocol, rpc, model))
            self._request_series[key] = series
        series[0].inc()
        series[1].observe(seconds)

    def record_shed(self, protocol: str, rpc: str, stage: str, model: str = "") -> None:
        """Called once per call refused for overload, besides `record_request`."""
        self.shed.labels(protocol, rpc, stage, model).inc()


class ModelMetrics:
    """One model's engine metrics: what its core records after each step and each request. Each
    metric's series of this model is looked up once (`labels` takes a lock and builds a key: a
    dozen times a call), when first recorded, so no series appears before it has a value."""

    def __init__(self, metrics: Metrics, model: str):
        self.metrics, self.model = metrics, model
        self._series: dict[int, object] = {}

    def _of(self, metric):
        series = self._series.get(id(metric))
        if series is None:
            series = self._series[id(metric)] = metric.labels(self.model)
        return series

    def observe_steps(self, steps: list, rows: int, queued: int, cache_bytes: int) -> None:
        """Called by the engine core with the steps since its last call (engine.scheduler.StepStats)
        and the engine's state after them."""
        m, of = self.metrics, self._of
        for stats in steps:
            if stats.rows:
                of(m.step).observe(stats.step_seconds)
                of(m.batch_size).observe(stats.rows)
            if stats.admitted:
                of(m.encoder).observe(stats.encode_seconds)
        of(m.active).set(rows)
        of(m.queue_depth).set(queued)
        of(m.kv_cache_bytes).set(cache_bytes)

    def observe_finish(self, event) -> None:
        """Called once per finished request."""
        m, of, t = self.metrics, self._of, event.timings
        of(m.input_tokens).inc(event.input_tokens)
        of(m.output_tokens).inc(len(event.token_ids))
        of(m.queue_wait).observe(t.queue)
        if event.token_ids:
            of(m.ttft).observe(t.first_token)
            of(m.tpot).observe(t.decode / len(event.token_ids))

    def observe_stream_message(self, tokens: int) -> None:
        """Called once per message of a stream that groups tokens, with how many it carries."""
        self._of(self.metrics.stream_group).observe(tokens)

    def observe_verdict(self, repaired, failed) -> None:
        """Called once per verified segment with the names of the checks it was repaired by and failed."""
        for outcome, checks in (("repaired", repaired), ("flagged", failed)):
            for check in checks:
                self.metrics.verified.labels(self.model, check, outcome).inc()

    def set_serving(self, serving: bool) -> None:
        self.metrics.serving.labels(self.model).set(1 if serving else 0)

    def restarted(self) -> None:
        self.metrics.restarts.labels(self.model).inc()
