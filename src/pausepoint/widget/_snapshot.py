"""A run as static HTML: what a saved notebook shows where no widget can render.

Viewers without a live kernel or without widgets (a reopened untrusted notebook, an
nbconvert HTML export, GitHub) render the `text/html` of a run's display bundle. It is
built here from the transcript alone: every value passes through `html.escape`, nothing
is executable, and the only styling is inline `--jp-*` variables with plain fallbacks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from html import escape
from typing import TYPE_CHECKING, Any

from ..transcript import AssistantMessage, InterruptEntry, ToolCall, UserMessage
from ..transcript.decisions import Decision, decisions_of, shown_status
from ._status import status_label
from ._view_state import load_line, served_from

if TYPE_CHECKING:
    from ..run import PendingInterrupt
    from ._viewed import ViewedRun

__all__ = [
    "MAX_ITEMS",
    "MAX_TEXT",
    "SET_ASIDE_NOTE",
    "TWIN_CLASS",
    "snapshot_body",
    "snapshot_html",
]

TWIN_CLASS = "pausepoint-snapshot-beside-view"
SET_ASIDE_NOTE = "Set aside: Retry asked the model again without this turn."
"""Under a turn set aside by Retry (the view says the same, js/src/components/Transcript.tsx)."""
"""The class of a snapshot shown in the output after the run's live view: the view's
style sheet hides it once the view is drawn."""
MAX_ITEMS = 40
"""The snapshot shows the last this many transcript items and says how many it left out."""
MAX_TEXT = 2000
"""Longer texts and JSON values are cut to this many characters."""

_FONT = "var(--jp-ui-font-family, system-ui, -apple-system, 'Segoe UI', sans-serif)"
_MONO = "var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, monospace)"
_TEXT = "var(--jp-ui-font-color1, #1f1f1f)"
_MUTED = "var(--jp-ui-font-color2, #616161)"
_BORDER = "var(--jp-border-color2, #e0e0e0)"
_LAYOUT = "var(--jp-layout-color1, #ffffff)"
_CODE_BG = "var(--jp-layout-color2, #eeeeee)"
_WARN = "var(--jp-warn-color0, #e65100)"
_ERROR = "var(--jp-error-color1, #d32f2f)"
_OK = "var(--jp-success-color1, #388e3c)"

_STYLE = {
    "root": f"font-family:{_FONT};font-size:var(--jp-ui-font-size1, 13px);color:{_TEXT};"
    f"background:{_LAYOUT};border:1px solid {_BORDER};border-radius:4px;padding:8px 12px;"
    "max-width:100%;box-sizing:border-box;line-height:1.4",
    "head": "display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline;margin-bottom:4px",
    "muted": f"color:{_MUTED};font-size:var(--jp-ui-font-size0, 11px);margin:2px 0",
    "item": f"border-top:1px solid {_BORDER};padding:6px 0",
    "who": f"color:{_MUTED};font-weight:600;margin-right:6px",
    "text": "white-space:pre-wrap;word-break:break-word",
    "pre": f"font-family:{_MONO};font-size:var(--jp-code-font-size, 12px);background:{_CODE_BG};"
    "padding:4px 6px;border-radius:2px;margin:2px 0;white-space:pre-wrap;"
    "word-break:break-word;max-height:20em;overflow:auto",
    "code": f"font-family:{_MONO};background:{_CODE_BG};padding:0 3px;border-radius:2px",
    "list": "margin:2px 0;padding-left:20px",
    "card": f"border:1px solid {_WARN};border-left-width:4px;border-radius:4px;"
    "padding:6px 10px;margin:6px 0",
}
_STATUS_COLOURS = {
    "running": _MUTED,
    "interrupted": _WARN,
    "paused": _WARN,
    "completed": _OK,
    "failed": _ERROR,
    "succeeded": _OK,
    "rejected": _ERROR,
    "responded": _MUTED,
}


def snapshot_html(run: ViewedRun, *, now: datetime | None = None, beside_view: bool = False) -> str:
    """The run's transcript and pending interrupts as one escaped, script-free HTML block.

    `beside_view`: shown in the output after the run's live view, which hides it once
    drawn (see `_display`)."""
    taken = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M:%S UTC")
    line = load_line(run)
    remote = served_from(run)
    how = (
        f"This run is served from {escape(remote)}: saved with {_code('remote.save(path)')}, "
        f"{_code('RemoteRun.load(path)')} follows it again"
        if remote is not None
        else f"This run is stored: {_code(line)} in a cell, with the agent that ran it, shows "
        "it again live"
        if line
        else "A run kept only in memory is gone with its kernel; a transcript saved with "
        f"{_code('run.prompt.model_dump_json()')} is rebuilt with "
        f"{_code('AgentRun(agent, Prompt.model_validate_json(saved))')}"
    )
    note = (
        f"Snapshot as of {taken}. The live view, with buttons, needs this run in a running "
        f"kernel. {how}."
    )
    classes = "pausepoint-snapshot" + (f" {TWIN_CLASS}" if beside_view else "")
    return (
        f'<div class="{classes}" style="{_STYLE["root"]}">'
        f"{snapshot_body(run)}"
        f'<p style="{_STYLE["muted"]}">{note}</p></div>'
    )


def snapshot_body(run: ViewedRun) -> str:
    """Everything but the time stamp: equal bodies mean nothing visible changed."""
    prompt = run.prompt
    pending = run.pending
    status = status_label(run)
    label = status.label
    # The run id is for code and support, not the first thing a reader sees: a tooltip.
    parts = [
        f'<div style="{_STYLE["head"]}">'
        f'<strong title="Run {escape(prompt.run_id, quote=True)}">pausepoint run</strong>',
        f'<span style="color:{_STATUS_COLOURS.get(status.status, _TEXT)};font-weight:600">'
        f"{escape(label)}</span></div>",
    ]
    items = prompt.items
    hidden = max(0, len(items) - MAX_ITEMS)
    if hidden:
        parts.append(
            f'<p style="{_STYLE["muted"]}">{hidden} earlier '
            f"{'item is' if hidden == 1 else 'items are'} not shown; the whole transcript is "
            "<code>run.prompt</code>.</p>"
        )
    for item in items[hidden:]:
        parts.append(f'<div style="{_STYLE["item"]}">{_item(item)}</div>')
    if pending:
        parts.append(_waiting(pending))
    return "".join(parts)


def _item(item: UserMessage | AssistantMessage | ToolCall) -> str:
    if isinstance(item, UserMessage):
        return _said("User", item.text)
    if isinstance(item, AssistantMessage):
        said = _said("Assistant", item.text) if item.text else ""
        if item.tool_calls:
            names = ", ".join(_code(call.name) for call in item.tool_calls)
            label = "" if said else f'<span style="{_STYLE["who"]}">Assistant</span>'
            said += f'<div>{label}<span style="{_STYLE["muted"]}">asks to call {names}</span></div>'
        said = said or _said("Assistant", "(no text)")
        if item.set_aside is not None:
            said += f'<div style="{_STYLE["muted"]}">{SET_ASIDE_NOTE}</div>'
        elif item.stopped:
            said += f'<div style="{_STYLE["muted"]}">Stopped here.</div>'
        return said
    return _tool(item)


def _said(who: str, text: str) -> str:
    return (
        f'<div><span style="{_STYLE["who"]}">{who}</span>'
        f'<span style="{_STYLE["text"]}">{escape(_cut(text))}</span></div>'
    )


def _tool(call: ToolCall) -> str:
    colour = _STATUS_COLOURS.get(call.status, _TEXT)
    parts = [
        f'<div><span style="{_STYLE["who"]}">Tool</span>{_code(call.name)} '
        f'<span style="color:{colour};font-weight:600">{escape(shown_status(call))}</span></div>',
        _json_block("Arguments", call.effective_input),
    ]
    if call.error is not None:
        parts.append(
            f'<div style="color:{_ERROR}">Error: {escape(call.error.name)}: '
            f"{escape(_cut(call.error.message))}</div>"
        )
    elif call.status == "succeeded":
        parts.append(_json_block("Result", call.result))
    if call.interrupts:
        entries = "".join(
            f"<li>{_history_entry(entry, decision)}</li>"
            for entry, decision in zip(call.interrupts, decisions_of(call), strict=True)
        )
        parts.append(
            f'<div style="{_STYLE["muted"]}">What you were asked</div>'
            f'<ul style="{_STYLE["list"]}">{entries}</ul>'
        )
    return "".join(parts)


def _history_entry(entry: InterruptEntry, decision: Decision | None) -> str:
    asked = escape(_cut(entry.message))
    if decision is None:
        answer = f'<span style="color:{_WARN}">waiting for an answer</span>'
    else:
        colour = _ERROR if not decision.runs_action else _OK
        answer = f'<span style="color:{colour}">{escape(_cut(decision.words))}</span>'
    return f"{asked} &rarr; {answer}"


def _waiting(pending: Iterable[PendingInterrupt]) -> str:
    pending = list(pending)
    cards = []
    for p in pending:
        entry, call = p.interrupt, p.tool_call
        pick = f', interrupt="{entry.id}"' if len(pending) > 1 else ""
        if entry.kind == "tool-approval":
            title = "Approval needed"
            how = f"await run.resume(True{pick})  or  await run.reject('why'{pick})"
        else:
            title = "A question for you"
            data = "<answer>" if entry.response_schema else "'your answer'"
            how = f"await run.resume({data}{pick})  or  await run.reject('why'{pick})"
        parts = [
            f"<div><strong>{title}</strong> "
            f'<span style="{_STYLE["muted"]}">(read-only here)</span></div>',
            f'<div style="{_STYLE["text"]}">{escape(_cut(entry.message))}</div>',
            f'<div style="{_STYLE["muted"]}">Tool {_code(call.name)}</div>',
            _json_block("Arguments", call.effective_input),
        ]
        if entry.data is not None and not _repeats_call(entry, call):
            parts.append(_json_block("Data", entry.data))
        if entry.response_schema:
            parts.append(_json_block("Answer schema", entry.response_schema))
        parts.append(f'<div style="{_STYLE["muted"]}">Answer from code:</div>')
        parts.append(f'<pre style="{_STYLE["pre"]}">{escape(how)}</pre>')
        cards.append(f'<div style="{_STYLE["card"]}">{"".join(parts)}</div>')
    count = len(cards)
    waiting = "Waiting for your answer" if count == 1 else f"Waiting for {count} answers"
    return f'<div style="{_STYLE["item"]}"><strong>{waiting}</strong>{"".join(cards)}</div>'


def _repeats_call(entry: InterruptEntry, call: ToolCall) -> bool:
    """An approval's data that only repeats the call's tool name and arguments."""
    data = entry.data
    if entry.kind != "tool-approval" or not isinstance(data, dict):
        return False
    if not set(data) <= {"toolName", "args"}:
        return False
    if "toolName" in data and data["toolName"] != call.name:
        return False
    return "args" not in data or data["args"] in (call.input, call.effective_input)


def _json_block(label: str, value: Any) -> str:
    return (
        f'<div style="{_STYLE["muted"]}">{label}</div>'
        f'<pre style="{_STYLE["pre"]}">{escape(_json(value, indent=2))}</pre>'
    )


def _json(value: Any, indent: int | None = None) -> str:
    try:
        text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    except ValueError:
        text = repr(value)
    return _cut(text)


def _code(text: str) -> str:
    return f'<code style="{_STYLE["code"]}">{escape(text)}</code>'


def _cut(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]}… ({len(text) - MAX_TEXT} more characters)"
