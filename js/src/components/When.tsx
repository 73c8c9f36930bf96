import { useNow } from "../lib/hooks";
import { exactTime, relativeTime } from "../lib/time";
import { revealText } from "../lib/unicode";

interface WhenProps {
  at: string | null | undefined;
}

/** A time as "12 min ago", kept current, with the exact time on hover. */
export function When({ at }: WhenProps) {
  const now = useNow(!!at, 30_000);
  if (!at) return null;
  return (
    <time class="pp-when" data-testid="pp-when" datetime={revealText(at)} title={revealText(exactTime(at))}>
      {revealText(relativeTime(at, now))}
    </time>
  );
}
