import type { VNode } from "preact";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { fork, type Outcome } from "../kernel/protocol";
import { useKernel } from "../kernel/requests";
import { memo } from "../lib/memo";
import { remoteOf } from "../lib/remote";
import { hasHidden } from "../lib/unicode";
import type { AssistantItem, FoundItem, Item, Json, Model, PendingCard, ToolCallRequest, ToolItem } from "../types";
import { Boundary } from "./Boundary";
import { Card } from "./Card";
import { DecisionLines } from "./DecisionLines";
import { FindBar, type Shown, useRunning } from "./FindBar";
import { ItemEditor } from "./ItemEditor";
import { Markdown } from "./Markdown";
import { MessageBox } from "./MessageBox";
import { PinnedStrip, usePinnedRows, usePins } from "./Pins";
import { Preview, previewOf } from "./Preview";
import { HiddenWarning } from "./Revealed";
import { ToolCall } from "./ToolCall";
import { When } from "./When";
import "./set-aside.css";

/** Rows drawn at the end of a long transcript; earlier ones wait behind a button. */
export const WINDOW = 40;
/** Rows one press of "Show more" adds. */
export const STEP = 200;

/** The kernel's mark of a message cut short by Stop (`transcript.STOPPED_REASON`). */
const STOPPED_REASON = "cancelled";
/** Under a turn set aside by Retry (the saved snapshot says the same: `_snapshot.SET_ASIDE_NOTE`). */
export const SET_ASIDE_NOTE = "Set aside: Retry asked the model again without this turn.";

/** A fork's item a person may edit now (`editAt`: its position), or edited before. */
interface Editing {
  editAt?: number | null;
  edited?: boolean;
}

interface EditBarProps extends Editing {
  what: string;
  open: boolean;
  onOpen: () => void;
}

/** "Edit" under an item a person may edit, the editor while it is open, and the mark
 * "edited by a person" on one they did. */
function EditBar({ editAt = null, edited = false, what, open, onOpen }: EditBarProps) {
  if (editAt === null && !edited) return null;
  return (
    <div class="pp-edit-bar">
      {edited ? (
        <span class="pp-edited-mark" data-testid="pp-edited-mark">
          {what} edited by a person
        </span>
      ) : null}
      {editAt !== null && !open ? (
        <button
          type="button"
          class="pp-button pp-button-quiet"
          data-testid="pp-edit-item"
          data-position={editAt}
          title="Change it before the model is asked again"
          onClick={onOpen}
        >
          {what === "Message" ? "Edit" : "Edit result"}
        </button>
      ) : null}
    </div>
  );
}

/** What a reply cut by Stop says while the run rests on it, and once the run went on. */
const STOPPED_NOW = "Stopped here. Continue shows the model this part and asks it to go on; Retry asks again without it.";
const STOPPED_BEFORE = "Stopped here; the model was shown this part when it was asked again.";

interface MessageProps extends Editing {
  item: Item & { type: "user" | "assistant" };
  /** The run rests on this message (the last one, nothing running): its hints apply now. */
  latest?: boolean;
}

