"""``python -m pausepoint.agui module:agent [--port N] [--store URL] ...``: see `_cli`."""

from pausepoint.agui._cli import main

raise SystemExit(main())
