"""A tiny OpenAI-compatible chat endpoint for the real-model notebook, offline.

It streams like a real server (server-sent events). Its rule: answer a user message with
a `refund_order` call for the first number in it; after a tool result, say what happened.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY_PREFIX = "Stub model says:"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "stub-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _answer(messages: list[dict[str, Any]]) -> list[bytes]:
    last = messages[-1]
    if last["role"] == "user":
        number = re.search(r"\d+", last.get("content") or "")
        order_id = int(number.group()) if number else 42
        call = {
            "index": 0,
            "id": f"call_stub_{len(messages)}",
            "type": "function",
            "function": {"name": "refund_order", "arguments": json.dumps({"order_id": order_id})},
        }
        return [_chunk({"role": "assistant", "tool_calls": [call]}), _chunk({}, "tool_calls")]
    text = f"{REPLY_PREFIX} {last.get('content')}"
    return [_chunk({"role": "assistant", "content": text}), _chunk({}, "stop")]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length))
        chunks = _answer(request["messages"])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(chunk)
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def fake_openai_server() -> Iterator[str]:
    """Serve on a free local port; yields the base URL (ending in /v1)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
