"""The context objects are the templates' contract: every field is documented."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from audit.reports import context

CLASSES = [
    obj
    for _, obj in inspect.getmembers(context, inspect.isclass)
    if dataclasses.is_dataclass(obj) and obj.__module__ == context.__name__
]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_field_is_documented(cls: type) -> None:
    doc = inspect.getdoc(cls) or ""
    assert "Attributes:" in doc
    documented = {
        line.split(":", 1)[0].strip()
        for line in doc.split("Attributes:", 1)[1].splitlines()
        if line.startswith("    ") and not line.startswith("        ") and ":" in line
    }
    assert documented == {f.name for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_contexts_are_frozen(cls: type) -> None:
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
