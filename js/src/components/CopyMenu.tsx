import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { fullValue } from "../kernel/protocol";
import { useKernel } from "../kernel/requests";
import { revealText } from "../lib/unicode";
import type { Item } from "../types";
import { PREVIEW_KEY } from "./Preview";
import { Revealed } from "./Revealed";

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Denied or unavailable (no secure context): fall through to the selection copy.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

interface CopyMenuProps {
  runId: string;
  meta: Record<string, unknown> | null;
  items: Item[];
}

/**
 * The header's Copy menu: the run id and the transcript's JSON. It closes on a click
 * outside it, and on Escape, which gives focus back to its button when focus was inside.
 */
export function CopyMenu({ runId, meta, items }: CopyMenuProps) {
  const kernel = useKernel();
  const menu = useRef<HTMLDetailsElement>(null);
  const [copied, setCopied] = useState<"idle" | "copied" | "failed" | "id" | "id-failed">("idle");
  const resetTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(resetTimer.current), []);

  // The listeners stay for the menu's life and read the element's own `open`: they act
  // from the moment it opens, without waiting for its toggle event to reach the state.
  useLayoutEffect(() => {
    const details = menu.current;
    if (!details) return undefined;
    // Capture: a click elsewhere that its own handler stops still closes the menu.
    const onPointerDown = (event: Event) => {
      if (details.open && !details.contains(event.target as Node | null)) details.open = false;
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !details.open) return;
      const hadFocus = details.contains(document.activeElement);
      details.open = false;
      if (!hadFocus) return;
      // The notebook would take this Escape as its own shortcut as well.
      event.stopPropagation();
      details.querySelector<HTMLElement>("summary")?.focus();
    };
    document.addEventListener("pointerdown", onPointerDown, true);
    document.addEventListener("keydown", onKeyDown, true);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown, true);
      document.removeEventListener("keydown", onKeyDown, true);
    };
  }, []);

  const copyAndSay = async (what: "copied" | "id", text: string) => {
    const ok = await copyText(text);
    setCopied(ok ? what : what === "id" ? "id-failed" : "failed");
    clearTimeout(resetTimer.current);
    resetTimer.current = setTimeout(() => setCopied("idle"), 2000);
  };

  const onCopy = async () => {
    let text = JSON.stringify({ ...(meta ?? {}), items }, null, 2);
    if (kernel && text.includes(`"${PREVIEW_KEY}"`)) {
      // Large values are previews here: the kernel has the whole transcript.
      const whole = await fullValue(kernel, "prompt/json");
      if (whole.ok) text = JSON.stringify(whole.value, null, 2);
    }
    await copyAndSay("copied", text);
  };

  return (
    <details class="pp-copy-menu" data-testid="pp-copy-menu" ref={menu}>
      <summary class="pp-button pp-button-quiet" title={runId ? revealText(`Run ${runId}`) : undefined}>
        Copy
      </summary>
      <div class="pp-copy-items">
        <button
          type="button"
          class="pp-button pp-button-quiet"
          data-testid="pp-copy-run-id"
          aria-label={revealText(`Copy the run id ${runId}`)}
          onClick={() => void copyAndSay("id", runId)}
        >
          {copied === "id" ? "Copied" : copied === "id-failed" ? "Copy failed" : "Copy the run id"}{" "}
          <code class="pp-run-id" data-testid="pp-run-id">
            <Revealed text={runId} />
          </code>
        </button>
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-copy" aria-label="Copy JSON of the prompt" onClick={onCopy}>
          {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy JSON of the prompt"}
        </button>
      </div>
    </details>
  );
}
