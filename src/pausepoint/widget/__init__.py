"""The notebook view of a run (anywidget). Imported lazily by `AgentRun`."""

from ._view import RunView

__all__ = ["RunView"]
