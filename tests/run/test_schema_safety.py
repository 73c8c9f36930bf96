"""Response schemas are checked at the raise, and checking an answer never leaves the kernel."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pausepoint import ActionContext, ActionInterrupt, Agent, ScriptedModel, action, call
from pausepoint.errors import (
    AnswerTooLargeError,
    InvalidResolutionError,
    InvalidResponseSchemaError,
)


def agent_asking(schema: dict[str, Any], **options: Any) -> Agent:
    @action
    async def ask(ctx: ActionContext) -> Any:
        if ctx.resumption is None:
            raise ActionInterrupt("Fill this in", response_schema=schema)
        return ctx.resumption.data

    return Agent(model=ScriptedModel([call("ask"), "done"]), actions=[ask], **options)


@pytest.fixture
def requests_seen() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"type": "string"}')

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/schema.json", seen
    server.shutdown()
    thread.join()


async def test_an_unresolvable_ref_fails_the_call_at_the_raise_not_the_answer() -> None:
    run = agent_asking({"$ref": "#/$defs/Missing"}).new_run("go")
    result = await run.run()
    record = next(run.prompt.tool_calls())
    assert result.status == "completed"  # the model saw the failure and answered
    assert record.status == "failed"
    assert record.error is not None
    assert record.error.name == "InvalidResponseSchemaError"
    assert "#/$defs/Missing" in record.error.message
    assert record.interrupts == []


async def test_a_remote_ref_is_refused_at_the_raise_and_never_fetched(
    requests_seen: tuple[str, list[str]],
) -> None:
    url, seen = requests_seen
    run = agent_asking({"type": "object", "properties": {"x": {"$ref": url}}}).new_run("go")
    await run.run()
    record = next(run.prompt.tool_calls())
    assert record.status == "failed"
    assert record.error is not None
    assert "outside the schema" in record.error.message
    assert seen == []


def test_a_file_ref_is_refused_and_the_file_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"const": "the secret contents"}')
    with pytest.raises(InvalidResponseSchemaError, match="outside the schema") as caught:
        ActionInterrupt("x", response_schema={"$ref": secret.as_uri()})
    assert "the secret contents" not in str(caught.value)
    assert caught.value.path == "$.$ref"


def test_local_refs_and_defs_are_accepted() -> None:
    pause = ActionInterrupt(
        "x",
        response_schema={
            "$defs": {"Item": {"type": "string", "$anchor": "item"}},
            "type": "array",
            "items": {"$ref": "#/$defs/Item"},
            "contains": {"$ref": "#item"},
        },
    )
    assert pause.response_schema is not None


def test_an_invalid_schema_is_refused_at_the_raise_with_the_place() -> None:
    with pytest.raises(InvalidResponseSchemaError, match="not a valid JSON Schema"):
        ActionInterrupt("x", response_schema={"properties": {"n": {"type": "integr"}}})


def test_a_pattern_the_safe_engine_cannot_run_is_refused_at_the_raise() -> None:
    with pytest.raises(InvalidResponseSchemaError, match="lookaround") as caught:
        ActionInterrupt(
            "x", response_schema={"properties": {"code": {"type": "string", "pattern": "(?=a)b"}}}
        )
    assert caught.value.path == "$.properties['code'].pattern"


ATTACK = "a" * 50_000 + "!"


@pytest.mark.parametrize(
    ("schema", "answer", "accepted"),
    [
        ({"type": "string", "pattern": "^(a+)+$"}, ATTACK, False),
        (
            {"type": "object", "patternProperties": {"^(a+)+$": {"type": "integer"}}},
            {ATTACK: "x"},
            True,
        ),
        (
            {
                "type": "object",
                "patternProperties": {"^(a+)+$": {"type": "integer"}},
                "additionalProperties": False,
            },
            {ATTACK: "x"},
            False,
        ),
    ],
)
async def test_a_catastrophic_pattern_cannot_hang_the_kernel(
    schema: dict[str, Any], answer: Any, accepted: bool
) -> None:
    run = agent_asking(schema).new_run("go")
    await run.run()
    started = time.perf_counter()
    try:
        await run.resume(answer)
    except InvalidResolutionError:
        assert not accepted
    else:
        assert accepted
    # A backtracking engine would not finish on ATTACK in any lifetime; RE2 is linear.
    assert time.perf_counter() - started < 60


@pytest.mark.parametrize(
    ("fmt", "bad", "good"),
    [
        ("email", "not-an-email@", "ada@example.com"),
        ("email", "a@b", "a@b.io"),
        ("date", "2026-02-30", "2026-02-28"),
        ("date-time", "2026-01-01T10:00:00", "2026-01-01T10:00:00Z"),
        ("time", "25:00:00Z", "23:00:00Z"),
        ("uuid", "not-a-uuid", "123e4567-e89b-12d3-a456-426614174000"),
        ("ipv4", "256.1.1.1", "192.0.2.1"),
        ("ipv6", "1:::2", "2001:db8::1"),
        ("hostname", "-bad-.example", "ok.example"),
        ("uri", "no scheme", "https://example.com/x"),
        ("duration", "P1.5D", "P1DT2H"),
        ("url", "http://localhost", "https://example.com/a"),
        ("byte", "not base64!", "aGVsbG8="),
        ("iso-time", "24:00:00", "10:00:00"),
    ],
)
async def test_the_kernel_refuses_an_answer_the_browser_would_refuse_by_format(
    fmt: str, bad: str, good: str
) -> None:
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}}
    run = agent_asking(schema).new_run("go")
    await run.run()
    with pytest.raises(InvalidResolutionError) as caught:
        await run.resume({"v": bad})
    assert caught.value.problems[0].path == "$.v"
    assert run.pending
    result = await run.resume({"v": good})
    assert result.status == "completed"


async def test_an_answer_over_the_size_limit_is_refused_before_anything_is_recorded() -> None:
    run = agent_asking({"type": "string"}, max_answer_bytes=1000).new_run("go")
    await run.run()
    before = run.prompt.model_dump_json()
    with pytest.raises(AnswerTooLargeError, match="max_answer_bytes") as caught:
        await run.resume("x" * 1000)
    assert caught.value.size == 1002  # the quotes count
    assert run.prompt.model_dump_json() == before
    result = await run.resume("x" * 998)
    assert result.status == "completed"


async def test_the_default_size_limit_applies_to_resume_batches_too() -> None:
    from pausepoint.errors import ResumeBatchError
    from pausepoint.run import DEFAULT_MAX_ANSWER_BYTES

    run = agent_asking({"type": "string"}).new_run("go")
    await run.run()
    (pending,) = run.pending
    entry = {
        "interruptId": pending.interrupt.id,
        "status": "resolved",
        "payload": "x" * DEFAULT_MAX_ANSWER_BYTES,
    }
    with pytest.raises(ResumeBatchError, match="bytes of JSON"):
        await run.continue_with([entry])
    assert run.pending


def test_a_schema_number_too_large_for_a_double_is_refused_at_the_raise() -> None:
    with pytest.raises(InvalidResponseSchemaError, match="double") as caught:
        ActionInterrupt("x", response_schema={"type": "integer", "maximum": 10**400})
    assert caught.value.path == "$['maximum']"


async def test_answer_checking_never_fetches_a_ref_even_from_an_unchecked_entry(
    requests_seen: tuple[str, list[str]],
) -> None:
    from pausepoint.transcript import InterruptEntry

    url, seen = requests_seen
    run = agent_asking({"type": "string"}).new_run("go")
    await run.run()
    record = next(run.prompt.tool_calls())
    # Written around every check, as a buggy extension might.
    record.interrupts[-1] = InterruptEntry(message="x", response_schema={"$ref": url})
    with pytest.raises(InvalidResolutionError, match="reject it instead"):
        await run.resume("anything")
    assert seen == []
