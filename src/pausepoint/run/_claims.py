"""Which object executes which run, process-wide: one run (by run id), one executor.

Two `AgentRun` objects over the same Prompt (or over two copies of one saved transcript)
share a run id. While one of them executes, the other is refused with `RunBusyError`,
so no action of the run is executed twice at the same time.
"""

from __future__ import annotations

import threading

from ..errors import RunBusyError

__all__ = ["claim", "held", "release"]

_lock = threading.Lock()
_holders: dict[str, object] = {}


def claim(run_id: str, holder: object) -> None:
    """Make `holder` the executor of `run_id`, or raise `RunBusyError` if anyone is."""
    with _lock:
        current = _holders.get(run_id)
        if current is None:
            _holders[run_id] = holder
            return
    if current is holder:
        raise RunBusyError(
            "The run is executing; wait for the current call to return (await run.wait()) "
            "before calling run(), resume() or reject() again."
        )
    raise RunBusyError(
        f"Run {run_id!r} is being executed by another AgentRun object in this process; one "
        "run has one executor. Use that object, or wait until it has stopped."
    )


def release(run_id: str, holder: object) -> None:
    with _lock:
        if _holders.get(run_id) is holder:
            del _holders[run_id]


def held(run_id: str) -> bool:
    """True while some object in this process executes `run_id`."""
    with _lock:
        return run_id in _holders
