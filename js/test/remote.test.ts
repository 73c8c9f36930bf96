import { afterEach, describe, expect, it } from "vitest";
import { hostOf, remoteOf } from "../src/lib/remote";
import { finished } from "./fixtures-past";
import { approvalCard, FakeModel, initialize, mount } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

const REMOTE = "http://127.0.0.1:8123/agent";
const remoteMeta = { schema_version: 4, thread_id: "t-1", run_id: "t-1", instructions: null, remote: REMOTE };

function setup(attrs: Record<string, unknown>) {
  const model = new FakeModel(attrs);
  const dispose = initialize(model);
  const view = mount(model);
  return { view, done: () => (view.cleanup(), dispose()) };
}

describe("a run served elsewhere (RemoteRun)", () => {
  it("says where it is served, the whole address on hover", () => {
    const { view, done } = setup({ status: "completed", items: finished, meta: remoteMeta });
    const label = view.get("pp-remote");
    expect(label.textContent).toBe("served at 127.0.0.1:8123");
    expect(label.getAttribute("title")).toBe(REMOTE);
    done();
  });

  it("says which framework executes a hosted run, and what is not offered for it", () => {
    const hostedMeta = { ...remoteMeta, remote: "in this kernel (LangGraph)", hosted: "LangGraph" };
    const { view, done } = setup({ status: "completed", items: finished, meta: hostedMeta });
    const label = view.get("pp-remote");
    expect(label.textContent).toBe("LangGraph agent in this kernel");
    expect(label.getAttribute("title")).toContain("no debugger, fork or Retry");
    expect(view.q("pp-debug")).toBeNull();
    done();
  });

  it("offers no Debug panel, which needs the run in this kernel", () => {
    const local = setup({ status: "completed", items: finished });
    expect(local.view.q("pp-debug")).not.toBeNull();
    expect(local.view.q("pp-remote")).toBeNull();
    local.done();
    const remote = setup({ status: "completed", items: finished, meta: remoteMeta });
    expect(remote.view.q("pp-debug")).toBeNull();
    remote.done();
  });

  it("offers Continue after a failure but not Retry, which its server would have to do", () => {
    const items = [{ type: "user", text: "hi" }];
    const local = setup({ status: "failed", items });
    expect(local.view.q("pp-retry")).not.toBeNull();
    local.done();
    const remote = setup({ status: "failed", items, meta: remoteMeta });
    expect(remote.view.q("pp-continue")).not.toBeNull();
    expect(remote.view.q("pp-retry")).toBeNull();
    remote.done();
  });
});

describe("the header's count of pauses", () => {
  const shown = { ...approvalCard, id: "lg-1", key: "foreign:lg-1", kind: "unbound", canResolve: false, readOnlyReason: "no binding" };

  it("counts only the pauses a click can answer as waiting for you", () => {
    const { view, done } = setup({ status: "interrupted", items: [], pending: [approvalCard, shown] });
    expect(view.get("pp-pending-jump").textContent).toContain("1 waits for you");
    done();
  });

  it("says a pause answered elsewhere is shown, not that it waits for you", () => {
    const { view, done } = setup({ status: "interrupted", items: [], pending: [shown], meta: remoteMeta });
    const jump = view.get("pp-pending-jump");
    expect(jump.textContent).toContain("1 pause is shown, not answerable here");
    expect(jump.textContent).not.toContain("waits for you");
    done();
  });
});

describe("a call another producer's pause waits on", () => {
  const call = { type: "tool", id: "call-9", name: "refund", input: { amount: 5 }, status: "running", interrupts: [] };
  const items = [{ type: "user", text: "refund" }, { type: "assistant", text: "", tool_calls: [{ id: "call-9", name: "refund", input: { amount: 5 } }] }, call];

  it("reads waiting, not running, while the read-only pause is shown", () => {
    const foreign = {
      ...approvalCard,
      id: "int-call-9",
      key: "foreign:int-call-9",
      toolCallId: "call-9",
      kind: "unbound",
      canResolve: false,
      readOnlyReason: "no binding",
    };
    const { view, done } = setup({ status: "interrupted", items, pending: [foreign], meta: remoteMeta });
    expect(view.get("pp-tool-status").textContent).toBe("waiting");
    done();
  });

  it("reads running again once nothing waits on it", () => {
    const { view, done } = setup({ status: "running", items, pending: [], meta: remoteMeta });
    expect(view.get("pp-tool-status").textContent).toBe("running");
    done();
  });
});

describe("remoteOf and hostOf", () => {
  it("read the address only when it is text", () => {
    expect(remoteOf({ remote: REMOTE })).toBe(REMOTE);
    expect(remoteOf({ remote: 3 })).toBeNull();
    expect(remoteOf(null)).toBeNull();
    expect(hostOf("https://agents.example:9000/x")).toBe("agents.example:9000");
    expect(hostOf("not an address")).toBe("not an address");
  });
});

describe("a pause read from another producer's shape", () => {
  it("is an answerable card that says where it was read from and what nothing vouches for", () => {
    const read = { ...approvalCard, readFrom: "Pydantic AI" };
    const { view, done } = setup({ status: "interrupted", items: [], pending: [read], meta: remoteMeta });
    const card = view.get("pp-card");
    const line = view.get("pp-read-from");
    expect(line.textContent).toBe("Read from Pydantic AI's pause");
    expect(line.getAttribute("title")).toContain("without pausepoint's binding");
    expect(card.querySelector('[data-testid="pp-approve"]')).not.toBeNull();
    expect(card.getAttribute("data-readonly")).toBe("false");
    done();
  });

  it("names a producer whose name ends in s as its owner without a second s", () => {
    const read = { ...approvalCard, readFrom: "OpenAI Agents" };
    const { view, done } = setup({ status: "interrupted", items: [], pending: [read], meta: remoteMeta });
    expect(view.get("pp-read-from").textContent).toBe("Read from OpenAI Agents' pause");
    done();
  });

  it("offers only the decisions its producer takes", () => {
    const read = { ...approvalCard, readFrom: "LangGraph", decisions: ["approve", "reject"] };
    const { view, done } = setup({ status: "interrupted", items: [], pending: [read], meta: remoteMeta });
    const card = view.get("pp-card");
    const offered = (id: string) => card.querySelector(`[data-testid="${id}"]`) !== null;
    expect([offered("pp-approve"), offered("pp-edit-args"), offered("pp-respond"), offered("pp-reject")]).toEqual([true, false, false, true]);
    done();
  });

  it("offers all four when its producer says nothing of them", () => {
    const read = { ...approvalCard, readFrom: "LangGraph", decisions: null };
    const { view, done } = setup({ status: "interrupted", items: [], pending: [read], meta: remoteMeta });
    const card = view.get("pp-card");
    for (const id of ["pp-approve", "pp-edit-args", "pp-respond", "pp-reject"]) {
      expect(card.querySelector(`[data-testid="${id}"]`)).not.toBeNull();
    }
    done();
  });

  it("is not said of a pause with pausepoint's binding", () => {
    const { view, done } = setup({ status: "interrupted", items: [], pending: [approvalCard], meta: remoteMeta });
    expect(view.q("pp-read-from")).toBeNull();
    done();
  });
});
