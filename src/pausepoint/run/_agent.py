"""`Agent`: a model, its actions and its instructions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .._json import check_text
from ..actions import Action, count_setting, seconds_setting
from ..errors import UsageError
from ..models import ActionSpec, Model
from ..transcript import Prompt
from ._accept import DEFAULT_MAX_ANSWER_BYTES

if TYPE_CHECKING:
    from ..store import RunStore
    from ._debug import Breakpoint
    from ._run import AgentRun

__all__ = ["DEFAULT_MAX_TURNS", "DEFAULT_MODEL_TIMEOUT", "Agent"]

DEFAULT_MAX_TURNS = 50
"""Model requests allowed per stretch of a run, as peers do."""
DEFAULT_MODEL_TIMEOUT = 300.0
"""Seconds one model request (or stream) may take."""


class Agent:
    """What a run runs: a model, the actions it may call, and instructions.

    An agent holds no run state, so one agent can drive many runs, and a run saved in
    one process can be continued by a new `Agent` built the same way in another.
    `max_answer_bytes` bounds the size of an answer (its compact UTF-8 JSON; 1 MiB by
    default); a larger one is refused with `AnswerTooLargeError` and nothing is recorded::

        agent = Agent(model=ScriptedModel([...]), actions=[delete_record], instructions="...")
        run = agent.new_run("Delete record 7")
        result = await run.run()

    Bounds: `max_turns` model requests per stretch (one `run()`, `resume()`, ...; past it
    the run fails with `MaxTurnsExceededError` and `run.run(max_turns=...)` continues),
    `action_timeout` seconds per action execution unless the action sets its own
    `timeout`, and `model_timeout` seconds per model request (None: no limit).

    Durable runs: with `store` (e.g. `SQLiteStore("runs.db")`), every run of this agent
    is saved as it changes (unless `new_run(..., store=...)` says otherwise), under the
    agent's `name`; `agent.load(run_id)` rebuilds one in another kernel. While a stretch
    executes, the run holds a lease of `lease_ttl` seconds, renewed as it goes.
    """

    def __init__(
        self,
        *,
        model: Model,
        actions: Iterable[Action] = (),
        instructions: str | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        max_turns: int = DEFAULT_MAX_TURNS,
        action_timeout: float | None = None,
        model_timeout: float | None = DEFAULT_MODEL_TIMEOUT,
        name: str | None = None,
        store: RunStore | None = None,
        lease_ttl: float | None = None,
    ) -> None:
        # Checked where they are given: a timer or a counter would fail much later, with
        # a bare TypeError, in the middle of a run.
        max_turns = count_setting(max_turns, "max_turns")
        max_answer_bytes = count_setting(max_answer_bytes, "max_answer_bytes")
        action_timeout = seconds_setting(action_timeout, "action_timeout")
        model_timeout = seconds_setting(model_timeout, "model_timeout")
        lease_ttl = seconds_setting(lease_ttl, "lease_ttl")
        by_name: dict[str, Action] = {}
        for item in actions:
            if not isinstance(item, Action):
                raise UsageError(
                    f"{item!r} is not an action; decorate the function with @action first."
                )
            if item.name in by_name:
                raise UsageError(
                    f"Two actions are named {item.name!r}; give one @action(name=...)."
                )
            by_name[item.name] = item
        self.name = name
        self.store = store
        self.lease_ttl = lease_ttl
        self.model = model
        self.instructions = (
            None if instructions is None else check_text(instructions, "The instructions")
        )
        self.max_answer_bytes = max_answer_bytes
        self.max_turns = max_turns
        self.action_timeout = action_timeout
        self.model_timeout = model_timeout
        self.actions: Mapping[str, Action] = MappingProxyType(by_name)
        self.action_specs: tuple[ActionSpec, ...] = tuple(
            ActionSpec(a.name, a.description, a.input_schema()) for a in by_name.values()
        )
        self.input_schemas: Mapping[str, dict[str, Any]] = MappingProxyType(
            {spec.name: spec.input_schema for spec in self.action_specs}
        )

    def new_run(
        self,
        prompt: str | Prompt,
        *,
        store: RunStore | None = None,
        step: bool = False,
        breakpoints: Iterable[Breakpoint] = (),
        title: str | None = None,
    ) -> AgentRun:
        """A run over a new transcript that starts with this user message (or over `prompt`).

        With `store` (or the agent's default store), the run is stored now and saves every
        change as it happens; `title` names it in the store's listings and the inbox
        (default: its first user message). `step=True` pauses before every model request
        and action; `breakpoints` (action names, or functions of the tool call) pause
        before the matching actions (see `AgentRun.debug`)."""
        from ._run import AgentRun

        store = store if store is not None else self.store
        if title is not None and (store is None or not isinstance(title, str)):
            raise UsageError(
                "title names a stored run in listings: pass it as text, with store=... "
                "(or an agent built with Agent(store=...))."
            )
        run = AgentRun(self, prompt, store=store, step=step, breakpoints=breakpoints)
        if title is not None and store is not None:
            store.set_title(run.id, title)
        return run

    def load(self, run_id: str, store: RunStore | None = None) -> AgentRun:
        """Rebuild a stored run to continue it with this agent: same state, answerable.
        `store` defaults to the agent's."""
        from ._run import AgentRun

        store = store if store is not None else self.store
        if store is None:
            raise UsageError(
                "No store to load from: pass agent.load(run_id, store=...) or build the "
                "agent with Agent(store=...)."
            )
        return AgentRun.load(store, run_id, self)

    def start(
        self,
        prompt: str | Prompt,
        *,
        store: RunStore | None = None,
        step: bool = False,
        breakpoints: Iterable[Breakpoint] = (),
    ) -> AgentRun:
        """A new run, started in the background on the running loop; returns at once.

        In a notebook, show it as the cell's result to watch it live::

            run = agent.start("Refund order 42")
            run
        """
        return self.new_run(prompt, store=store, step=step, breakpoints=breakpoints).start()

    def __repr__(self) -> str:
        return f"Agent(model={self.model!r}, actions={list(self.actions)})"
