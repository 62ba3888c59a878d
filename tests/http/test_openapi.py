"""docs/http-api.yaml is a valid OpenAPI document and describes exactly the routes the server has,
LibreTranslate's and DeepL's (/v2, and /v3 glossaries)."""

from __future__ import annotations

from pathlib import Path

import yaml

from traductor.service.http.deepl import DeepL
from traductor.service.http.deepl_documents import Documents
from traductor.service.http.deepl_glossaries import Glossaries
from traductor.service.http.deepl_glossaries_v3 import MultilingualGlossaries
from traductor.service.http.handlers import Handlers

SPEC = Path(__file__).parents[2] / "docs" / "http-api.yaml"


def test_the_openapi_file_is_valid():
    from openapi_spec_validator import validate

    validate(yaml.safe_load(SPEC.read_text()))


def test_the_openapi_file_documents_every_route_and_no_other():
    documented = {
        (method.upper(), path)
        for path, ops in yaml.safe_load(SPEC.read_text())["paths"].items()
        for method in ops
        if method != "parameters"
    }
    documents = Documents.__new__(Documents)  # its routes only: no store, no settings
    routes = Handlers(api=None).routes() + DeepL(None).routes() + Glossaries(None).routes() + documents.routes()
    routes += MultilingualGlossaries(None).routes()
    served = {(r.method, r.path) for r in routes}
    assert documented == served
