"""Interrupting the kernel (Ctrl-C) during run_sync stops the run as cancel() would."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import nbformat
from nbclient import NotebookClient

# The action interrupts its own process from its worker thread, as "Interrupt the
# kernel" does, then keeps running until released: the run must not start it again.
PROGRAM = textwrap.dedent(
    """
    import os, signal, threading
    from pausepoint import Agent, ScriptedModel, action, call

    release = threading.Event()
    runs = []

    @action
    def refund(order_id: int) -> str:
        \"\"\"Refund an order.\"\"\"
        runs.append(order_id)
        os.kill(os.getpid(), signal.SIGINT)
        release.wait(30)
        return "refunded"

    run = Agent(
        model=ScriptedModel([call("refund", order_id=42), "Stopped, then done."]),
        actions=[refund],
    ).new_run("refund 42")
    finished = []
    run.on("run_finished", lambda e: finished.append(e.result.status))
    try:
        run.run_sync()
        print("not interrupted")
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
    record = list(run.prompt.tool_calls())[-1]
    print("result", run.result.status, finished)
    print("call", record.status, record.cancellation.by)
    print("again", run.run_sync().status, runs)
    release.set()
    """
)
EXPECTED = [
    "KeyboardInterrupt",
    "result cancelled ['cancelled']",
    "call cancelled interrupt",
    "again completed [42]",
]


def test_ctrl_c_during_run_sync_in_a_script_cancels_the_run() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split("\n")[:4] == EXPECTED, done.stderr


def test_interrupting_the_kernel_during_run_sync_cancels_the_run() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(PROGRAM)]
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert text.split("\n")[:4] == EXPECTED, nb.cells[0].outputs
