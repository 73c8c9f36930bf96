import type { VNode } from "preact";
import { useCallback, useMemo, useState } from "preact/hooks";
import type { ToolItem } from "../types";

/** A transcript row as the strip needs it: a tool call's row. */
export interface PinnedRow {
  key: string;
  kind: "tool";
  call: ToolItem;
}

/** The calls a person pinned, by id, in the order they were pinned; and the toggle. */
export function usePins(): { pins: ReadonlySet<string>; togglePin: (callId: string) => void } {
  const [pins, setPins] = useState<ReadonlySet<string>>(() => new Set());
  const togglePin = useCallback((callId: string) => {
    setPins((before) => {
      const after = new Set(before);
      if (after.has(callId)) after.delete(callId);
      else after.add(callId);
      return after;
    });
  }, []);
  return { pins, togglePin };
}

/** The pinned rows, in transcript order, as they are now (a row is drawn from the
 * transcript's current record of its call, so its status stays current). */
export function usePinnedRows<R extends { kind: string; call?: ToolItem }>(rows: readonly R[], pins: ReadonlySet<string>): Extract<R, PinnedRow>[] {
  return useMemo(
    () => (pins.size === 0 ? [] : rows.filter((row): row is Extract<R, PinnedRow> => row.kind === "tool" && !!row.call && pins.has(row.call.id))),
    [rows, pins],
  );
}

interface PinnedStripProps {
  rows: readonly PinnedRow[];
  draw: (row: PinnedRow) => VNode;
}

/**
 * The Pinned strip at the top of the transcript: the calls a person pinned stay here,
 * open or closed as they left them, while the run goes on below.
 */
export function PinnedStrip({ rows, draw }: PinnedStripProps) {
  if (rows.length === 0) return null;
  return (
    <section class="pp-pinned" data-testid="pp-pinned" aria-label="Pinned steps">
      <div class="pp-pinned-title">
        Pinned <span class="pp-muted">({rows.length})</span>
      </div>
      {rows.map(draw)}
    </section>
  );
}
