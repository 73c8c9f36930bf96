"""Who started a run (`Prompt.owner`) is kept by every store and loads back unchanged."""

from __future__ import annotations

from tests.helpers import StoreFactory

from pausepoint import Prompt


def test_a_runs_owner_loads_back_as_it_was_saved(open_store: StoreFactory) -> None:
    store = open_store()
    owned = Prompt.from_user("Refund order 42", run_id="owned").model_copy(
        update={"owner": "alice@example.com"}
    )
    store.create(owned, status="waiting")
    store.create(Prompt.from_user("hi", run_id="nobodys"), status="completed")

    loaded, _ = store.load_prompt("owned")
    unowned, _ = store.load_prompt("nobodys")

    assert loaded == owned
    assert loaded.owner == "alice@example.com"
    assert unowned.owner is None
