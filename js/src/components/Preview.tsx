/**
 * A large value the kernel sent as a preview: `{"pausepoint:preview": {text, bytes, ref}}`
 * (see pausepoint.widget._preview). It shows the start of the value and its whole size;
 * "Show all" and "Copy" ask the kernel for the whole value by its reference.
 */
import { useState } from "preact/hooks";
import { fullValue } from "../kernel/protocol";
import { useKernel } from "../kernel/requests";
import type { Json } from "../types";
import { Revealed } from "./Revealed";

export const PREVIEW_KEY = "pausepoint:preview";

export interface PreviewInfo {
  text: string;
  bytes: number;
  ref: string;
}

/** The preview inside `value`, or null when `value` is the value itself. */
export function previewOf(value: unknown): PreviewInfo | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const info = (value as Record<string, unknown>)[PREVIEW_KEY];
  if (!info || typeof info !== "object") return null;
  const { text, bytes, ref } = info as Record<string, unknown>;
  if (typeof text !== "string" || typeof bytes !== "number" || typeof ref !== "string") return null;
  return { text, bytes, ref };
}

/** "50.0 MiB", "48.2 KiB", "812 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB"];
  let size = bytes / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return `${size.toFixed(1)} ${units[unit]}`;
}

/** The text a whole value is shown and copied as: a text itself, anything else as JSON. */
export function textOf(value: Json): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

type Fetched = { state: "idle" } | { state: "loading" } | { state: "shown"; text: string } | { state: "failed"; message: string };

interface PreviewProps {
  preview: PreviewInfo;
}

export function Preview({ preview }: PreviewProps) {
  const kernel = useKernel();
  const [fetched, setFetched] = useState<Fetched>({ state: "idle" });
  const [copied, setCopied] = useState<string | null>(null);

  const whole = async (): Promise<string | null> => {
    if (!kernel) return null;
    const outcome = await fullValue(kernel, preview.ref);
    if (!outcome.ok) {
      setFetched({ state: "failed", message: outcome.error.message });
      return null;
    }
    return textOf(outcome.value ?? null);
  };
  const showAll = async () => {
    setFetched({ state: "loading" });
    const text = await whole();
    if (text !== null) setFetched({ state: "shown", text });
  };
  const copy = async () => {
    const text = fetched.state === "shown" ? fetched.text : await whole();
    if (text === null) return;
    try {
      await navigator.clipboard.writeText(text);
      setCopied("Copied");
    } catch (err) {
      setCopied(`Could not copy: ${String(err)}`);
    }
  };

  const size = formatBytes(preview.bytes);
  const shown = fetched.state === "shown";
  const offline = kernel === null ? "The whole value needs the run's kernel." : undefined;
  return (
    <div class="pp-preview" data-testid="pp-preview" data-bytes={preview.bytes} data-state={fetched.state}>
      <pre class="pp-json pp-preview-text" data-testid="pp-preview-text">
        {shown ? (
          <Revealed text={fetched.text} />
        ) : (
          <>
            <Revealed text={preview.text} />…
          </>
        )}
      </pre>
      <div class="pp-preview-bar">
        <span class="pp-muted" data-testid="pp-preview-size">
          {shown ? `All ${size}` : `Showing the first ${preview.text.length.toLocaleString("en-US")} characters of ${size}`}
        </span>
        {shown ? null : (
          <button
            type="button"
            class="pp-button pp-button-quiet"
            data-testid="pp-preview-show-all"
            disabled={kernel === null || fetched.state === "loading"}
            title={offline}
            onClick={showAll}
          >
            {fetched.state === "loading" ? "Loading…" : `Show all (${size})`}
          </button>
        )}
        <button type="button" class="pp-button pp-button-quiet" data-testid="pp-preview-copy" disabled={kernel === null} title={offline} onClick={copy}>
          Copy
        </button>
        {copied ? (
          <span class="pp-muted" role="status" data-testid="pp-preview-copied">
            {copied}
          </span>
        ) : null}
      </div>
      {fetched.state === "failed" ? (
        <p class="pp-card-error" role="alert" data-testid="pp-preview-error">
          Could not get the whole value: <Revealed text={fetched.message} />
        </p>
      ) : null}
    </div>
  );
}

interface TextOrPreviewProps {
  value: unknown;
}

/** A plain text that may have arrived as a preview (an error's message). */
export function TextOrPreview({ value }: TextOrPreviewProps) {
  const preview = previewOf(value);
  return preview ? <Preview preview={preview} /> : <Revealed text={String(value ?? "")} />;
}

/** Values up to this size (`_preview.PREVIEW_LIMIT`) arrive whole, unless they hold the
 * preview key: the kernel then sends them as a preview of themselves. */
export const PREVIEW_LIMIT = 32 * 1024;

interface TooLargeToEditProps {
  value: unknown;
}

/** Why a card's arguments cannot be edited here: they arrived as a preview. */
export function TooLargeToEdit({ value }: TooLargeToEditProps) {
  const preview = previewOf(value);
  if (!preview) return null;
  const why =
    preview.bytes > PREVIEW_LIMIT ? (
      <>These arguments ({formatBytes(preview.bytes)}) are too large to edit here</>
    ) : (
      <>
        These arguments hold the key <code>{PREVIEW_KEY}</code>, which the view keeps for its own previews, so they are shown as their JSON text and cannot be
        edited here
      </>
    );
  return (
    <p class="pp-muted pp-preview-note" data-testid="pp-too-large-to-edit">
      {why}; approve or reject them as they are, or answer from code with <code>run.resume(...)</code>.
    </p>
  );
}