function MessageRow({ item, editAt: editable = null, edited = false, latest = false }: MessageProps) {
  const [editing, setEditing] = useState(false);
  // A long message arrives as a preview: shown as one, fetched whole on request, not edited here.
  const preview = previewOf(item.text);
  const text = typeof item.text === "string" ? item.text : "";
  const editAt = preview ? null : editable;
  const who = item.type === "user" ? "You" : "Assistant";
  const stopped = item.type === "assistant" && item.call?.finish_reason === STOPPED_REASON;
  const aside = item.type === "assistant" ? (item.set_aside ?? null) : null;
  const classes = `pp-item pp-message pp-${item.type}${stopped ? " pp-stopped" : ""}${aside ? " pp-set-aside" : ""}`;
  return (
    <div class={classes} data-testid="pp-item" data-type={item.type} data-stopped={stopped ? "true" : null} data-set-aside={aside ? "true" : null}>
      <div class="pp-role">{who}</div>
      {text && hasHidden(text) ? <HiddenWarning what="text" /> : null}
      {preview ? <Preview preview={preview} /> : text ? <Markdown text={text} /> : null}
      {aside ? (
        <p class="pp-muted pp-set-aside-note" data-testid="pp-set-aside-note">
          {SET_ASIDE_NOTE} <When at={aside.at} />
        </p>
      ) : stopped ? (
        <p class="pp-muted pp-stopped-note" data-testid="pp-stopped-note" data-latest={latest ? "true" : "false"}>
          {latest ? STOPPED_NOW : STOPPED_BEFORE}
        </p>
      ) : null}
      <EditBar editAt={editAt} edited={edited} what="Message" open={editing} onOpen={() => setEditing(true)} />
      {editing && editAt !== null ? <ItemEditor position={editAt} edited={{ kind: "text", text }} onDone={() => setEditing(false)} /> : null}
    </div>
  );
}

/** A row is drawn again only when its item (or card) object changes; one that fails to
 * draw shows its raw text, and the others stay. */
const Message = memo(function ContainedMessage({ item, editAt = null, edited = false, latest = false }: MessageProps) {
  return (
    <Boundary value={item} label="message">
      <MessageRow item={item} editAt={editAt} edited={edited} latest={latest} />
    </Boundary>
  );
});

/** The result of a call as the editor starts from. */
function resultOf(call: ToolItem): Json {
  return call.result === undefined ? null : (call.result as Json);
}

interface ToolRowProps {
  call: ToolItem;
  card: PendingCard | null;
  readOnly: boolean;
  aside: boolean;
  goBack: ((callId: string) => Promise<Outcome>) | null;
  /** The call's card is drawn at another copy of this row (the Pinned strip's rows). */
  cardElsewhere?: boolean;
  /** A read-only pause of another producer waits on the call. */
  foreignPause?: boolean;
  toggled?: boolean | null;
  onToggle?: ((callId: string, open: boolean) => void) | null;
  pinned?: boolean;
  onPin?: ((callId: string) => void) | null;
  /** The step a jump went to. */
  target?: boolean;
}

function ToolRowImpl({
  call,
  card,
  readOnly,
  aside,
  goBack,
  cardElsewhere = false,
  foreignPause = false,
  toggled = null,
  onToggle = null,
  pinned = false,
  onPin = null,
  target = false,
  editAt = null,
  edited = false,
}: ToolRowProps & Editing) {
  const [editing, setEditing] = useState(false);
  // The call and its card fail apart: a card stays answerable when its call cannot be drawn.
  const classes = `pp-row${aside ? " pp-set-aside" : ""}${target ? " pp-target" : ""}`;
  return (
    <div class={classes} data-testid="pp-row" data-set-aside={aside ? "true" : null} data-target={target ? "true" : null}>
      <Boundary value={call} label="tool call">
        <ToolCall
          call={call}
          hasCard={card !== null || cardElsewhere}
          onGoBack={goBack}
          foreignPause={foreignPause}
          toggled={toggled}
          onToggle={onToggle}
          pinned={pinned}
          onPin={onPin}
        />
        <DecisionLines call={call} />
      </Boundary>
      <EditBar editAt={editAt} edited={edited} what="Result" open={editing} onOpen={() => setEditing(true)} />
      {editing && editAt !== null ? (
        <ItemEditor position={editAt} edited={{ kind: "result", result: resultOf(call) }} onDone={() => setEditing(false)} />
      ) : null}
      {card ? (
        <Boundary value={card} label="card">
          <Card card={card} readOnly={readOnly} />
        </Boundary>
      ) : null}
    </div>
  );
}

const ToolRow = memo(ToolRowImpl);

// The stand-in record of a call the assistant asked for, one object per request, so that
// its row is not drawn again while it waits.
const standIns = new WeakMap<ToolCallRequest, ToolItem>();

