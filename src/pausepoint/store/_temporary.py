"""`TemporaryPostgres`: a throw-away PostgreSQL server for tests, benchmarks and demos.

It runs the server binaries of the machine (Debian's `postgresql` package installs them
under /usr/lib/postgresql/<major>/bin): `initdb` into a temporary folder, `pg_ctl start`
on a free local port, and on exit `pg_ctl stop` and the folder removed. PostgreSQL
refuses to run as root, so as root the server runs as the `postgres` user.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from ..errors import StoreError

__all__ = ["TemporaryPostgres"]


def _find_bin() -> Path | None:
    candidates = [os.environ.get("PAUSEPOINT_PG_BIN", "")]
    candidates += sorted(
        (str(p) for p in Path("/usr/lib/postgresql").glob("*/bin")),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").exists():
            return Path(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class TemporaryPostgres:
    """A PostgreSQL server that lives as long as the `with` block::

        with TemporaryPostgres() as server:
            store = PostgresStore(server.dsn)

    `durable=False` (the default) turns off fsync: fast, and fine for data that is
    thrown away; pass True to measure what a real server costs.
    """

    user = "pausepoint"

    def __init__(self, *, durable: bool = False) -> None:
        self._bin = _find_bin()
        self._durable = durable
        self._dir: Path | None = None
        self.port = 0

    @classmethod
    def unavailable(cls) -> str | None:
        """Why no server can be started here, or None when one can."""
        if _find_bin() is None:
            return (
                "PostgreSQL server binaries (initdb, pg_ctl) were not found: install "
                "Debian's postgresql package or set PAUSEPOINT_PG_BIN."
            )
        try:
            import psycopg  # noqa: F401
        except ImportError:
            return 'psycopg 3 is not installed: pip install "pausepoint[postgres]".'
        return None

    @property
    def dsn(self) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/postgres"

    def _as_server_user(self, *args: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        done = subprocess.run(prefix + list(args), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise StoreError(
                f"{Path(args[0]).name} failed ({done.returncode}): {done.stderr.strip()} "
                "Check that the postgres user exists and PostgreSQL is installed."
            )

    def start(self) -> TemporaryPostgres:
        if self._bin is None:
            raise StoreError(self.unavailable() or "PostgreSQL is not available.")
        self._dir = Path(tempfile.mkdtemp(prefix="pausepoint-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self._dir, "postgres")
        data = str(self._dir / "data")
        self._as_server_user(
            str(self._bin / "initdb"), "-D", data, "-A", "trust", "-U", self.user, "--no-sync"
        )
        self.port = _free_port()
        options = f"-p {self.port} -k {self._dir} -c listen_addresses=127.0.0.1"
        if not self._durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._as_server_user(
            str(self._bin / "pg_ctl"), "-D", data, "-o", options,
            "-l", str(self._dir / "log"), "-w", "start",
        )  # fmt: skip
        return self

    def stop(self) -> None:
        if self._dir is None:
            return
        try:
            if self._bin is not None and (self._dir / "data" / "postmaster.pid").exists():
                self._as_server_user(
                    str(self._bin / "pg_ctl"), "-D", str(self._dir / "data"), "-m", "fast",
                    "-w", "stop",
                )  # fmt: skip
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> TemporaryPostgres:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
