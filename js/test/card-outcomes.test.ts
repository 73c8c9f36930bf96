import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { REQUEST_TIMEOUT_MS } from "../src/kernel/protocol";
import { approvalCard, click, FakeModel, flushMicrotasks, initialize, isDisabled, mount, typeInto, within } from "./helpers";

const failing = vi.hoisted(() => ({ build: null as Error | null }));

vi.mock("../src/kernel/protocol", async (importOriginal) => {
  const original = await importOriginal<typeof import("../src/kernel/protocol")>();
  return {
    ...original,
    resume: (...args: Parameters<typeof original.resume>) => {
      if (failing.build) throw failing.build;
      return original.resume(...args);
    },
  };
});

afterEach(() => {
  failing.build = null;
  vi.useRealTimers();
  document.body.innerHTML = "";
});

function setup(cards: unknown[], model = new FakeModel({ status: "interrupted", pending: cards })) {
  const dispose = initialize(model);
  const view = mount(model);
  return {
    model,
    view,
    phase: () => view.get("pp-card").dataset.phase,
    done() {
      view.cleanup();
      dispose();
    },
  };
}

describe("every send ends in an outcome", () => {
  it("a message the comm refuses is an error on the card, and the card stays usable", async () => {
    class Refusing extends FakeModel {
      send(): void {
        throw new Error("comm closed");
      }
    }
    const { view, phase, done } = setup([], new Refusing({ status: "interrupted", pending: [approvalCard] }));
    await act(async () => {
      view.get("pp-approve").click();
      await flushMicrotasks();
    });
    expect(phase()).toBe("idle");
    expect(view.q("pp-sending")).toBeNull();
    expect(view.get("pp-card-error").textContent).toContain("comm closed");
    expect(isDisabled(view.get("pp-approve"))).toBe(false);
    done();
  });

  it("an answer that throws while being built shows the error", async () => {
    const { model, view, phase, done } = setup([approvalCard]);
    failing.build = new TypeError("cyclic object value");
    await act(async () => {
      view.get("pp-approve").click();
      await flushMicrotasks();
    });
    expect(model.sent).toHaveLength(0);
    expect(phase()).toBe("idle");
    expect(view.get("pp-card-error").textContent).toContain("could not be sent: cyclic object value");
    failing.build = null;
    click(view.get("pp-approve"));
    expect(model.sent).toHaveLength(1);
    done();
  });

  it("a kernel that never answers ends the sending at the request timeout", async () => {
    vi.useFakeTimers();
    const { view, phase, done } = setup([approvalCard]);
    click(view.get("pp-approve"));
    expect(phase()).toBe("sending");
    expect(view.get("pp-sending").textContent).toBe("Sending…");
    await act(async () => {
      vi.advanceTimersByTime(REQUEST_TIMEOUT_MS - 1);
      await flushMicrotasks();
    });
    expect(phase()).toBe("sending");
    await act(async () => {
      vi.advanceTimersByTime(1);
      await flushMicrotasks();
    });
    expect(phase()).toBe("idle");
    expect(view.q("pp-sending")).toBeNull();
    expect(view.get("pp-card-error").dataset.error).toBe("TimeoutError");
    done();
  });

  it("an accepted answer ends in sent", async () => {
    const { model, view, phase, done } = setup([approvalCard]);
    click(view.get("pp-approve"));
    await model.respond({ ok: true });
    expect(phase()).toBe("sent");
    expect(view.get("pp-sent")).toBeTruthy();
    done();
  });
});

const deployCard = {
  ...approvalCard,
  id: "int-deploy",
  toolName: "deploy",
  message: "Deploy?",
  args: { service: "api", dry_run: "off", replicas: "3e3" },
  inputSchema: {
    type: "object",
    properties: {
      service: { type: "string" },
      dry_run: { type: "boolean" },
      replicas: { type: "number" },
      region: { type: "string", default: "eu-west-1" },
    },
    required: ["service", "dry_run", "replicas"],
  },
  validatedArgs: { service: "api", dry_run: false, replicas: 3000, region: "eu-west-1" },
};

describe("the arguments an approval shows", () => {
  it("are the ones the action will receive, with the model's input on demand and a note that they differ", () => {
    const { view, done } = setup([deployCard]);
    const args = view.get("pp-args");
    expect(args.textContent).toContain("Arguments (as the action will receive them)");
    expect(JSON.parse(args.querySelector("pre")!.textContent!)).toEqual(deployCard.validatedArgs);
    expect(view.get("pp-args-differ").textContent).toMatch(/differ from what the model wrote/);
    const disclosure = view.get("pp-model-args") as HTMLDetailsElement;
    expect(disclosure.tagName).toBe("DETAILS");
    expect(disclosure.open).toBe(false);
    expect(disclosure.querySelector("summary")!.textContent).toContain("differs");
    expect(JSON.parse(within(disclosure).get("pp-raw-args").querySelector("pre")!.textContent!)).toEqual(deployCard.args);
    done();
  });

  it("say nothing differs when the model's input is what runs", () => {
    const same = { ...deployCard, args: deployCard.validatedArgs };
    const { view, done } = setup([same]);
    expect(view.q("pp-args-differ")).toBeNull();
    expect(view.get("pp-model-args").querySelector("summary")!.textContent).not.toContain("differs");
    done();
  });

  it("say so when the arguments do not fit the action", () => {
    const bad = { ...deployCard, validatedArgs: null, argsProblems: [{ path: "$.dry_run", message: "Input should be a valid boolean" }] };
    const { view, done } = setup([bad]);
    const problems = view.get("pp-args-problems");
    expect(problems.textContent).toContain("do not fit the action's input");
    expect(problems.querySelector("li")!.dataset.path).toBe("dry_run");
    expect(problems.textContent).toContain("Input should be a valid boolean");
    expect(view.get("pp-args").textContent).toContain('"off"');
    done();
  });

  it("are what the edit form starts from", () => {
    const { view, done } = setup([deployCard]);
    click(view.get("pp-edit-args"));
    expect((view.get("pp-field-replicas") as HTMLInputElement).value).toBe("3000");
    expect((view.get("pp-field-region") as HTMLInputElement).value).toBe("eu-west-1");
    done();
  });

  it("a kernel error for an edited argument shows beside that field", async () => {
    const { model, view, done } = setup([deployCard]);
    click(view.get("pp-edit-args"));
    typeInto(view.get("pp-field-replicas"), "7");
    click(view.get("pp-approve"));
    expect(model.lastRequest().data.editedArgs.replicas).toBe(7);
    await model.respond({
      ok: false,
      error: { name: "InvalidResolutionError", message: "no", problems: [{ path: "$.editedArgs.replicas", message: "Input should be less than 5" }] },
    });
    const error = view.qa("pp-field-error").find((e) => e.dataset.path === "replicas");
    expect(error?.textContent).toBe("Input should be less than 5");
    const input = view.get("pp-field-replicas");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toContain(error!.id);
    done();
  });
});
