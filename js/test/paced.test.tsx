import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { usePaced } from "../src/lib/hooks";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

interface ProbeProps {
  value: number;
  seen: number[];
}

function Probe({ value, seen }: ProbeProps) {
  const shown = usePaced(value, 250);
  seen.push(shown);
  return <span data-shown={shown}>{shown}</span>;
}

describe("usePaced", () => {
  it("passes a change on at once after a quiet spell, and a burst's last one when its time comes", () => {
    vi.useFakeTimers();
    const el = document.createElement("div");
    document.body.appendChild(el);
    const seen: number[] = [];
    const show = (value: number) => act(() => render(<Probe value={value} seen={seen} />, el));
    const shown = () => Number(el.querySelector("span")?.dataset.shown);

    show(1);
    expect(shown()).toBe(1);
    show(2); // the first change: at once
    expect(shown()).toBe(2);
    show(3); // within 250 ms of the last: held back
    show(4);
    expect(shown()).toBe(2);
    act(() => {
      vi.advanceTimersByTime(249);
    });
    expect(shown()).toBe(2);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(shown()).toBe(4); // the latest, not the one held first
    expect(seen).not.toContain(3);

    act(() => {
      vi.advanceTimersByTime(1000);
    });
    show(5); // after a quiet spell: at once
    expect(shown()).toBe(5);
    expect(vi.getTimerCount()).toBe(0);
    act(() => render(null, el));
  });
});
