import { useEffect, useMemo, useState } from "preact/hooks";
import { type Fallback, markdownNow, whenFormatted } from "../lib/markdown";
import { onImageAuxClick, onImageClick, onImageKey } from "./LoadImage";
import { Preview, previewOf } from "./Preview";
import { Revealed } from "./Revealed";
import "./markdown.css";

const FALLBACK_NOTES: Record<Fallback, string> = {
  "too-long": "Shown as plain text: too long to format.",
  "too-deep": "Shown as plain text: nested too deeply to format.",
  "too-costly": "Shown as plain text: it would take too long to format.",
  failed: "Shown as plain text: it could not be formatted.",
};

/** About how tall plain text is, in em (its box shows 30 at most): the height it keeps
 * while off screen and not laid out. */
function estimatedHeight(text: string): number {
  let lines = 0;
  for (const line of text.split("\n")) lines += Math.max(1, Math.ceil(line.length / 100));
  return Math.min(30, lines * 1.4);
}

interface PlainProps {
  text: string;
  className?: string;
  why: Fallback | "pending";
}

function Plain({ text, className, why }: PlainProps) {
  const height = useMemo(() => estimatedHeight(text), [text]);
  return (
    <div class={`pp-markdown pp-plain ${className ?? ""}`} data-plain={why}>
      {why === "pending" ? null : (
        <p class="pp-muted pp-plain-note" data-testid="pp-plain-note">
          {FALLBACK_NOTES[why]}
        </p>
      )}
      <div class="pp-plain-text" style={`--pp-plain-height: ${height}em`}>
        <Revealed text={text} />
      </div>
    </div>
  );
}

interface MarkdownProps {
  text: string;
  class?: string;
}

/** Markdown text, sanitized by DOMPurify before it reaches the DOM; parsed once per text.
 * While the page is busy formatting other texts it shows as plain text, then formatted. */
export function Markdown({ text, class: className }: MarkdownProps) {
  const preview = previewOf(text);
  const [formatted, setFormatted] = useState(0);
  const result = useMemo(() => (preview ? null : markdownNow(text)), [text, formatted]);
  const waiting = !preview && result === null;
  useEffect(() => (waiting ? whenFormatted(text, () => setFormatted((n) => n + 1)) : undefined), [text, waiting]);
  if (preview) return <Preview preview={preview} />;
  if (!result) return <Plain text={text} className={className} why="pending" />;
  if ("plain" in result) return <Plain text={text} className={className} why={result.plain} />;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the handlers serve the "Load image" buttons drawn inside the text
    <div
      class={`pp-markdown ${className ?? ""}`}
      onClick={onImageClick}
      onAuxClick={onImageAuxClick}
      onKeyDown={onImageKey}
      dangerouslySetInnerHTML={{ __html: result.html }}
    />
  );
}
