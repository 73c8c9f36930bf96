"""RunWriter: the Prompt as it is now becomes the smallest version-checked write."""

from __future__ import annotations

from typing import Any

import pytest
from tests.helpers import Clock, StoreFactory, paused_delete
from tests.store.transcripts import finish_step, start_step

from pausepoint import Action, AgentRun, Prompt, ToolCall
from pausepoint.store import (
    Change,
    LeaseLostError,
    RunStore,
    RunWriter,
    SQLiteStore,
    StoreConflictError,
    StoreError,
)
from pausepoint.transcript import AssistantMessage, InterruptEntry, ResumeResolution, UserMessage


class RecordingStore(SQLiteStore):
    """A SQLite store that keeps every change it was asked to write."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.changes: list[Change] = []

    def write(self, run_id: str, change: Change, **kwargs: Any) -> int:
        self.changes.append(change)
        return super().write(run_id, change, **kwargs)


def test_each_save_writes_only_new_items_and_the_records_that_moved(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RecordingStore(tmp_path / "runs.db")
    prompt = Prompt.from_user("go", run_id="run_d")
    writer = RunWriter.create(store, prompt, status="running")
    for n in range(200):
        record = start_step(prompt, n)
        writer.save(prompt)
        finish_step(record, n)
        writer.save(prompt)
    serialized: list[str] = []
    for cls in (UserMessage, AssistantMessage, ToolCall):
        original = cls.model_dump_json

        def counting(self: Any, *args: Any, _original: Any = original, **kw: Any) -> str:
            serialized.append(type(self).__name__)
            return str(_original(self, *args, **kw))

        monkeypatch.setattr(cls, "model_dump_json", counting)
    store.changes.clear()

    record = start_step(prompt, 200)
    writer.save(prompt)
    finish_step(record, 200)
    writer.save(prompt)

    started, finished = store.changes
    assert [type(i).__name__ for i in started.appended] == ["AssistantMessage", "ToolCall"]
    assert dict(started.replaced) == {}
    assert finished.appended == []
    assert list(finished.replaced) == [402]
    assert sorted(serialized) == ["AssistantMessage", "ToolCall", "ToolCall"]
    monkeypatch.undo()
    assert store.load_prompt("run_d") == (prompt, writer.version)
    assert writer.version == 1 + 2 * 201


def test_in_place_changes_of_an_open_record_are_saved(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_p")
    writer = RunWriter.create(store, prompt, status="running")
    record = start_step(prompt, 1)
    writer.save(prompt)

    record.status = "interrupted"
    record.interrupts.append(InterruptEntry(message="Sure?"))
    writer.save(prompt, status="interrupted")
    assert store.load_prompt("run_p")[0] == prompt
    assert [p.message for p in store.summary("run_p").pending] == ["Sure?"]

    record.interrupts[-1].resolution = ResumeResolution(data=True)
    writer.save(prompt, status="running")
    assert store.load_prompt("run_p")[0] == prompt
    assert store.summary("run_p").pending == ()

    finish_step(record, 1)
    prompt.items.append(AssistantMessage(text="Done."))
    version = writer.save(prompt, status="completed")

    assert store.load_prompt("run_p") == (prompt, version)
    assert store.summary("run_p").status == "completed"


def test_a_running_record_run_again_saves_its_new_attempt(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_a")
    writer = RunWriter.create(store, prompt, status="running")
    record = start_step(prompt, 1)
    record.status, record.attempts = "running", 1
    writer.save(prompt)

    # After a crash the loop runs the call again: still "running", one more attempt.
    loaded_writer, loaded = RunWriter.load(store, "run_a")
    again = loaded.items[-1]
    assert isinstance(again, ToolCall)
    again.attempts = 2
    loaded_writer.save(loaded)

    stored = store.load_prompt("run_a")[0].items[-1]
    assert isinstance(stored, ToolCall)
    assert stored.attempts == 2


def test_saving_an_unchanged_prompt_writes_nothing(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_n")
    writer = RunWriter.create(store, prompt, status="running")
    start_step(prompt, 1)
    version = writer.save(prompt)

    assert writer.save(prompt) == version
    assert writer.save(prompt, status="running") == version
    assert store.summary("run_n").version == version


def test_named_positions_save_items_the_writer_does_not_watch(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_named")
    writer = RunWriter.create(store, prompt, status="running")
    record = start_step(prompt, 1)
    finish_step(record, 1)
    writer.save(prompt)

    record.result = "corrected"  # a settled record, changed by hand
    assert writer.save(prompt) == 2
    assert writer.save(prompt, changed=[2]) == 3
    assert store.load_prompt("run_named")[0] == prompt


def test_a_writer_that_lost_a_race_is_unchanged_and_a_reloaded_one_goes_on(
    open_store: StoreFactory,
) -> None:
    here, there = open_store(), open_store()
    prompt = Prompt.from_user("go", run_id="run_w")
    mine = RunWriter.create(here, prompt, status="running")
    theirs, their_prompt = RunWriter.load(there, "run_w")
    start_step(their_prompt, 1)
    theirs.save(their_prompt)
    start_step(prompt, 2)

    with pytest.raises(StoreConflictError):
        mine.save(prompt)
    assert (mine.version, mine.saved_items) == (1, 1)

    again, current = RunWriter.load(here, "run_w")
    assert current == their_prompt
    current.items.append(AssistantMessage(text="after the race"))
    assert again.save(current) == 3
    assert here.load_prompt("run_w")[0] == current


def test_a_writer_whose_lease_was_taken_over_cannot_save(store: RunStore, clock: Clock) -> None:
    store.create(Prompt.from_user("go", run_id="run_lease"), status="interrupted")
    writer, prompt = RunWriter.load(store, "run_lease", owner="a", ttl=30)
    start_step(prompt, 1)
    writer.save(prompt)
    clock.advance(31)
    store.acquire("run_lease", "b", 30)
    prompt.items.append(AssistantMessage(text="late"))

    with pytest.raises(LeaseLostError):
        writer.save(prompt)
    assert len(store.load_prompt("run_lease")[0].items) == 3


def test_a_writer_refuses_removed_items_and_other_runs(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_grow")
    start_step(prompt, 1)
    writer = RunWriter.create(store, prompt, status="running")

    del prompt.items[-1]
    with pytest.raises(StoreError, match="only grow"):
        writer.save(prompt)
    with pytest.raises(StoreError, match="make a writer"):
        writer.save(Prompt.from_user("x", run_id="run_else"))
    assert store.summary("run_grow").version == 1


async def test_a_real_run_saved_at_each_stop_reloads_to_the_same_state(
    store: RunStore, delete_record: Action
) -> None:
    run = await paused_delete(delete_record)
    writer = RunWriter.create(store, run.prompt, status="interrupted", agent="ops")
    (listed,) = store.runs(status="interrupted")
    assert [p.interrupt_id for p in listed.pending] == [run.pending[0].id]

    loaded, _ = store.load_prompt(run.id)
    assert AgentRun(run.agent, loaded).state == run.state

    result = await run.resume({"approved": True})
    writer.save(run.prompt, status=result.status)

    loaded, version = store.load_prompt(run.id)
    assert loaded == run.prompt
    assert loaded.output == "Gone."
    assert store.summary(run.id).status == "completed"
    assert version == 2


def test_changed_instructions_are_saved_with_the_header(store: RunStore) -> None:
    prompt = Prompt.from_user("go", run_id="run_i")
    writer = RunWriter.create(store, prompt, status="ready")

    prompt.instructions = "Answer in French."
    assert writer.save(prompt) == 2

    assert store.load_prompt("run_i") == (prompt, 2)
