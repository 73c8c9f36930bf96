"""`app(agent)`: an agent served over HTTP as an AG-UI endpoint (a Starlette ASGI app).

Starlette is imported when an app is built, so `import pausepoint.agui` works without
the `agui` extra.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..errors import MissingDependencyError, UsageError
from ..run import Agent
from ..store import RunStore
from ._encode import coalesce, encode
from ._handler import Caller, Handler
from ._limits import Limits
from ._owners import AuthorizeThread, ThreadAccess, owner_only, verdict_of
from ._state import secret_bytes

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["LOOPBACK_HOSTS", "Authorize", "app", "bearer", "hosts_for"]

Authorize = Callable[["Request"], bool | str | Awaitable[bool | str]]
"""Decides whether a request may use the endpoint (sync or async): True admits it, a
non-empty string admits it as that caller (whose threads are then theirs alone)."""

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The `Host` names a server answers by default: those of this machine's loopback."""


def app(
    agent: Agent,
    store: RunStore | None = None,
    *,
    secret: bytes | str | None = None,
    cors_origins: Iterable[str] | None = None,
    authorize: Authorize | None = None,
    authorize_thread: AuthorizeThread | None = None,
    allowed_hosts: Iterable[str] | None = LOOPBACK_HOSTS,
    limits: Limits | None = None,
    path: str = "/",
    require_sealed_state: bool = False,
) -> Starlette:
    """Serve `agent` as an AG-UI endpoint: an ASGI app for uvicorn or any ASGI server.

    POST `path` with a `RunAgentInput` answers with an SSE stream of AG-UI events for one
    stretch of the thread's run: a new conversation, the next user message, or the
    continuation whose `resume` answers the pending interrupts (checked as a whole
    batch). A refused request is a stream of one RUN_ERROR whose `code` says why, and
    nothing changes. GET `path` describes the agent as JSON::

        import uvicorn
        from pausepoint.agui import app, bearer

        uvicorn.run(app(agent, SQLiteStore("runs.db"), authorize=bearer(token)), port=8000)

    With `store` (default: the agent's own), the run of thread T is the stored run with id
    T, so many server processes can share one database. Without a store the server keeps
    nothing: each response ends with a STATE_SNAPSHOT holding the transcript sealed with
    an HMAC under `secret`, which the client sends back as its state. The default secret
    is random for this app, so processes behind one address need a shared `secret=`.

    Only what a web page cannot send on its own is run: a POST must be
    ``application/json`` (415 otherwise), its `Host` one of `allowed_hosts` (400
    otherwise; this machine's loopback names by default, ``["*"]`` for any), and a
    browser's `Origin`, when sent, this server's own or one of `cors_origins` (403
    otherwise). `cors_origins` lists the web origins allowed to call from a browser
    (none by default).

    `authorize(request)` (sync or async; see `bearer`) returning False answers 401; one
    returning a string admits the request as that caller. A thread a named caller starts
    is theirs: `authorize_thread(request, access)` (default `owner_only`) decides for each
    request of a thread, given a `ThreadAccess`, and a refusal is a RUN_ERROR `forbidden`
    that tells nothing of the thread. `limits` (a `Limits`) bounds each request and
    stream. Raises `MissingDependencyError` without Starlette: ``pip install
    'pausepoint[agui]'``.
    """
    try:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.cors import CORSMiddleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        from ._response import EventStreamResponse
    except ImportError as exc:
        raise MissingDependencyError(
            "Serving an agent over AG-UI needs Starlette: pip install 'pausepoint[agui]'."
        ) from exc

    if not isinstance(agent, Agent):
        raise UsageError(f"app() serves an Agent, not {type(agent).__name__}.")
    if store is not None and not isinstance(store, RunStore):
        raise UsageError(
            f"store must be a RunStore (SQLiteStore, PostgresStore), not {type(store).__name__}."
        )
    if not isinstance(path, str) or not path.startswith("/"):
        raise UsageError(f"path must start with '/', e.g. '/agent', not {path!r}.")
    if authorize is not None and not callable(authorize):
        raise UsageError("authorize must be a function of the request, e.g. bearer(token).")
    if authorize_thread is not None and not callable(authorize_thread):
        raise UsageError(
            "authorize_thread must be a function of the request and a ThreadAccess, "
            "e.g. owner_only."
        )
    if limits is not None and not isinstance(limits, Limits):
        raise UsageError(f"limits must be a Limits, not {type(limits).__name__}.")
    bounds = limits or Limits()
    origins = _origins(cors_origins)
    hosts = _hosts(allowed_hosts)
    thread_hook = authorize_thread or owner_only
    handler = Handler(
        agent,
        store if store is not None else agent.store,
        secret_bytes(secret),
        require_sealed_state=require_sealed_state,
        limits=bounds,
    )

    async def caller_of(request: Request) -> Caller | None:
        """Who the request comes from, or None when the endpoint does not admit it."""
        identity: str | None = None
        if authorize is not None:
            decided = authorize(request)
            if isinstance(decided, str):
                if not decided:
                    return None
                identity = decided
            elif not await verdict_of(decided):
                return None

        async def may_use(access: ThreadAccess) -> bool:
            return await verdict_of(thread_hook(request, access))

        return Caller(identity, may_use)

    async def endpoint(request: Request) -> Response:
        refused = _cross_site(request, origins)
        if refused is not None:
            return JSONResponse(refused[1], status_code=refused[0])
        caller = await caller_of(request)
        if caller is None:
            return JSONResponse(
                {
                    "error": "unauthorized",
                    "message": "This AG-UI endpoint needs credentials: send "
                    "'Authorization: Bearer <token>'.",
                },
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        if request.method == "POST":
            body = await _read_body(request, bounds.max_body_bytes)
            if body is None:
                return JSONResponse(
                    {
                        "error": "too-large",
                        "message": f"The body is longer than this server reads "
                        f"({bounds.max_body_bytes:,} bytes; Limits(max_body_bytes=...)); "
                        "nothing was run.",
                    },
                    status_code=413,
                )
            chunks = coalesce(
                encode(handler.stream(body, caller)), max_buffered=bounds.max_buffered_bytes
            )
            return EventStreamResponse(chunks, send_timeout=bounds.send_timeout)
        return JSONResponse(handler.describe())

    middleware = []
    if hosts != ["*"]:
        middleware.append(
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts, www_redirect=False)
        )
    if origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=origins,
                allow_methods=["GET", "POST"],
                allow_headers=["*"],
            )
        )
    return Starlette(routes=[Route(path, endpoint, methods=["GET", "POST"])], middleware=middleware)


