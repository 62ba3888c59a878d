# The traductor serving image: `traductor serve` on the default model bundle.
#
# It holds the runtime only (onnxruntime, grpcio, ... ; never torch) and the exported ONNX bundle.
# The bundle is made on the host first, because exporting needs torch:
#
#     traductor export --out build/bundle
#     docker build -t traductor .
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

# The server package, without its dependencies (they are all installed above; torch is not one).
COPY pyproject.toml README.md* /src/traductor/
COPY server/ /src/traductor/server/
COPY export/ /src/traductor/export/
RUN pip install --no-deps /src/traductor \
    && python3 -c "import traductor, traductor_client; print('traductor importable')"

# ---------------------------------------------------------------------------------------------
# Stage 2: the serving image: the virtual environment, the bundle and an unprivileged user.
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="traductor" \
      org.opencontainers.image.description="English->Spanish translation over gRPC (ONNX Runtime)"

RUN groupadd --system traductor \
    && useradd --system --gid traductor --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin traductor

COPY --from=build /opt/venv /opt/venv
# The model bundle exported on the host (ONNX graphs, tokenizer, config.json).
COPY build/bundle/ /opt/traductor/bundle/

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1

USER traductor
WORKDIR /tmp

# 50051: gRPC (traductor.v1.Translator, grpc.health.v1.Health, reflection); 9090: /metrics
EXPOSE 50051 9090

# The server drains in-flight requests on SIGTERM (see --drain-seconds); compose gives it
# stop_grace_period to do so before SIGKILL.
STOPSIGNAL SIGTERM

# Healthy once the gRPC health service answers SERVING (after the model has warmed up).
# (Podman keeps HEALTHCHECK only with `podman build --format docker`; compose sets its own anyway.)
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
    CMD ["traductor-client", "health", "--target", "127.0.0.1:50051"]

ENTRYPOINT ["traductor", "serve", "--model", "/opt/traductor/bundle"]
CMD ["--host", "0.0.0.0", "--port", "50051", "--metrics-port", "9090"]
