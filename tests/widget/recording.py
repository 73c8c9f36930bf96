"""A comm that records what the kernel would send to the front end, for kernel-less tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import comm
import pytest
from comm.base_comm import BaseComm
from pydantic import BaseModel, TypeAdapter

from pausepoint.widget import Inbox, RunView
from pausepoint.widget.protocol import REPLIES
from pausepoint.widget.traits import (
    FindValue,
    InboxTraits,
    Item,
    JumpValue,
    OpenedRun,
    RunViewTraits,
    TriagePage,
)

if TYPE_CHECKING:
    from pausepoint import AgentRun
    from pausepoint.agui import RemoteRun


class RecordingComm(BaseComm):
    """Keeps every message instead of sending it; `browser_*` act as the front end would."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.requests: dict[Any, dict[str, Any]] = {}
        self._lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        # Round-trip through JSON, as the wire would: later mutation cannot alter the record.
        with self._lock:
            self.messages.append((msg_type, json.loads(json.dumps(data or {}))))

    # what the kernel sent

    def custom(self, type_: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            sent = [d["content"] for t, d in self.messages if d.get("method") == "custom"]
        return [c for c in sent if type_ is None or c.get("type") == type_]

    def updates(self) -> list[dict[str, Any]]:
        with self._lock:
            return [d["state"] for t, d in self.messages if d.get("method") == "update"]

    def opened_state(self) -> dict[str, Any]:
        with self._lock:
            return next(d["state"] for t, d in self.messages if t == "comm_open")

    def bytes_sent(self) -> int:
        with self._lock:
            return sum(len(json.dumps(d)) for _, d in self.messages)

    # what the front end sends

    def browser_send(self, content: dict[str, Any]) -> None:
        if isinstance(content, dict):
            with self._lock:
                key = content.get("requestId")
                if isinstance(key, str):
                    self.requests.setdefault(key, content)
        self.handle_msg(
            {
                "content": {
                    "comm_id": self.comm_id,
                    "data": {"method": "custom", "content": content},
                },
                "buffers": [],
            }
        )


@pytest.fixture
def comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    """Every comm a widget opens during the test, recording."""
    made: list[RecordingComm] = []

    def create(*args: Any, **kwargs: Any) -> RecordingComm:
        kwargs.pop("comm_id", None)
        c = RecordingComm(*args, **kwargs)
        made.append(c)
        return c

    monkeypatch.setattr(comm, "create_comm", create)
    yield made
    for c in made:
        assert_declared(c)


_ITEMS: TypeAdapter[Any] = TypeAdapter(list[Item])
_FIELDS: dict[type[BaseModel], dict[str, TypeAdapter[Any]]] = {
    model: {name: TypeAdapter(f.annotation) for name, f in model.model_fields.items()}
    for model in (RunViewTraits, InboxTraits)
}


def _own_traits(widget: type[Any]) -> frozenset[str]:
    return frozenset(widget.class_own_traits(sync=True))


_OWN: dict[type[BaseModel], frozenset[str]] = {
    RunViewTraits: _own_traits(RunView),
    InboxTraits: _own_traits(Inbox),
}


def assert_declared(comm: RecordingComm) -> None:
    """Every trait and message `comm` carried is what `pausepoint.widget.traits` and
    `protocol` declare: each synced trait of the view's model, each item sent after the
    opening state, each reply."""
    with comm._lock:
        messages = list(comm.messages)
    opened = next((d["state"] for t, d in messages if t == "comm_open"), {})
    if opened.get("view") == "inbox":
        model: type[BaseModel] = InboxTraits
    elif "run_id" in opened:
        model = RunViewTraits
    else:
        return  # the shared front end's own model, or no widget
    fields = _FIELDS[model]
    for t, data in messages:
        if t == "comm_open" or data.get("method") == "update":
            for key, value in data["state"].items():
                if key.startswith("_") or key not in _OWN[model]:
                    continue  # ipywidgets' and anywidget's own traits
                assert key in fields, f"{model.__name__} does not declare the trait {key!r}"
                fields[key].validate_python(value)
        elif data.get("method") == "custom":
            content = data["content"]
            if content.get("type") == "items":
                _ITEMS.validate_python(content["items"])
            elif content.get("type") == "response":
                REPLIES.validate_python(content)
                asked = comm.requests.get(content.get("requestId"), {})
                value = _VALUES.get(_value_kind(asked))
                if content.get("ok") and value is not None:
                    value.validate_python(content["value"])


_VALUES: dict[str, TypeAdapter[Any]] = {
    "find": TypeAdapter(FindValue),
    "jump": TypeAdapter(JumpValue),
    "list": TypeAdapter(TriagePage),
    "open": TypeAdapter(OpenedRun),
}


def _value_kind(request: dict[str, Any]) -> str | None:
    kind = request.get("type")
    if kind == "find" and request.get("jump") is not None:
        return "jump"
    return kind if isinstance(kind, str) else None


def recording_of(run: AgentRun | RemoteRun) -> RecordingComm:
    """The comm of the run's view (opening the view if needed)."""
    comm = run.view.comm
    assert isinstance(comm, RecordingComm)
    return comm


def comm_of(box: Inbox) -> RecordingComm:
    """The comm of an inbox."""
    assert isinstance(box.comm, RecordingComm)
    return box.comm


async def response_to(comm: RecordingComm, request: dict[str, Any]) -> dict[str, Any]:
    """Send `request` as the front end would and wait for the one reply to it."""
    from tests.helpers import until

    comm.browser_send(request)
    found: dict[str, Any] = await until(
        lambda: next(
            (r for r in comm.custom("response") if r["requestId"] == request["requestId"]), None
        )
    )
    return found