def bearer(token: str | Mapping[str, str]) -> Callable[[Request], bool | str]:
    """An `authorize` hook that admits requests carrying ``Authorization: Bearer <token>``
    (compared in constant time)::

        app(agent, authorize=bearer(os.environ["AGENT_TOKEN"]))

    Given a mapping of tokens to callers, it admits each token as its caller, so the
    threads each one starts are theirs alone::

        app(agent, store, authorize=bearer({alice_token: "alice", bob_token: "bob"}))
    """
    if isinstance(token, str):
        tokens: dict[str, str | None] = {token: None}
    elif isinstance(token, Mapping) and token:
        tokens = dict(token)
        if not all(isinstance(who, str) and who for who in tokens.values()):
            raise UsageError("bearer({token: caller}) names each caller with a non-empty str.")
    else:
        raise UsageError("bearer() needs a token string, or a mapping of tokens to callers.")
    if not all(isinstance(t, str) and t.strip() for t in tokens):
        raise UsageError("bearer() needs non-empty token strings.")
    expected = [(t.strip().encode("utf-8"), who) for t, who in tokens.items()]

    def authorize(request: Request) -> bool | str:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        sent = given.strip().encode("utf-8")
        found: bool | str = False
        for candidate, who in expected:  # every one compared: the time tells no token
            if hmac.compare_digest(sent, candidate) and scheme.lower() == "bearer":
                found = True if who is None else who
        return found

    return authorize


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The body, or None once it is longer than `limit` (read no further than that)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    parts, size = [], 0
    async for part in request.stream():
        size += len(part)
        if size > limit:
            return None
        parts.append(part)
    return b"".join(parts)


def _cross_site(request: Request, origins: list[str]) -> tuple[int, dict[str, str]] | None:
    """Why a request a web page could send on its own is refused (status, body), if it is:
    a POST that is not JSON (no page sends one without the server's CORS consent), or an
    `Origin` other than this server's own and the allowed ones."""
    origin = request.headers.get("origin")
    if origin is not None:
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin != own and origin not in origins and "*" not in origins:
            return 403, {
                "error": "forbidden-origin",
                "message": f"Requests from the web origin {origin!r} are not allowed here; "
                "serve with app(..., cors_origins=[...]) to allow it.",
            }
    if request.method == "POST":
        kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if kind != "application/json":
            return 415, {
                "error": "unsupported-media-type",
                "message": f"The body must be sent as 'Content-Type: application/json', not "
                f"{kind or 'none'!r}; nothing was run.",
            }
    return None


def hosts_for(bind: str) -> tuple[str, ...] | None:
    """The `Host` names a server bound to address `bind` answers by default: the loopback
    names when it listens on loopback alone, any (None) otherwise."""
    if bind == "localhost":
        return LOOPBACK_HOSTS
    try:
        return LOOPBACK_HOSTS if ipaddress.ip_address(bind.strip("[]")).is_loopback else None
    except ValueError:
        return None


def _hosts(allowed_hosts: Iterable[str] | None) -> list[str]:
    if allowed_hosts is None:
        return ["*"]
    if isinstance(allowed_hosts, str):
        raise UsageError(
            f"allowed_hosts is a list of host names, e.g. [{allowed_hosts!r}], not one string."
        )
    hosts = list(allowed_hosts)
    if not hosts or not all(isinstance(h, str) and h for h in hosts):
        raise UsageError(
            "allowed_hosts names the hosts this server answers as, e.g. ['agent.example.com'] "
            f"(['*'] for any), not {hosts!r}."
        )
    return hosts


def _origins(cors_origins: Iterable[str] | None) -> list[str]:
    if cors_origins is None:
        return []
    if isinstance(cors_origins, str):
        raise UsageError(
            f"cors_origins is a list of origins, e.g. [{cors_origins!r}], not one string."
        )
    origins = list(cors_origins)
    bad = [o for o in origins if not isinstance(o, str) or not o]
    if bad:
        raise UsageError(f"cors_origins holds origins like 'https://app.example', not {bad!r}.")
    return origins
