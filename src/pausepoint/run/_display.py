"""How a run shows itself in a notebook, without the run knowing the view.

The notebook view (`pausepoint.widget`) registers itself here when it is imported, and
the package root registers how to import it, so the view and anywidget load only when a
run is first displayed. A run (`AgentRun`, or a served run mirrored by `RemoteRun`) asks
`run_display()` for its live view, its mime bundle and its display in a cell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel

from ..errors import MissingDependencyError

__all__ = ["LiveView", "RunDisplay", "register_display", "register_display_loader", "run_display"]


class LiveView(Protocol):
    """What a run asks of its live view: whether it is still open, and to show interrupts
    of another producer read-only."""

    @property
    def comm(self) -> object | None: ...

    def show_interrupts(
        self, interrupts: Iterable[Mapping[str, Any] | BaseModel], *, how: str | None = None
    ) -> object: ...


class RunDisplay(Protocol):
    """How runs are shown: a live view, one mime bundle, a display in the current cell."""

    def view(self, run: Any) -> LiveView: ...

    def bundle(self, run: Any, **kwargs: Any) -> Any: ...

    def show(self, run: Any) -> None: ...


_display: RunDisplay | None = None
_loader: Callable[[], object] | None = None


def register_display(display: RunDisplay) -> None:
    """Show runs with `display` from now on (the notebook view calls this on import)."""
    global _display
    _display = display


def register_display_loader(loader: Callable[[], object]) -> None:
    """`loader()` registers a display when none is yet (the root imports the view)."""
    global _loader
    _loader = loader


def run_display() -> RunDisplay:
    """The registered display, loading it on first use."""
    if _display is None and _loader is not None:
        _loader()
    if _display is None:
        raise MissingDependencyError(
            "No notebook view is registered for runs: `import pausepoint.widget` "
            "(it needs anywidget, which `pip install pausepoint` brings)."
        )
    return _display
