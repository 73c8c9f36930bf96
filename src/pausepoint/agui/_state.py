"""The sealed state of a stateless server: the transcript travels with the client.

A server without a store keeps nothing between requests. After each stretch it sends the
transcript in a STATE_SNAPSHOT, as its JSON text sealed with an HMAC under the server's
secret; AG-UI clients send their state back with the next request, and the server
rebuilds the run from it only when the seal matches, so a client can neither forge a
transcript nor edit one (and through it the pending interrupts it answers). The text is a
JSON string in the state, so every client keeps it byte for byte, and sealing and reading
it cost what writing and parsing the transcript cost.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidTranscriptError, UsageError
from ..transcript import Prompt

__all__ = ["SEAL_PREFIX", "STATE_KEY", "StateRefused", "sealed_state", "secret_bytes", "unseal"]

STATE_KEY = "pausepoint"
"""The key of the AG-UI state under which the sealed transcript travels."""
SEAL_PREFIX = "hmac-sha256:"


class StateRefused(Exception):
    """The state a client sent back cannot be trusted or used: RUN_ERROR `bad-state`."""


def secret_bytes(secret: bytes | str | None) -> bytes:
    """The key the seals are made with: `secret`, or a random one for this app alone."""
    if secret is None:
        return secrets.token_bytes(32)
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, bytes):
        raise UsageError(f"secret must be bytes or str, not {type(secret).__name__}.")
    if len(secret) < 16:
        raise UsageError(
            "secret is too short to seal transcripts: give at least 16 bytes, e.g. "
            "secrets.token_hex(32)."
        )
    weakness = _weakness(secret)
    if weakness:
        raise UsageError(
            f"secret is too easy to guess to seal transcripts: {weakness}. Give a random "
            "one, e.g. secrets.token_hex(32)."
        )
    return secret


MIN_BITS = 48
"""The least a secret's symbols must carry, estimated from how often each one occurs."""


def _weakness(secret: bytes) -> str | None:
    """What makes `secret` guessable, if anything: few distinct symbols, a repeated
    pattern, or too little entropy by the frequency of its symbols (an estimate that
    is never above the truth for a random secret of at least 16 bytes)."""
    counts = Counter(secret)
    if len(counts) < 8:
        return f"it uses {len(counts)} distinct symbols"
    n = len(secret)
    for period in range(1, n // 2 + 1):
        if n % period == 0 and secret == secret[:period] * (n // period):
            return f"it repeats {period} symbols"
    bits = -sum(c * math.log2(c / n) for c in counts.values())
    if bits < MIN_BITS:
        return f"its symbols carry about {bits:.0f} bits, fewer than {MIN_BITS}"
    return None


def seal(text: str, key: bytes) -> str:
    """`hmac-sha256:<hex>` over the UTF-8 bytes of the transcript's JSON text."""
    return (
        SEAL_PREFIX
        + hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    )


def sealed_state(
    prompt: Prompt, key: bytes, others: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The STATE_SNAPSHOT's snapshot: the client's own keys of its state (`others`) kept,
    ours under `pausepoint`: ``{"transcript": "<the transcript's JSON text>", "seal":
    "hmac-sha256:..."}``."""
    text = prompt.model_dump_json()
    state = {k: v for k, v in (others or {}).items() if k != STATE_KEY}
    state[STATE_KEY] = {"transcript": text, "seal": seal(text, key)}
    return state


def unseal(state: Any, key: bytes, thread_id: str) -> Prompt | None:
    """The transcript sealed in a client's `state` (None when the state carries none).

    Raises `StateRefused` for a seal that is missing, malformed or wrong, and for a
    transcript that does not load or belongs to another thread. The seal is compared in
    constant time before the transcript is read at all.
    """
    if not isinstance(state, Mapping) or STATE_KEY not in state:
        return None
    ours = state[STATE_KEY]
    if not isinstance(ours, Mapping) or not isinstance(ours.get("seal"), str):
        raise StateRefused(f"The state's {STATE_KEY!r} entry has no seal.")
    text = ours.get("transcript")
    if not isinstance(text, str):
        raise StateRefused(f"The state's {STATE_KEY!r} entry has no transcript text.")
    expected = seal(text, key)
    if not hmac.compare_digest(expected.encode("ascii"), str(ours["seal"]).encode("utf-8")):
        raise StateRefused(
            "The transcript's seal does not match: the state was changed, or sealed by a "
            "server with another secret."
        )
    try:
        prompt = Prompt.model_validate_json(text)
    except (InvalidTranscriptError, ValueError) as exc:
        raise StateRefused(f"The sealed transcript does not load: {exc}") from exc
    if prompt.thread_id != thread_id:
        raise StateRefused(
            f"The sealed transcript belongs to thread {prompt.thread_id!r}, not {thread_id!r}."
        )
    return prompt
