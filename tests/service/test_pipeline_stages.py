"""The text pipeline's shape (issue 53, item 1; service/pipeline/__init__.py draws it): one module a
stage, the line calling them in order, and no stage calling another (they hand data on: a name a
stage takes from another stage's module is only ever a type)."""

from __future__ import annotations

import ast
from pathlib import Path

import traductor.service.pipeline as pipeline

HERE = Path(pipeline.__file__).parent
STAGES = ["cut", "protect", "decode", "restore", "verify", "join"]


def tree(name: str) -> ast.Module:
    return ast.parse((HERE / f"{name}.py").read_text())


def annotation_names(module: ast.Module) -> set[int]:
    """The ids of the Name nodes that stand in annotations."""
    found = set()
    for node in ast.walk(module):
        notes = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args + node.args.kwonlyargs + node.args.posonlyargs
            notes = [a.annotation for a in args] + [node.returns]
        elif isinstance(node, ast.AnnAssign):
            notes = [node.annotation]
        for note in filter(None, notes):
            found |= {id(n) for n in ast.walk(note) if isinstance(n, ast.Name)}
    return found


def test_every_stage_is_a_module_of_the_package():
    assert all((HERE / f"{stage}.py").is_file() for stage in STAGES + ["stream", "run"])


def test_no_stage_calls_another():
    for stage in STAGES:
        module = tree(stage)
        taken = set()
        for node in ast.walk(module):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module in STAGES, (stage, node.module)  # `from . import other` would be a call's way in
                taken |= {alias.asname or alias.name for alias in node.names}
        in_notes = annotation_names(module)
        used = [n.id for n in ast.walk(module) if isinstance(n, ast.Name) and n.id in taken and id(n) not in in_notes]
        assert not used, f"{stage}.py uses {used} of another stage outside annotations"


def test_the_line_enters_each_stage_once_in_order():
    """run.py (prepare, then the rest of a call) names each stage's module in the line's order."""
    called = []
    for node in ast.walk(tree("run")):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in STAGES:
                called.append((node.lineno, node.col_offset, owner.id))
    assert [name for *_, name in sorted(called)] == STAGES
