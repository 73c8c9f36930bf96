import { Component, type ComponentChildren } from "preact";
import { revealText } from "../lib/unicode";

/** Raw text shown at most; the rest is counted, so nothing is clipped silently. */
export const MAX_RAW = 20_000;

function rawText(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    text = String(value);
  }
  const more = text.length - MAX_RAW;
  if (more > 0) text = `${text.slice(0, MAX_RAW)}\n… ${more.toLocaleString("en-US")} more characters`;
  try {
    return revealText(text);
  } catch {
    return text;
  }
}

interface BoundaryProps {
  /** What the part shows: its raw text is the fallback, and a new value tries again. */
  value: unknown;
  /** "message", "tool call", "card": what could not be shown. */
  label: string;
  children?: ComponentChildren;
}

interface BoundaryState {
  error: Error | null;
}

/**
 * One part of the view that fails to draw (a value the components did not expect) shows
 * its raw text and the error instead; the rest of the view, its cards included, keeps working.
 */
export class Boundary extends Component<BoundaryProps, BoundaryState> {
  state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidCatch(error: unknown): void {
    console.error(`pausepoint: a ${this.props.label} could not be drawn`, error);
  }

  componentDidUpdate(previous: BoundaryProps): void {
    if (this.state.error && previous.value !== this.props.value) this.setState({ error: null });
  }

  render({ value, label, children }: BoundaryProps, { error }: BoundaryState) {
    if (!error) return children;
    return (
      <div class="pp-boundary" role="alert" data-testid="pp-boundary" data-label={label}>
        <p>
          <strong>This {label} could not be shown.</strong> <span data-testid="pp-boundary-error">{rawText(`${error.name}: ${error.message}`)}</span>
        </p>
        <pre class="pp-json" data-testid="pp-boundary-raw">
          {rawText(value)}
        </pre>
      </div>
    );
  }
}
