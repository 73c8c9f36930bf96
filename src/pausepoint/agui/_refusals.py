"""A refused continuation's errors where AG-UI clients read them.

pausepoint's own list (`metadata.errors`: code, interruptId, message, path as text) stays
for its readers. The released `@tanstack/ai-client` reads a refused batch from
`metadata.tanstack.interruptErrors` of the RUN_ERROR, and only when every error there has
its shape: an item error names its interrupt and shows on that item (which can then be
answered again); a batch error names every interrupt the continuation answered. Each is
correlated with the submission by thread, the interrupted run (the continuation's
`parentRunId`) and the generation (0, as every binding of a served run has).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..errors import ResumeItemError

__all__ = ["refusal_metadata"]

_BATCH_CODES = frozenset({"incomplete-batch"})
_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def refusal_metadata(
    errors: Sequence[ResumeItemError],
    *,
    thread_id: str,
    run_id: str,
    interrupted_run_id: str,
    answered: Sequence[str],
) -> dict[str, Any]:
    """The RUN_ERROR `metadata` of a refused batch: ours under `errors`, TanStack's under
    `tanstack.interruptErrors`. `answered` lists the interrupt ids the batch named."""
    common = {
        "source": "server",
        "retryable": False,
        "threadId": thread_id,
        "interruptedRunId": interrupted_run_id,
        "generation": 0,
    }
    theirs: list[dict[str, Any]] = []
    batch: list[ResumeItemError] = []
    for error in errors:
        if error.code in _BATCH_CODES or error.interrupt_id not in answered:
            batch.append(error)
            continue
        item: dict[str, Any] = {
            "scope": "item",
            "interruptId": error.interrupt_id,
            "code": error.code,
        }
        item |= {"message": error.message} | common
        if error.path is not None:
            item["path"] = path_keys(error.path)
        theirs.append(item)
    if batch:
        code = batch[0].code if all(e.code == batch[0].code for e in batch) else "protocol"
        if code not in _BATCH_CODES:
            code = "protocol"
        theirs.append(
            {
                "scope": "batch",
                "interruptIds": list(answered),
                "code": code,
                "message": " ".join(_said(e) for e in batch),
            }
            | common
        )
    ours = [
        {"code": e.code, "interruptId": e.interrupt_id, "message": e.message}
        | ({"path": e.path} if e.path is not None else {})
        for e in errors
    ]
    return {
        "errors": ours,
        "tanstack": {"runId": run_id, "threadId": thread_id, "interruptErrors": theirs},
    }


def path_keys(path: str) -> list[str | int]:
    """A JSON path as written by pausepoint (`$.items[0]["a.b"]`) as a list of keys."""
    keys: list[str | int] = []
    for name, index, quoted in _STEP.findall(path.removeprefix("$")):
        if name:
            keys.append(name)
        elif index:
            keys.append(int(index))
        else:
            keys.append(json.loads(quoted))
    return keys


def _said(error: ResumeItemError) -> str:
    return f"{error.interrupt_id}: {error.message}" if error.interrupt_id else error.message
