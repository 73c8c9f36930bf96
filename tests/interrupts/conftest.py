"""Fixtures of the interrupt wire tests: ``tanstack`` drives the real npm package."""

from tests.interrupts.tanstack_node import tanstack

__all__ = ["tanstack"]
