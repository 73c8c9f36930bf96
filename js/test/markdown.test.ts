import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../src/markdown";
import { FakeModel, initialize, mount } from "./helpers";

function fragment(html: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

describe("markdown", () => {
  it("renders markdown", () => {
    const div = fragment(renderMarkdown("**bold** and `code`\n\n- one\n- two"));
    expect(div.querySelector("strong")?.textContent).toBe("bold");
    expect(div.querySelectorAll("li")).toHaveLength(2);
  });

  it("shows raw HTML as text: no elements, no event handlers", () => {
    const div = fragment(renderMarkdown('Look <img src=x onerror="alert(1)"> here <script>alert(2)</script> done'));
    expect(div.querySelector("script")).toBeNull();
    expect(div.querySelector("img")).toBeNull();
    expect(div.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(div.textContent).toContain("<script>alert(2)</script>");
    expect(div.textContent).toContain("done");
  });

  it("shows block-level raw HTML as text too", () => {
    const div = fragment(renderMarkdown('<div onclick="alert(1)">\n<iframe src="https://example.org"></iframe>\n</div>'));
    expect(div.querySelector("div, iframe")).toBeNull();
    expect(div.textContent).toContain("<iframe");
  });

  it("drops javascript: links and opens others in a new tab without an opener", () => {
    const div = fragment(renderMarkdown("[bad](javascript:alert(1)) [good](https://example.org)"));
    const links = [...div.querySelectorAll("a")];
    expect(links.some((a) => (a.getAttribute("href") ?? "").startsWith("javascript"))).toBe(false);
    const good = links.find((a) => a.getAttribute("href") === "https://example.org");
    expect(good?.getAttribute("target")).toBe("_blank");
    expect(good?.getAttribute("rel")).toContain("noopener");
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
    for (const img of view.el.querySelectorAll("img")) expect(img.hasAttribute("onerror")).toBe(false);
    expect(view.get("pp-item").textContent).toContain("Hi");
    expect(view.get("pp-streaming").querySelector("em")?.textContent).toBe("on");
    view.cleanup();
    dispose();
  });
});
