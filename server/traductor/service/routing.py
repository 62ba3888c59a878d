"""Which served model answers a call, and the languages callers are shown: the routing table.

    Routing.route(model, source, target) -> Model     the model of a call (ModelNotFound: NOT_FOUND);
                                                      a PivotModel through English when no model
                                                      translates the pair (pivot.py)
    Routing.get(name) -> Model                        by name, empty: the default
    Routing.languages() -> {source: [targets]}        /languages, ListModels
    Routing.aliases() -> {shown: [own codes]}         the models' own codes (NLLB's `fra_Latn`)

Routing (the same for gRPC and HTTP): a named model must be served, and the languages given beside
it must be its own; without a name, the models that translate source -> target (either may be
empty: any) are candidates, the default model first if it is one, else the first by name; with
neither, the default model. A pair that no model translates, where one model translates its source
into English and another English into its target, goes through English (`PivotModel`: es -> fr is
es-en then en-fr); `languages()` lists those pairs too. Nothing here names a language but English:
languages.py reads the codes a call sends (`fr`, `FRA`, `fr-CA`, NLLB's `fra_Latn`) and the codes
callers are shown (BundleConfig.own_pair, shown_pairs).

It owns the table name -> Model and the default model's name, read on every call. It does not
know how a model is built (models.py) nor when one is added, replaced, restarted or retired: the
registry (registry.py, a `Routing`) decides that and changes the table with `add` and `remove`.
"""

from __future__ import annotations

from ..engine.bundle import choose, describe_all
from ..errors import ModelNotFound
from ..languages import ENGLISH, through_english
from .models import Model
from .pivot import PivotModel


class Routing:
    """name -> Model (sorted by name) and the default model; every call's lookup."""

    def __init__(self, models: list[Model], default: str):
        self.models: dict[str, Model] = {m.name: m for m in sorted(models, key=lambda m: m.name)}
        self.default_name = default
        self._languages: tuple[tuple, dict[str, list[str]]] | None = None  # (served models, languages())
        self._pivots: dict[tuple, PivotModel] = {}  # (first, second, source, target) -> its PivotModel

    def __iter__(self):
        return iter(list(self.models.values()))

    def __len__(self) -> int:
        return len(self.models)

    @property
    def default(self) -> Model:
        return self.models[self.default_name]

    def served(self) -> str:
        return describe_all({m.name: m.languages for m in self})

    def get(self, name: str = "") -> Model:
        """The model named (empty: the default one); ModelNotFound names the models served."""
        if not name:
            return self.default
        model = self.models.get(name)
        if model is None:
            raise ModelNotFound(f"model {name!r} is not served; the models are: {self.served()}")
        return model

    def route(self, model: str = "", source: str = "", target: str = "") -> Model:
        """The model of a call (see the module docstring); ModelNotFound names what is served."""
        if model:
            found = self.get(model)
            if not found.translates(source, target):
                raise ModelNotFound(
                    f"model {found.describe()} does not translate {source or 'any'}->{target or 'any'}; "
                    f"the models are: {self.served()}"
                )
            return found
        if not source and not target:
            return self.default
        name = choose({m.name: m.bundle.config for m in self}, self.default_name, source, target)
        if name:
            return self.models[name]
        pivot = self.pivot(source, target)
        if pivot is None:
            pair = f"{source or 'any'}->{target or 'any'}"
            raise ModelNotFound(
                f"no model translates {pair}, directly or through English; the models are: {self.served()}"
            )
        return pivot

    def pivot(self, source: str, target: str) -> PivotModel | None:
        """source -> English -> target with two served models (each chosen as a direct call would
        be), or None. Kept while both models are served, so a pair's pivot is built once."""
        if not through_english(source, target):
            return None
        configs = {m.name: m.bundle.config for m in self}
        first = choose(configs, self.default_name, source, ENGLISH)
        second = choose(configs, self.default_name, ENGLISH, target)
        if not first or not second:
            return None
        key = (id(self.models[first]), id(self.models[second]), source, target)
        if key not in self._pivots:
            self._pivots = {k: v for k, v in self._pivots.items() if v.first in self and v.second in self}
            self._pivots[key] = PivotModel.of(self.models[first], self.models[second], source, target)
        return self._pivots[key]

    def __contains__(self, model: Model) -> bool:
        return self.models.get(model.name) is model

    def languages(self) -> dict[str, list[str]]:
        """Every source language with all its targets, sorted (targets of every model together, and
        those reached through English).
        Asked on every HTTP call and an NLLB model has 40,000 pairs: made again only when the
        served models change."""
        served = tuple((m.name, id(m)) for m in self)
        if self._languages is None or self._languages[0] != served:
            pairs: dict[str, set[str]] = {}
            for m in self:
                for p in m.languages:
                    pairs.setdefault(p.source, set()).add(p.target)
            into_english = [s for s, targets in pairs.items() if ENGLISH in targets]
            for s in into_english:  # through English (route's pivot)
                pairs[s] |= {t for t in pairs.get(ENGLISH, ()) if t != s}
            self._languages = served, {source: sorted(targets) for source, targets in sorted(pairs.items())}
        return self._languages[1]

    def formality_targets(self) -> set[str]:
        """The target codes (as shown) into which some model translates with a formality."""
        return {p.target for m in self if m.formality for p in m.languages}

    def aliases(self) -> dict[str, list[str]]:
        """The models' own codes of each shown code, where they differ (`fr`: [`fra_Latn`])."""
        found: dict[str, set[str]] = {}
        for m in self:
            codes = m.bundle.config.codes
            for own in codes.codes:
                if codes.shown(own) != own:
                    found.setdefault(codes.shown(own), set()).add(own)
        return {code: sorted(owns) for code, owns in sorted(found.items())}

    def add(self, model: Model) -> None:
        """Route to `model` from now on (beside the others, or instead of its old version)."""
        models = {**self.models, model.name: model}
        self.models = {name: models[name] for name in sorted(models)}

    def remove(self, name: str) -> Model:
        """Route no call to model `name` from now on; it is returned to be retired."""
        return self.models.pop(name)
