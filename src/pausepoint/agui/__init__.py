"""AG-UI both ways: a run as a stream of AG-UI events, those events as SSE text, an agent
served over HTTP, and an agent served elsewhere followed from the notebook.

`events(run, ...)` drives one stretch of the run (a new message, a Continue, or the
answers of an AG-UI continuation) and yields `ag_ui.core` event models in protocol order;
`encode(...)` writes them as Server-Sent Events, so a web server only wires HTTP::

    from pausepoint.agui import encode, events

    async for frame in encode(events(run, "Refund order 42")):
        send(frame)

`app(agent, store)` is that web server: a Starlette ASGI app answering AG-UI
`RunAgentInput` POSTs for the agent's runs, one run per AG-UI thread, from a store or
statelessly (the transcript travels sealed in the client's state); `bearer(token)` makes
its `authorize` hook (`bearer({token: caller})` names callers, whose threads are then
theirs: `owner_only`, `ThreadAccess`), and `Limits` bounds what a request may send. It
needs the `agui` extra (``pip install 'pausepoint[agui]'``); ``python -m pausepoint.agui
module:agent`` serves an agent from the command line.

`RemoteRun(url)` is the other direction: an agent served over AG-UI (by pausepoint or any
other framework), run, shown and answered from the notebook like a local run, within
`RemoteLimits` (the stream it reads is anyone's). A pause without pausepoint's binding is
shown read-only unless a shape reader knows it (built in: Pydantic AI's approvals,
langchain's human in the loop; `register_shape` adds one): then its card is answered
here, in its producer's own words. `host(graph_or_agent)` does the same with no server:
a LangGraph graph or a Pydantic AI agent run in this kernel through its own AG-UI events
(`HostedRun`). `serve(agent)` (or `serve(asgi_app)`) serves
from a background thread, for a notebook that talks to it.

`tool_definitions(agent)` lists what a TanStack AI web client declares for the agent's
approval tools (``python -m pausepoint.agui module:agent --tool-definitions`` writes it
as JSON), so its `tool-approval` pauses read as such there.

`snapshot_messages(prompt)` is the transcript as AG-UI messages (what MESSAGES_SNAPSHOT
carries) and `message_id(prompt, position)` the id each item has on the wire.
"""

from pausepoint.agui._encode import CONTENT_TYPE, encode
from pausepoint.agui._host import EventSource, HostedRun, host
from pausepoint.agui._limits import Limits
from pausepoint.agui._messages import message_id, snapshot_messages
from pausepoint.agui._owners import ThreadAccess, owner_only
from pausepoint.agui._remote import RemoteRun
from pausepoint.agui._remote_limits import RemoteLimits
from pausepoint.agui._serve import Serving, serve
from pausepoint.agui._server import app, bearer
from pausepoint.agui._shapes import Shape, ShapeReader, register_shape
from pausepoint.agui._stream import events
from pausepoint.agui._tools import tool_definitions
from pausepoint.agui._translate import error_code

__all__ = [
    "CONTENT_TYPE",
    "EventSource",
    "HostedRun",
    "Limits",
    "RemoteLimits",
    "RemoteRun",
    "Serving",
    "Shape",
    "ShapeReader",
    "ThreadAccess",
    "app",
    "bearer",
    "encode",
    "error_code",
    "events",
    "host",
    "message_id",
    "owner_only",
    "register_shape",
    "serve",
    "snapshot_messages",
    "tool_definitions",
]
