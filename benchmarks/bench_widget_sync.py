"""Bytes a run's view sends to the front end, against the size of the final transcript.

A scripted agent makes N tool calls (one per turn, every 10th pausing for an answer given
at once) with a view attached to a recording comm. Printed: the bytes of state the view sent
(the opening state, trait updates and custom messages), the size of the final transcript
JSON, and their ratio; then the same with the front-end module itself, which every new
view model receives once whatever the run's length. Beside it, the baseline a naive view
would cost: the whole transcript resent at every run event. Goal: a state ratio of at
most 3.

    python benchmarks/bench_widget_sync.py [--calls 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import comm
from comm.base_comm import BaseComm

from _workload import confirm, one_call_per_turn
from pausepoint import (
    Agent,
    ScriptedModel,
    action,
)


class CountingComm(BaseComm):
    """Counts the JSON bytes of every message instead of sending it; the front-end code
    (`_esm`, `_css`), sent once when a view opens, is counted apart as well."""

    sent = 0
    code = 0

    def publish_msg(self, msg_type: str, data: Any = None, *args: Any, **kwargs: Any) -> None:
        CountingComm.sent += len(json.dumps(data or {}))
        state = (data or {}).get("state", {})
        CountingComm.code += sum(len(json.dumps(state[k])) for k in ("_esm", "_css") if k in state)


@action
async def lookup(n: int) -> dict[str, Any]:
    """Return a small record for n."""
    return {"n": n, "label": f"item {n}", "tags": ["a", "b"]}


async def measure(calls: int) -> tuple[int, int, int, int]:
    comm.create_comm = lambda *a, **k: CountingComm(*a, **k)
    CountingComm.sent = CountingComm.code = 0
    run = Agent(
        model=ScriptedModel(one_call_per_turn(calls, "lookup")), actions=[lookup, confirm]
    ).new_run("go")
    naive = 0

    def resend_everything(event: object) -> None:
        nonlocal naive
        naive += len(json.dumps(run.view.items))

    run.view  # noqa: B018 - attach the view
    run.on("*", resend_everything)
    result = await run.run()
    while result.status == "interrupted":
        result = await run.resume(True)
    run.view.sync_at_cell_end()  # what the end of the notebook cell sends
    final = len(json.dumps([i.model_dump(mode="json") for i in run.prompt.items]))
    return CountingComm.sent, CountingComm.code, final, naive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args()
    sent, code, final, naive = asyncio.run(measure(args.calls))
    state = sent - code
    print(f"tool calls:                      {args.calls}")
    print(f"final transcript JSON:           {final:>12,} bytes")
    print(f"state sent by the view:          {state:>12,} bytes  ratio {state / final:6.2f}")
    print(f"  + front-end code, once a view: {code:>12,} bytes  ratio {sent / final:6.2f}")
    print(f"baseline, full resend per event: {naive:>12,} bytes  ratio {naive / final:6.2f}")


if __name__ == "__main__":
    main()
