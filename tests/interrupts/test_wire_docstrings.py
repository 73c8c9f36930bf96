"""The examples in the interrupts package's docstrings run and show the truth."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pausepoint.interrupts

MODULES = [
    pausepoint.interrupts.__name__,
    *(
        m.name
        for m in pkgutil.iter_modules(pausepoint.interrupts.__path__, "pausepoint.interrupts.")
    ),
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.failed == 0
