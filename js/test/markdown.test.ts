import { afterEach, describe, expect, it } from "vitest";
import { linkTarget, MAX_CHARS, MAX_ELEMENTS, markdown } from "../src/lib/markdown";
import { click, FakeModel, initialize, mount } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

function fragment(text: string): HTMLElement {
  const result = markdown(text);
  if (!("html" in result)) throw new Error(`not rendered: ${result.plain}`);
  const div = document.createElement("div");
  div.innerHTML = result.html;
  return div;
}

describe("markdown", () => {
  it("renders markdown", () => {
    const div = fragment("**bold** and `code`\n\n- one\n- two");
    expect(div.querySelector("strong")?.textContent).toBe("bold");
    expect(div.querySelectorAll("li")).toHaveLength(2);
  });

  it("shows raw HTML as text: no elements, no event handlers", () => {
    const div = fragment('Look <img src=x onerror="alert(1)"> here <script>alert(2)</script> done');
    expect(div.querySelector("script")).toBeNull();
    expect(div.querySelector("img")).toBeNull();
    expect(div.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(div.textContent).toContain("<script>alert(2)</script>");
    expect(div.textContent).toContain("done");
  });

  it("shows block-level raw HTML as text too", () => {
    const div = fragment('<div onclick="alert(1)">\n<iframe src="https://example.org"></iframe>\n</div>');
    expect(div.querySelector("div, iframe")).toBeNull();
    expect(div.textContent).toContain("<iframe");
  });

  it("never makes an image element: an image is its alt text and full URL", () => {
    const div = fragment(
      "![logo](https://tracker.example/pixel?secret=abc) and ![](/logout) and ![x](data:image/png;base64,AAAA) and ![p](http://plain.example/p.png)",
    );
    expect(div.querySelectorAll("img, picture, source, video, audio, iframe, [srcset], [style]")).toHaveLength(0);
    expect(div.textContent).toContain("[image: logo] https://tracker.example/pixel?secret=abc");
    expect(div.textContent).toContain("[image] /logout (not loaded: a relative address would be fetched from the notebook server)");
    expect(div.textContent).toContain("(not loaded: only https images are loaded, and this address is data:)");
    expect(div.textContent).toContain("(not loaded: only https images are loaded, and this address is http:)");
    const loads = [...div.querySelectorAll('button[data-pp="load-image"]')];
    // Only the https image may be loaded, and only on a click and a confirmation.
    expect(loads.map((b) => b.getAttribute("data-src"))).toEqual(["https://tracker.example/pixel?secret=abc"]);
  });

  it("says why a local address is not loaded, and offers no button for it", () => {
    const div = fragment(
      "![a](https://127.0.0.1:8443/x.png) ![b](https://192.168.1.1/x.png) ![c](https://169.254.169.254/latest/meta-data/) ![d](https://[::1]/x.png) ![e](https://app.localhost/x.png)",
    );
    expect(div.querySelector('button[data-pp="load-image"]')).toBeNull();
    const reasons = [...div.querySelectorAll('[data-pp="image-refused"]')].map((r) => r.textContent);
    expect(reasons).toEqual([
      "(not loaded: the address is a loopback address (this computer))",
      "(not loaded: the address is a private network address)",
      "(not loaded: the address is a link-local address (the local network, or a cloud metadata service))",
      "(not loaded: the address is a loopback address (this computer))",
      "(not loaded: the address is this computer (localhost))",
    ]);
  });

  it("loads a remote image only when asked and confirmed", () => {
    const model = new FakeModel({ items: [{ type: "assistant", text: "![chart](https://example.org/c\u200Bd.png)", tool_calls: [] }] });
    const view = mount(model);
    const load = view.el.querySelector<HTMLElement>('button[data-pp="load-image"]')!;
    click(load);
    expect(view.el.querySelector("img")).toBeNull();
    const ask = view.get("pp-image-ask");
    // The full address, as it will be fetched.
    expect(view.get("pp-image-address").textContent).toBe("https://example.org/c%E2%80%8Bd.png");
    click(view.get("pp-image-confirm"));
    const img = view.el.querySelector("img")!;
    expect(img.getAttribute("src")).toBe("https://example.org/c%E2%80%8Bd.png");
    expect(img.referrerPolicy).toBe("no-referrer");
    expect(ask.isConnected).toBe(false);
    view.cleanup();
  });

  it("leaves the image unloaded on cancel or Escape", () => {
    const model = new FakeModel({ items: [{ type: "assistant", text: "![chart](https://example.org/e.png)", tool_calls: [] }] });
    const view = mount(model);
    const load = view.el.querySelector<HTMLElement>('button[data-pp="load-image"]')!;
    click(load);
    expect(load.hidden).toBe(true);
    click(view.get("pp-image-cancel"));
    expect(view.q("pp-image-ask")).toBeNull();
    expect(load.hidden).toBe(false);
    expect(document.activeElement).toBe(load);
    click(load);
    const cancel = view.get("pp-image-cancel");
    expect(document.activeElement).toBe(cancel);
    cancel.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(view.q("pp-image-ask")).toBeNull();
    // The second click of a double click is no decision.
    click(load);
    view.get("pp-image-confirm").dispatchEvent(new MouseEvent("click", { bubbles: true, detail: 2 }));
    expect(view.el.querySelector("img")).toBeNull();
    view.cleanup();
  });

  it("loads an image inside a link without following the link", () => {
    const model = new FakeModel({
      items: [{ type: "assistant", text: "[![chart](https://example.org/f.png)](https://evil.example/go)", tool_calls: [] }],
    });
    const view = mount(model);
    const link = view.el.querySelector("a")!;
    const followed: boolean[] = [];
    link.addEventListener("click", (event) => followed.push(!event.defaultPrevented));
    view.el.addEventListener("click", (event) => followed.push(!event.defaultPrevented));
    click(link.querySelector<HTMLElement>('button[data-pp="load-image"]')!);
    expect(followed).toEqual([true, false]);
    // The question sits outside the link: no click in it reaches the link.
    const ask = view.get("pp-image-ask");
    expect(ask.closest("a")).toBeNull();
    expect(link.nextElementSibling).toBe(ask);
    click(view.get("pp-image-confirm"));
    expect(link.querySelector("img")?.getAttribute("src")).toBe("https://example.org/f.png");
    view.cleanup();
  });

  it("shows where a link really goes and follows only web links", () => {
    const div = fragment(
      "[your bank](https://evil.example/login) [bad](javascript:alert(1)) [data](data:text/html,hi) [out](/logout) [proto](//evil.example) https://plain.example",
    );
    const links = [...div.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://evil.example/login", "https://plain.example"]);
    expect(links[0]!.getAttribute("target")).toBe("_blank");
    expect(links[0]!.getAttribute("rel")).toContain("noopener");
    expect(links[0]!.getAttribute("title")).toBe("https://evil.example/login");
    expect(div.textContent).toContain("your bank (https://evil.example/login)");
    expect(div.textContent).toContain("(blocked link: javascript:alert(1))");
    expect(div.textContent).toContain("(blocked link: data:text/html,hi)");
    expect(div.textContent).toContain("(relative link, not followed: /logout)");
    expect(div.textContent).toContain("(relative link, not followed: //evil.example)");
    // A link whose text is its address is not repeated.
    expect(div.textContent).not.toContain("(https://plain.example)");
  });

  it("classifies link targets", () => {
    expect(linkTarget("https://a.example/x")).toBe("web");
    expect(linkTarget("mailto:a@b.example")).toBe("web");
    expect(linkTarget("java\tscript:alert(1)")).toBe("blocked");
    expect(linkTarget("JAVASCRIPT:alert(1)")).toBe("blocked");
    expect(linkTarget("../api/sessions")).toBe("relative");
  });

  it("keeps no style, class or id from the text, and no positioning trick", () => {
    const div = fragment('```js" style="position:fixed\ncode\n```\n\n<span style="position:fixed;inset:0" class="jp-Dialog" id="x">cover</span>');
    expect(div.querySelectorAll("[style], [class], [id]")).toHaveLength(0);
  });

  it("shows hidden characters in text and link addresses as markers", () => {
    const div = fragment("pay alice@bank.com \u202Emoc.rekcatta@eve and [x](https://a.example/\u200Bb)");
    const markers = [...div.querySelectorAll('[data-pp="hidden-char"]')].map((m) => m.textContent);
    expect(markers).toContain("U+202E");
    expect(div.textContent).not.toContain("\u202E");
    const named = [...div.querySelectorAll('[data-pp="hidden-char"]')].map((m) => [m.getAttribute("role"), m.getAttribute("aria-label")]);
    expect(named).toContainEqual(["img", "U+202E right-to-left override"]);
  });

  it("falls back to plain text above the size cap, for long runs without spaces, and for deep nesting", () => {
    expect(markdown("a ".repeat(MAX_CHARS / 2 + 1))).toEqual({ plain: "too-long" });
    // 100 KB of `_a` took the parser seconds; a 20 KB base64 blob is no better.
    expect(markdown("_a".repeat(50_000))).toEqual({ plain: "too-long" });
    expect(markdown(`see ${"Qm9i".repeat(200)}`)).toEqual({ plain: "too-long" });
    expect(markdown(`${">".repeat(2_000)} deep`)).toEqual({ plain: "too-long" });
    expect(markdown(`${"> ".repeat(2_000)}deep`)).toEqual({ plain: "too-deep" });
    expect(markdown(Array.from({ length: 40 }, (_, i) => `${"  ".repeat(i)}- level ${i}`).join("\n"))).toEqual({ plain: "too-deep" });
    // Too many elements: stopped while rendering, or by the clock if the machine is busy.
    expect(["too-long", "too-costly"]).toContain((markdown("`a` ".repeat(MAX_ELEMENTS + 10)) as { plain: string }).plain);
    // Deep indentation inside fenced code is code, not nesting.
    expect("html" in markdown(`\`\`\`\n${" ".repeat(200)}x\n\`\`\`\n\n- a\n  - b`)).toBe(true);
    expect("html" in markdown("_a_ ".repeat(100))).toBe(true);
  });

  it("parses each text once", () => {
    const text = `**cached** ${Math.random()}`;
    expect(markdown(text)).toBe(markdown(text));
  });

  it("shows a fallback as plain text with its markers, and the rest of the view stays", () => {
    const deep = `${"> ".repeat(2_000)} deep \u202Eevil`;
    const model = new FakeModel({
      items: [
        { type: "user", text: deep },
        { type: "assistant", text: "**fine**", tool_calls: [] },
      ],
    });
    const view = mount(model);
    const [first, second] = view.qa("pp-item");
    expect(first!.querySelector('[data-testid="pp-plain-note"]')).not.toBeNull();
    expect(first!.textContent).toContain("> > > ");
    expect(first!.textContent).toContain(" deep ");
    expect(first!.querySelector('[data-testid="pp-hidden-char"]')?.textContent).toBe("U+202E");
    expect(second!.querySelector("strong")?.textContent).toBe("fine");
    view.cleanup();
  });

  it("is what the transcript shows for assistant and streamed text", () => {
    const model = new FakeModel({
      status: "running",
      items: [{ type: "assistant", text: 'Hi <img src=x onerror="window.__pp=1"><script>window.__pp=2</script>', tool_calls: [] }],
    });
    const dispose = initialize(model);
    const view = mount(model);
    model.message({ type: "text", delta: "<img src=y onerror=alert(3)> streaming *on*" });
    expect(view.el.querySelector("script")).toBeNull();
    expect(view.el.querySelector("img")).toBeNull();
    expect(view.get("pp-item").textContent).toContain("Hi");
    expect(view.get("pp-streaming").querySelector("em")?.textContent).toBe("on");
    view.cleanup();
    dispose();
  });
});
