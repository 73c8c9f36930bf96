import { useMemo } from "preact/hooks";
import type { Json } from "../types";
import { Markdown } from "./Markdown";
import { Preview, previewOf } from "./Preview";
import { Revealed } from "./Revealed";

interface JsonBlockProps {
  label: string;
  value: Json | undefined;
  testid?: string;
}

/** A labelled value: text as markdown, anything else as indented JSON, hidden characters
 * in either shown as markers. */
export function JsonBlock({ label, value, testid }: JsonBlockProps) {
  const preview = previewOf(value);
  const text = useMemo(() => (typeof value === "string" || value === undefined || preview ? "" : JSON.stringify(value, null, 2)), [value]);
  const body = preview ? (
    <Preview preview={preview} />
  ) : typeof value === "string" ? (
    <Markdown text={value} />
  ) : (
    <pre class="pp-json">{value === undefined ? "—" : <Revealed text={text} indented={true} />}</pre>
  );
  return (
    <div class="pp-block" data-testid={testid}>
      <div class="pp-block-label">{label}</div>
      {body}
    </div>
  );
}
