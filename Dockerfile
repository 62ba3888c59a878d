# The traductor serving image: `traductor serve` on the default model.
#
# Built from the repository alone, with nothing prepared on the host:
#
#     docker build -t traductor .
#
# It holds the runtime only (onnxruntime, grpcio, ... ; never torch). The default model is the
# model repository that ships inside the `traductor` package (traductor/models/<name>/, one
# exported ONNX bundle per model), so `traductor serve` without --model serves it. The PyTorch
# checkpoints (traductor/checkpoints/) are kept out of the build context by .dockerignore.
#
# BASE_IMAGE lets machines without a registry build on a locally imported Debian image that has
# python3 3.11 (see docs/compose.md); real users get the official image.
ARG BASE_IMAGE=python:3.11-slim

# ---------------------------------------------------------------------------------------------
# Stage 1: a virtual environment with the runtime dependencies and the two traductor packages.
FROM ${BASE_IMAGE} AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

# Third-party dependencies first: this layer only changes when the pins change.
COPY deploy/requirements/serve.txt /tmp/serve.txt
RUN pip install -r /tmp/serve.txt

# The client package carries the generated gRPC code that the server imports.
COPY client/ /src/client/
RUN pip install --no-deps /src/client

# The server package, without its dependencies (they are all installed above; torch is not one),
# and without the exporter (export/, the traductor-export distribution: it needs torch).
COPY pyproject.toml README.md* /src/traductor/
COPY server/ /src/traductor/server/
RUN pip install --no-deps /src/traductor \
    && python3 -c "import traductor, traductor_client; print('traductor importable')"
# Fail the build here, with a message, if the package came without its default model's bundle.
RUN python3 -c "import sys; from traductor.packaged import MODELS_DIR, DEFAULT_MODEL; b = MODELS_DIR / DEFAULT_MODEL; \
missing = [f for f in ('encoder.onnx', 'decoder.onnx', 'tokenizer.model', 'config.json') if not (b / f).is_file()]; \
sys.exit(f'no default bundle in the traductor package: {b} lacks {missing}' if missing else 0)"

# ---------------------------------------------------------------------------------------------
# Stage 2: the serving image: the virtual environment (with the models) and an unprivileged user.
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="traductor" \
      org.opencontainers.image.description="English->Spanish translation over gRPC (ONNX Runtime)"

# A fixed numeric uid/gid: Kubernetes' runAsNonRoot can only verify a numeric USER.
RUN groupadd --gid 10001 traductor \
    && useradd --uid 10001 --gid traductor --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin traductor

COPY --from=build /opt/venv /opt/venv

# Every setting of `traductor serve` is also a TRADUCTOR_* variable (a flag would win over it, so
# the image passes no flags): docker-compose and the Kubernetes ConfigMap override these.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TRADUCTOR_HOST=0.0.0.0 \
    TRADUCTOR_PORT=50051 \
    TRADUCTOR_METRICS_PORT=9090

USER 10001:10001
WORKDIR /tmp

# 50051: gRPC (traductor.v1.Translator, grpc.health.v1.Health, reflection); 9090: /metrics
EXPOSE 50051 9090

# The server drains in-flight requests on SIGTERM (TRADUCTOR_DRAIN_SECONDS); compose's
# stop_grace_period and Kubernetes' terminationGracePeriodSeconds give it time to before SIGKILL.
STOPSIGNAL SIGTERM

# Healthy once the gRPC health service answers SERVING (after the model has warmed up).
# (Podman keeps HEALTHCHECK only with `podman build --format docker`; compose sets its own anyway.)
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
    CMD ["traductor-client", "health", "--target", "127.0.0.1:50051"]

# No --model: the model repository inside the installed package.
ENTRYPOINT ["traductor", "serve"]
