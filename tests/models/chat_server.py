"""A real HTTP server on 127.0.0.1 that speaks the chat-completions wire format.

Tests script its replies in order and read back the JSON bodies it received. A reply made
with `answer(...)` is sent as plain JSON or as server-sent events, whichever the request
asked for; `events(...)` sends exactly the chunks given.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ChatServer", "Reply", "answer", "chunk", "error", "events"]


@dataclass
class Reply:
    status: int = 200
    text: str | None = None
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)
    body: Any = None
    sse: list[dict[str, Any]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # drop the connection after this many SSE chunks


def answer(text: str | None = None, *tool_calls: tuple[str, str, str]) -> Reply:
    """A model answer: text and/or tool calls given as (id, name, arguments JSON text)."""
    return Reply(text=text, tool_calls=list(tool_calls))


def error(status: int, message: str, **headers: str) -> Reply:
    body = {"error": {"message": message, "type": "test_error", "code": None}}
    return Reply(status=status, body=body, headers=headers)


def events(*chunks: dict[str, Any], cut_after: int | None = None) -> Reply:
    return Reply(sse=list(chunks), cut_after=cut_after)


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _completion(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": id, "type": "function", "function": {"name": name, "arguments": args}}
            for id, name, args in reply.tool_calls
        ]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
    }


def _chunks(reply: Reply) -> list[dict[str, Any]]:
    if reply.sse is not None:
        return reply.sse
    out = [chunk({"role": "assistant", "content": ""})]
    for word in (reply.text or "").split(" "):
        if word:
            out.append(chunk({"content": word + " "}))
    for index, (id, name, args) in enumerate(reply.tool_calls):
        head = {"index": index, "id": id, "type": "function", "function": {"name": name}}
        out.append(chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]}))
        half = len(args) // 2
        for part in (args[:half], args[half:]):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    out.append(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
    return out


class ChatServer:
    """Answers POST /v1/chat/completions from a queue of scripted replies."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def add(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path != "/v1/chat/completions":
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                elif not server.replies:
                    self._json(500, {"error": {"message": "the test scripted no reply"}})
                else:
                    self._send(server.replies.popleft(), bool(body.get("stream")))

            def _send(self, reply: Reply, stream: bool) -> None:
                if reply.status != 200 or reply.body is not None:
                    self._json(reply.status, reply.body, reply.headers)
                elif stream or reply.sse is not None:
                    self._sse(reply)
                else:
                    self._json(200, _completion(reply))

            def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if reply.cut_after is not None:
                    # A promised length that never arrives: the client sees a broken body.
                    self.send_header("Content-Length", "1000000")
                self.end_headers()
                for position, item in enumerate(_chunks(reply)):
                    if reply.cut_after is not None and position == reply.cut_after:
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        return Handler