function standIn(call: ToolCallRequest): ToolItem {
  let item = standIns.get(call);
  if (!item) {
    item = { type: "tool", id: call.id, name: call.name, input: call.input, status: "pending", interrupts: [] };
    standIns.set(call, item);
  }
  return item;
}

export type Row =
  | { key: string; kind: "message"; item: Item & { type: "user" | "assistant" }; position: number }
  | { key: string; kind: "tool"; call: ToolItem; aside?: boolean };

// Each tool call's row, one object per record, so that a long run's rows are not made
// again at every frame.
const toolRows = new WeakMap<ToolItem, Row>();

function toolRow(call: ToolItem): Row {
  let row = toolRows.get(call);
  if (!row) {
    row = { key: `t-${call.id}`, kind: "tool", call };
    toolRows.set(call, row);
  }
  return row;
}

/**
 * The transcript as rows: messages, and tool calls where their records are (a call the
 * assistant asked for shows up where its record will: after the turn's records). An
 * assistant turn with no text that only calls tools has no row of its own, unless Retry set
 * it aside (its row says so); the calls of a set-aside turn are marked `aside`.
 */
export function rowsOf(items: readonly Item[]): Row[] {
  const recorded = new Set<string>();
  for (const item of items) if (item.type === "tool") recorded.add(item.id);
  const rows: Row[] = [];
  let waiting: ToolCallRequest[] = [];
  let aside = false;
  const flush = () => {
    for (const call of waiting) rows.push(toolRow(standIn(call)));
    waiting = [];
  };
  items.forEach((item, index) => {
    if (item.type === "tool") {
      rows.push(aside ? { key: `t-${item.id}`, kind: "tool", call: item, aside } : toolRow(item));
    } else if (item.type === "user" || item.type === "assistant") {
      flush();
      aside = item.type === "assistant" && !!item.set_aside;
      const toolsOnly = item.type === "assistant" && !item.text && (item.tool_calls ?? []).length > 0 && !aside;
      if (!toolsOnly) rows.push({ key: `m-${index}`, kind: "message", item, position: index });
      if (item.type === "assistant") waiting = ((item as AssistantItem).tool_calls ?? []).filter((c) => !recorded.has(c.id));
    }
  });
  flush();
  return rows;
}

function needsEye(row: Row, cards: ReadonlyMap<string, PendingCard>): boolean {
  return row.kind === "tool" && (row.call.status === "interrupted" || cards.has(row.call.id));
}

export interface TranscriptProps {
  items: Item[];
  streaming: string;
  pending?: PendingCard[];
  model?: Model;
  readOnly?: boolean;
  /** The tool calls a read-only pause of another producer waits on (its card is drawn
   * apart, below the transcript). */
  foreign?: ReadonlySet<string>;
  /** Called with the cards this transcript shows at their tool calls. */
  placed?: ReadonlySet<string>;
}

/** The answerable cards of this run, by the tool call they belong to. */
export function cardsByCall(pending: readonly PendingCard[]): Map<string, PendingCard> {
  const byCall = new Map<string, PendingCard>();
  for (const card of pending) {
    if (card.kind !== "unbound" && card.toolCallId && !byCall.has(card.toolCallId)) byCall.set(card.toolCallId, card);
  }
  return byCall;
}

/** The tool calls a read-only pause of another producer waits on. */
export function foreignPauses(pending: readonly PendingCard[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const card of pending) if (card.kind === "unbound" && card.toolCallId) ids.add(card.toolCallId);
  return ids;
}

/** The names of the run's tools, in the order they were first called. */
function toolNames(items: readonly Item[]): string[] {
  const names = new Set<string>();
  for (const item of items) if (item.type === "tool") names.add(item.name);
  return [...names];
}

/** The rows of what the kernel found, each drawn from this view's own record of its step
 * when it has it (so a row stays current while the run goes on). */
