"""Another framework's agent run in this kernel: its own AG-UI event stream, read as a
`RemoteRun` reads a server's, with no server in between.

`host(graph_or_agent)` takes what the user already has (a compiled LangGraph graph or an
`ag_ui_langgraph.LangGraphAgent`, a Pydantic AI `Agent`, an OpenAI Agents `Agent`, a
Microsoft Agent Framework `Agent` or `Workflow`, or any function from an AG-UI request to
its events) and returns a `HostedRun`: the same live view, the same cards read from each
framework's pauses, answered in that framework's own words.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import MissingDependencyError, UsageError
from ..run import DEFAULT_MAX_ANSWER_BYTES
from ._agent_framework import agent_framework_source
from ._agent_framework_workflow import agent_framework_workflow_source
from ._openai_agents import openai_agents_source
from ._remote import RemoteRun
from ._remote_http import ENDINGS
from ._remote_limits import RemoteLimits, count_event
from ._remote_saved import read

if TYPE_CHECKING:
    from ..models import ModelRequest
    from ..run import AgentRunResult, Debugger, ModelTurn, OnRecorded
    from ..transcript import AnsweredBy

__all__ = ["EventSource", "HostedRun", "host"]

EventSource = Callable[[dict[str, Any]], AsyncIterator[Any]]
"""An agent in this kernel: from an AG-UI request (`RunAgentInput` as JSON) to the events
of its answer, each an `ag_ui.core` event, a dict, or SSE text."""

LACKS = (
    "A hosted run is executed by {framework}: pausepoint shows it and answers its pauses, "
    "but has no debugger, forks, Retry or store for it."
)


class HostedRun(RemoteRun):
    """An agent of another framework run in this kernel through its own AG-UI events
    (see `host`): what a `RemoteRun` offers, with the request handed to `source` instead
    of posted. The framework keeps what it keeps (a LangGraph checkpointer holds the
    thread's state); this run keeps the transcript, the AG-UI history and the pauses."""

    def __init__(
        self,
        source: EventSource,
        *,
        framework: str,
        thread_id: str | None = None,
        forwarded_props: Mapping[str, Any] | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        limits: RemoteLimits | None = None,
    ) -> None:
        if not callable(source):
            raise UsageError(f"A hosted run needs an event source, not {type(source).__name__}.")
        if limits is not None and not isinstance(limits, RemoteLimits):
            raise UsageError(f"limits must be a RemoteLimits, not {type(limits).__name__}.")
        self.source = source
        self.framework = framework
        self.url = f"in this kernel ({framework})"
        self.headers: dict[str, str] = {}
        self.timeout = None
        self._begin(self.url, thread_id, forwarded_props, max_answer_bytes, limits)

    async def _follow(self, body: dict[str, Any]) -> None:
        # A copy, as a server would read: what the framework does with it is its own.
        sent = json.loads(json.dumps(body))
        await hear_all(self.source(sent), hear=self._hear, limits=self.limits)

    # -- what a hosted run lacks, in words about where it runs ---------------------------

    def _lacks(self, what: str) -> UsageError:
        return UsageError(f"{what} {LACKS.format(framework=self.framework)}")

    @property
    def debug(self) -> Debugger:
        raise self._lacks("There is no debugger here.")

    def model_request(self, turn: int) -> ModelRequest:
        raise self._lacks(f"What {self.framework} sent its model is not recorded here.")

    def fork(self, *, at: str | ModelTurn) -> Any:
        raise self._lacks("It cannot be forked.")

    def edit_item(self, position: int, *, text: str = "", result: Any = None) -> None:
        raise self._lacks("Its items cannot be edited.")

    async def retry(
        self, *, on_recorded: OnRecorded | None = None, by: AnsweredBy = "code"
    ) -> AgentRunResult:
        raise self._lacks("Retry is not offered; send a message or Continue.")

    @classmethod
    def load(  # type: ignore[override]
        cls,
        path: str | Path,
        agent: Any,
        *,
        limits: RemoteLimits | None = None,
        **options: Any,
    ) -> HostedRun:
        """A hosted run saved by `save`, with the same `agent` (as given to `host`) to
        go on with. For LangGraph the graph's checkpointer must still hold the thread."""
        saved = read(path)
        source, framework = source_of(agent, **options)
        run = cls(
            source,
            framework=framework,
            thread_id=saved.prompt.thread_id,
            forwarded_props=saved.forwarded_props,
            limits=limits,
        )
        run._restore(saved)
        return run

    def __repr__(self) -> str:
        return f"<HostedRun {self.id} {self.status} ({self.framework})>"


def host(
    agent: Any,
    *,
    thread_id: str | None = None,
    forwarded_props: Mapping[str, Any] | None = None,
    limits: RemoteLimits | None = None,
    **options: Any,
) -> HostedRun:
    """Run another framework's agent in this kernel, shown and answered as a pausepoint run::

        run = pausepoint.host(graph)        # a compiled LangGraph graph with a checkpointer
        await run.run("Refund order 42")     # its pauses are cards; answer them by clicking
        run

    `agent` is a compiled LangGraph graph (or an `ag_ui_langgraph.LangGraphAgent`), a
    Pydantic AI `Agent` (`options` go to its run: `deps=`, `model=`, ...), an OpenAI
    Agents `Agent` (`options` go to `Runner.run_streamed`: `context=`, `run_config=`,
    `max_turns=`, ...; its `needs_approval` tools pause as cards), a Microsoft Agent
    Framework `Agent` (`options` go to `agent.run`: `options=`, `tools=`, `middleware=`,
    ...; its `approval_mode="always_require"` tools pause as cards), an Agent Framework
    `Workflow` (its executors' `ctx.request_info(...)` questions are cards;
    `checkpoint_storage=` keeps its checkpoints, a `FileCheckpointStorage` for a saved run
    to go on after a restart; other `options` go to `workflow.run`: `tools=`,
    `function_invocation_kwargs=`, ...), or a function taking an AG-UI request (a dict)
    and returning an async iterator of its events. A LangGraph graph's thread is the
    run's `thread_id`."""
    source, framework = source_of(agent, **options)
    return HostedRun(
        source,
        framework=framework,
        thread_id=thread_id,
        forwarded_props=forwarded_props,
        limits=limits,
    )


def source_of(agent: Any, **options: Any) -> tuple[EventSource, str]:
    """The event source of `agent` and the framework's name."""
    module = type(agent).__module__
    if module.startswith("ag_ui_langgraph"):
        return _langgraph_agent(agent, options), "LangGraph"
    if module.startswith("langgraph") and hasattr(agent, "astream"):
        return _langgraph_graph(agent, options), "LangGraph"
    if module.startswith("pydantic_ai"):
        return _pydantic_ai(agent, options), "Pydantic AI"
    if module.split(".")[0] == "agents" and hasattr(agent, "tools"):
        return openai_agents_source(agent, options), "OpenAI Agents"
    if module.startswith("agent_framework") and hasattr(agent, "get_start_executor"):
        return agent_framework_workflow_source(agent, options), "Agent Framework"
    if module.startswith("agent_framework"):
        return agent_framework_source(agent, options), "Agent Framework"
    if callable(agent) and not isinstance(agent, type):
        if options:
            raise UsageError(f"An event source takes no options; got {', '.join(sorted(options))}.")
        return agent, getattr(agent, "__name__", "an event source")
    raise UsageError(
        f"pausepoint.host() takes a compiled LangGraph graph, a Pydantic AI Agent, an "
        f"OpenAI Agents Agent, an Agent Framework Agent or Workflow or a function from an "
        f"AG-UI request to its events, not {type(agent).__name__}."
    )


def _langgraph_graph(graph: Any, options: dict[str, Any]) -> EventSource:
    if getattr(graph, "checkpointer", None) is None:
        raise UsageError(
            "A hosted LangGraph graph needs a checkpointer to pause and go on: compile it "
            "with one, e.g. graph.compile(checkpointer=InMemorySaver())."
        )
    try:
        from ag_ui_langgraph import LangGraphAgent  # type: ignore[import-untyped]
    except ImportError:
        raise MissingDependencyError(
            "Hosting a LangGraph graph needs ag-ui-langgraph: pip install ag-ui-langgraph."
        ) from None
    name = options.pop("name", None) or getattr(graph, "name", None) or "graph"
    agent = LangGraphAgent(
        name=name,
        graph=graph,
        emit_interrupt_outcome=True,
        enable_legacy_on_interrupt_event=False,
        **options,
    )
    return _langgraph_agent(agent, {})


def _langgraph_agent(agent: Any, options: dict[str, Any]) -> EventSource:
    if options:
        raise UsageError(
            f"A LangGraphAgent is hosted as it is; give {', '.join(sorted(options))} to it."
        )
    from ag_ui.core import RunAgentInput

    def source(body: dict[str, Any]) -> AsyncIterator[Any]:
        # One copy per request, as its own server does: the agent keeps a run's state.
        return agent.clone().run(RunAgentInput.model_validate(body))  # type: ignore[no-any-return]

    return source


def _pydantic_ai(agent: Any, options: dict[str, Any]) -> EventSource:
    try:
        from ag_ui.core import RunAgentInput
        from pydantic_ai.ui.ag_ui import AGUIAdapter
    except ImportError:
        raise MissingDependencyError(
            "Hosting a Pydantic AI agent needs its AG-UI support: "
            "pip install 'pydantic-ai-slim[ag-ui]'."
        ) from None

    def source(body: dict[str, Any]) -> AsyncIterator[Any]:
        adapter = AGUIAdapter(agent=agent, run_input=RunAgentInput.model_validate(body))
        return adapter.run_stream(**options)

    return source


async def hear_all(
    events: AsyncIterator[Any],
    *,
    hear: Callable[[dict[str, Any]], Awaitable[None]],
    limits: RemoteLimits,
) -> None:
    """Pass each event of `events` to `hear` up to the run's last one, within `limits`'
    count, then read the rest without hearing it: a framework may save its state after
    its last event."""
    count = 0
    ended = False
    try:
        async for item in events:
            for event in _events_of(item):
                if ended:
                    continue
                count = count_event(count, limits, "The agent")
                await hear(event)
                ended = event.get("type") in ENDINGS
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()


def _events_of(item: Any) -> Iterator[dict[str, Any]]:
    """The event dicts in one item of a source: a model, a dict, or SSE text."""
    if isinstance(item, BaseModel):
        yield item.model_dump(mode="json", by_alias=True, exclude_none=True)
    elif isinstance(item, dict):
        yield item
    elif isinstance(item, str | bytes):
        text = item.decode() if isinstance(item, bytes) else item
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    event = json.loads(line[5:])
                except ValueError:
                    continue
                if isinstance(event, dict):
                    yield event
