"""The notebook view of a run (anywidget). Imported lazily by `AgentRun`."""

from ._display import display_bundle, show
from ._inbox import Inbox, inbox
from ._view import RunView

__all__ = ["Inbox", "RunView", "display_bundle", "inbox", "show"]
