"""The notebook view of a run (anywidget).

Importing this package registers it as the display of runs (`pausepoint.run.run_display`);
the package root imports it when a run is first shown, so anywidget loads only then.
"""

from typing import Any

from ..run import register_display
from ._display import display_bundle, show
from ._inbox import Inbox, inbox
from ._view import RunView

__all__ = ["Inbox", "RunView", "display_bundle", "inbox", "show"]


class _Views:
    """Runs shown with `RunView`: the live view, one mime bundle, a display in a cell."""

    def view(self, run: Any) -> RunView:
        return RunView(run)

    def bundle(self, run: Any, **kwargs: Any) -> Any:
        return display_bundle(run, **kwargs)

    def show(self, run: Any) -> None:
        show(run)


register_display(_Views())