function foundRows(found: readonly FoundItem[], items: readonly Item[]): Row[] {
  const rows: Row[] = [];
  for (const { position, item: sent } of found) {
    const own = items[position];
    const item = own && own.type === sent.type && (own.type !== "tool" || (sent.type === "tool" && own.id === sent.id)) ? own : sent;
    if (item.type === "tool") rows.push({ key: `t-${item.id}`, kind: "tool", call: item });
    else if (item.text || item.type === "user" || !(item.tool_calls ?? []).length || item.set_aside)
      rows.push({ key: `m-${position}`, kind: "message", item, position });
  }
  return rows;
}

const NONE: ReadonlySet<number> = new Set();

function editsIn(model: Model | undefined): { editable: ReadonlySet<number>; edited: ReadonlySet<number> } {
  const editable = model?.get("editable") ?? [];
  const edited = model?.get("edited") ?? [];
  return { editable: editable.length ? new Set(editable) : NONE, edited: edited.length ? new Set(edited) : NONE };
}

/** The positions a person can edit now, and those they edited (a fork made at a turn). */
function useEdits(model: Model | undefined): { editable: ReadonlySet<number>; edited: ReadonlySet<number> } {
  const [edits, setEdits] = useState(() => editsIn(model));
  useLayoutEffect(() => {
    if (!model) return;
    const read = () => setEdits(editsIn(model));
    model.on("change:editable", read);
    model.on("change:edited", read);
    read();
    return () => {
      model.off("change:editable", read);
      model.off("change:edited", read);
    };
  }, [model]);
  return edits;
}

const NO_CALLS: ReadonlySet<string> = new Set();

