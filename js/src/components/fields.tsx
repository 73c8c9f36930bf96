/** Small pieces shared by the form and the JSON editor. */
import { revealText } from "../lib/unicode";
import { Revealed } from "./Revealed";

export function fieldTestId(path: string): string {
  return revealText(`pp-field-${path === "" ? "$" : path}`);
}

export function domId(prefix: string, path: string): string {
  // `_` is escaped too, so that two paths never share an id.
  return `${prefix}-${path === "" ? "root" : path.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0)}_`)}`;
}

interface FieldErrorProps {
  id: string;
  path: string;
  messages: string[];
}

export function FieldError({ id, path, messages }: FieldErrorProps) {
  if (messages.length === 0) return null;
  return (
    <div class="pp-field-error" id={id} data-testid="pp-field-error" data-path={revealText(path)}>
      <Revealed text={messages.join("; ")} />
    </div>
  );
}
