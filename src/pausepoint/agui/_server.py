"""`app(agent)`: an agent served over HTTP as an AG-UI endpoint (a Starlette ASGI app).

Starlette is imported when an app is built, so `import pausepoint.agui` works without
the `agui` extra.
"""

from __future__ import annotations

import hmac
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import MissingDependencyError, UsageError
from ..run import Agent
from ..store import RunStore
from ._encode import CONTENT_TYPE, coalesce, encode
from ._handler import Handler
from ._state import secret_bytes

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["Authorize", "app", "bearer"]

Authorize = Callable[["Request"], bool | Awaitable[bool]]
"""Decides whether a request may use the endpoint (sync or async)."""


def app(
    agent: Agent,
    store: RunStore | None = None,
    *,
    secret: bytes | str | None = None,
    cors_origins: Iterable[str] | None = None,
    authorize: Authorize | None = None,
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

    `authorize(request)` (sync or async; see `bearer`) returning False answers 401.
    `cors_origins` lists the web origins allowed to call from a browser (none by default).
    Raises `MissingDependencyError` without Starlette: ``pip install 'pausepoint[agui]'``.
    """
    try:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.cors import CORSMiddleware
        from starlette.responses import JSONResponse, StreamingResponse
        from starlette.routing import Route
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
    origins = _origins(cors_origins)
    handler = Handler(
        agent,
        store if store is not None else agent.store,
        secret_bytes(secret),
        require_sealed_state=require_sealed_state,
    )

    async def allowed(request: Request) -> bool:
        if authorize is None:
            return True
        verdict = authorize(request)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return verdict is True

    async def endpoint(request: Request) -> Response:
        if not await allowed(request):
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
            body = await request.body()
            return StreamingResponse(
                coalesce(encode(handler.stream(body))),
                media_type=CONTENT_TYPE,
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        return JSONResponse(handler.describe())

    middleware = []
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


def bearer(token: str) -> Callable[[Request], bool]:
    """An `authorize` hook that admits requests carrying ``Authorization: Bearer <token>``
    (compared in constant time)::

        app(agent, authorize=bearer(os.environ["AGENT_TOKEN"]))
    """
    if not isinstance(token, str) or not token.strip():
        raise UsageError("bearer() needs a non-empty token string.")
    expected = token.strip().encode("utf-8")

    def authorize(request: Request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode("utf-8"), expected
        )

    return authorize


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
