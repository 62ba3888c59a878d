"""Prometheus metrics of the service. One `Metrics` object, created by the server and passed to
whoever records something (no module-level globals: tests build their own registry)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

# Decode steps take milliseconds; requests take tens of milliseconds to seconds.
STEP_BUCKETS = (0.0005, 0.001, 0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5)
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0)
BATCH_BUCKETS = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None):
        r = self.registry = registry or CollectorRegistry()
        # protocol: "grpc" or "http" (the LibreTranslate-compatible API); rpc: the RPC or the HTTP route
        self.requests = Counter(
            "traductor_requests",
            "Requests by protocol, method and status code",
            ["protocol", "rpc", "code"],
            registry=r,
        )
        # calls refused for overload (also counted above, code RESOURCE_EXHAUSTED); stage: where they were
        # refused, "accept" (before the request is parsed), "handler" (before tokenizing), "queue" (engine)
        self.shed = Counter(
            "traductor_shed_requests",
            "Calls refused for overload (RESOURCE_EXHAUSTED with a retry hint) by protocol, method and stage",
            ["protocol", "rpc", "stage"],
            registry=r,
        )
        self.request_duration = Histogram(
            "traductor_request_duration_seconds",
            "Request wall time",
            ["protocol", "rpc"],
            buckets=REQUEST_BUCKETS,
            registry=r,
        )
        self.ttft = Histogram(
            "traductor_time_to_first_token_seconds", "Accepted -> first token", buckets=REQUEST_BUCKETS, registry=r
        )
        self.tpot = Histogram(
            "traductor_time_per_output_token_seconds", "Decode time / output tokens", buckets=STEP_BUCKETS, registry=r
        )
        self.queue_wait = Histogram(
            "traductor_queue_wait_seconds", "Accepted -> joined the batch", buckets=REQUEST_BUCKETS, registry=r
        )
        self.encoder = Histogram(
            "traductor_encoder_duration_seconds", "Encoder run (per admitted group)", buckets=STEP_BUCKETS, registry=r
        )
        self.step = Histogram(
            "traductor_decode_step_duration_seconds",
            "One decoder step for the whole batch",
            buckets=STEP_BUCKETS,
            registry=r,
        )
        self.batch_size = Histogram(
            "traductor_batch_size", "Rows (sequences) per decode step", buckets=BATCH_BUCKETS, registry=r
        )
        self.active = Gauge("traductor_active_sequences", "Rows being decoded", registry=r)
        self.queue_depth = Gauge("traductor_queue_depth", "Requests waiting to join the batch", registry=r)
        self.input_tokens = Counter("traductor_input_tokens", "Source tokens accepted", registry=r)
        self.output_tokens = Counter("traductor_output_tokens", "Tokens generated", registry=r)
        self.kv_cache_bytes = Gauge("traductor_kv_cache_bytes", "KV cache bytes held by active rows", registry=r)

    def serve(self, port: int, host: str = "0.0.0.0") -> None:
        start_http_server(port, addr=host, registry=self.registry)

    def record_request(self, protocol: str, rpc: str, code: str, seconds: float) -> None:
        """Called once per gRPC call or HTTP request when it ends (code: a gRPC status code name)."""
        self.requests.labels(protocol, rpc, code).inc()
        self.request_duration.labels(protocol, rpc).observe(seconds)

    def record_shed(self, protocol: str, rpc: str, stage: str) -> None:
        """Called once per call refused for overload, besides `record_request`."""
        self.shed.labels(protocol, rpc, stage).inc()

    def observe_step(self, stats, rows: int, queued: int, cache_bytes: int) -> None:
        """Called by the engine thread after every step."""
        if stats.rows:
            self.step.observe(stats.step_seconds)
            self.batch_size.observe(stats.rows)
        if stats.admitted:
            self.encoder.observe(stats.encode_seconds)
        self.active.set(rows)
        self.queue_depth.set(queued)
        self.kv_cache_bytes.set(cache_bytes)

    def observe_finish(self, event) -> None:
        """Called once per finished request."""
        t = event.timings
        self.input_tokens.inc(event.input_tokens)
        self.output_tokens.inc(len(event.token_ids))
        self.queue_wait.observe(t.queue)
        if event.token_ids:
            self.ttft.observe(t.first_token)
            self.tpot.observe(t.decode / len(event.token_ids))