export function Transcript({ items, streaming, pending = [], model, readOnly = false, foreign = NO_CALLS }: TranscriptProps) {
  const rows = useMemo(() => rowsOf(items), [items]);
  const { editable, edited } = useEdits(model);
  // Where each call is, only while some item is (or was) edited: a fork at a turn.
  const callAt = useMemo(() => {
    const at = new Map<string, number>();
    if (editable.size === 0 && edited.size === 0) return at;
    items.forEach((item, i) => {
      if (item.type === "tool") at.set(item.id, i);
    });
    return at;
  }, [items, editable, edited]);
  const editsOf = (row: Row): Editing => {
    const position = row.kind === "message" ? row.position : callAt.get(row.call.id);
    if (position === undefined) return {};
    return { editAt: editable.has(position) && !readOnly ? position : null, edited: edited.has(position) };
  };
  const cards = useMemo(() => (model ? cardsByCall(pending) : new Map<string, PendingCard>()), [pending, model]);
  // "Go back here" on the live transcript's calls: a fork that runs the call again.
  const kernel = useKernel();
  const local = model ? remoteOf(model.get("meta")) === null : false;
  const goBack = useMemo(() => (kernel && local && !readOnly ? (callId: string) => fork(kernel, { call: callId }, true) : null), [kernel, local, readOnly]);
  const [shown, setShown] = useState(WINDOW);
  // Rows a person opened or closed keep that state, and opened ones stay drawn, however
  // far the run goes on; pinned ones are listed at the top.
  const [toggles, setToggles] = useState<ReadonlyMap<string, boolean>>(() => new Map());
  const onToggle = useCallback((callId: string, open: boolean) => setToggles((before) => new Map(before).set(callId, open)), []);
  const { pins, togglePin } = usePins();
  const pinnedRows = usePinnedRows(rows, pins);
  const [found, setFound] = useState<Shown | null>(null);
  const running = useRunning(model);
  const onPin = model ? togglePin : null;
  const findable = !!kernel && !!model && !readOnly && (rows.length > WINDOW || found !== null);
  const tools = useMemo(() => (findable ? toolNames(items) : []), [findable, items]);
  const results = useMemo(() => (found ? foundRows(found.value.items, items) : null), [found, items]);
  const targetPosition = found?.kind === "jump" ? found.value.target : null;
  const target = targetPosition !== null ? items[targetPosition] : undefined;
  const targetId = target?.type === "tool" ? target.id : null;
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    // A jump shows its step: scrolled to, without taking the focus from the find bar.
    const row = section.current?.querySelector<HTMLElement>('[data-target="true"]');
    if (row && typeof row.scrollIntoView === "function") row.scrollIntoView({ block: "nearest" });
  }, [found]);
  const hidden = Math.max(0, rows.length - shown);
  const restsOn = model && !readOnly && !running && !streaming && rows.length > 0 ? rows[rows.length - 1].key : null;
  // Calls waiting for an answer, and calls a person opened, are never hidden: they come
  // right after the button (in the same list as the last rows, so a row that moves there
  // keeps its element and the focus).
  const kept =
    hidden > 0
      ? rows.slice(0, hidden).filter((row) => needsEye(row, cards) || (row.kind === "tool" && toggles.get(row.call.id) === true && !pins.has(row.call.id)))
      : [];
  const earlier = hidden - kept.length;
  const draw = (row: Row): VNode =>
    row.kind === "tool" ? (
      <ToolRow
        key={row.key}
        call={row.call}
        card={cards.get(row.call.id) ?? null}
        readOnly={readOnly}
        aside={!!row.aside}
        goBack={goBack}
        foreignPause={foreign.has(row.call.id)}
        toggled={toggles.get(row.call.id) ?? null}
        onToggle={onToggle}
        pinned={pins.has(row.call.id)}
        onPin={onPin}
        target={row.call.id === targetId}
        {...editsOf(row)}
      />
    ) : (
      <Message key={row.key} item={row.item} latest={row.key === restsOn} {...editsOf(row)} />
    );
  const drawPinned = (row: Row): VNode =>
    row.kind === "tool" ? (
      <ToolRow
        key={row.key}
        call={row.call}
        card={null}
        cardElsewhere={cards.has(row.call.id)}
        readOnly={readOnly}
        aside={!!row.aside}
        goBack={goBack}
        foreignPause={foreign.has(row.call.id)}
        toggled={toggles.get(row.call.id) ?? null}
        onToggle={onToggle}
        pinned={true}
        onPin={onPin}
      />
    ) : (
      <Message key={row.key} item={row.item} />
    );
  return (
    <section class="pp-transcript" aria-label="Transcript" data-rows={rows.length} ref={section}>
      {findable && kernel ? <FindBar kernel={kernel} tools={tools} live={running} version={items} shown={found} onShow={setFound} /> : null}
      <PinnedStrip rows={pinnedRows} draw={drawPinned} />
      {results ? (
        <section
          class="pp-found"
          data-testid="pp-found"
          data-kind={found?.kind}
          aria-label={found?.kind === "jump" ? "The steps around the one you jumped to" : "Steps that fit the filter"}
        >
          {results.length === 0 ? (
            <p class="pp-muted pp-empty" data-testid="pp-found-none">
              {found?.kind === "jump" ? "Nothing to show." : "No step fits this filter."}
            </p>
          ) : (
            results.map(draw)
          )}
        </section>
      ) : null}
      {!results && earlier > 0 ? (
        <div class="pp-earlier" data-testid="pp-earlier" key="earlier">
          <span>
            {earlier.toLocaleString("en-US")} earlier {earlier === 1 ? "step" : "steps"}
          </span>
          <button type="button" class="pp-button pp-button-quiet" data-testid="pp-show-earlier" onClick={() => setShown(shown + STEP)}>
            Show {Math.min(STEP, earlier).toLocaleString("en-US")} more
          </button>
        </div>
      ) : null}
      {rows.length === 0 && !streaming ? <p class="pp-muted pp-empty">No messages yet.</p> : null}
      {results ? null : [...kept, ...rows.slice(hidden)].map(draw)}
      {streaming ? (
        <div class="pp-item pp-message pp-assistant pp-streaming" data-testid="pp-streaming" aria-busy="true">
          <div class="pp-role">Assistant</div>
          <Boundary value={streaming} label="message">
            <Markdown text={streaming} />
          </Boundary>
        </div>
      ) : null}
      {model && !readOnly ? <MessageBox model={model} /> : null}
    </section>
  );
}
