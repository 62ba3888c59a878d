"""A text's other translations (`alternatives`): its segments' beam hypotheses put together.

The engine gives each segment decoded with `options.alternatives` N its search's other hypotheses,
best first, each different from its translation (engine/beams.others, FinishEvent.alternatives).
A text of several segments has, as its i-th alternative, the text assembled with each segment's
i-th hypothesis in its place (a segment with fewer, or from the memory, keeps its translation);
those equal to the text's translation or to an earlier alternative are left out.
"""

from __future__ import annotations

from ..engine.request import FinishEvent
from ..text import Plan


def alternatives(p: Plan, events: list[FinishEvent]) -> list[str]:
    """The text's alternatives from its segments' events (in plan order, as `Plan.assemble` takes them)."""
    text = p.assemble([e.text for e in events])
    n = max((len(e.alternatives) for e in events), default=0)
    found = [p.assemble([(e.alternatives + [e.text] * n)[i] for e in events]) for i in range(n)]
    return [t for i, t in enumerate(found) if t != text and t not in found[:i]]
