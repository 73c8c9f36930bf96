/**
 * The shapes of the model traits and messages described in js/README.md. The requests,
 * their replies and the error codes are the kernel's (generated/protocol.ts, made from
 * pausepoint/widget/protocol.py); what is declared here is what the page alone needs.
 */
import type { AnyModel } from "@anywidget/types";
import type { BulkAnswer, ErrorCode, FindRequest, Json, ListFilter, Problem, Reply, ReplyError } from "./generated/protocol";

export type { BulkAnswer, ErrorCode, FindFilter, FindStatus, Json, Problem } from "./generated/protocol";
export type JsonObject = { [key: string]: Json };

export type RunStatus = "idle" | "running" | "interrupted" | "paused" | "completed" | "failed" | "cancelled";

export interface ErrorInfo {
  name: string;
  message: string;
}

export interface Resolution {
  type: "resume" | "reject";
  /** Who answered: "code", "view", "inbox", "policy" or "agui". */
  by?: string | null;
  data?: Json;
  error?: ErrorInfo;
  at?: string;
}

export interface InterruptEntry {
  id: string;
  kind: string;
  message: string;
  data: Json;
  state: Json;
  response_schema: JsonObject | null;
  created_at: string | null;
  expires_at: string | null;
  resolution: Resolution | null;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  input: Json;
}

export type ToolStatus = "pending" | "running" | "interrupted" | "succeeded" | "failed" | "rejected" | "responded" | "cancelled";

export interface UserItem {
  type: "user";
  text: string;
}

export interface AssistantItem {
  type: "assistant";
  text: string;
  tool_calls?: ToolCallRequest[];
  call?: { model: string; started_at: string; ended_at: string; usage: Record<string, number> | null; finish_reason: string | null } | null;
  /** Set when Retry set this turn aside: kept for people to read, never sent to the model again. */
  set_aside?: { at: string; by: string | null } | null;
}

export interface ToolItem {
  type: "tool";
  id: string;
  name: string;
  input: Json;
  status: ToolStatus;
  result?: Json;
  error?: ErrorInfo | null;
  interrupts?: InterruptEntry[];
  attempts?: number;
  cancellation?: { by: string; reason: string | null; at: string } | null;
  started_at?: string | null;
  ended_at?: string | null;
}

export type Item = UserItem | AssistantItem | ToolItem;

export type CardKind = "tool-approval" | "generic" | "breakpoint" | "unbound";

export interface PendingCard {
  id: string;
  /** Unique among a view's cards; another producer's card may reuse an interrupt id of
   * this run's, so cards are told apart by key and answered by id. */
  key?: string;
  /** The run the card belongs to, where a view lists several runs (the inbox). */
  runId?: string;
  kind: CardKind;
  canResolve: boolean;
  message: string;
  /** The pause's AG-UI reason ("confirmation", "input_required"); null for a pause AG-UI
   * clients are not offered. */
  aguiReason?: string | null;
  /** Why this card cannot be answered here, for people (set when `canResolve` is false). */
  readOnlyReason?: string | null;
  /** The producer whose pause this card was read from by its shape, for a pause without
   * pausepoint's binding (a remote run's Pydantic AI approval): "Read from ...'s pause". */
  readFrom?: string | null;
  /** What that producer takes, of "approve", "edit", "respond" and "reject" (a LangGraph
   * review that allows approve and reject only); null or absent: all four. */
  decisions?: string[] | null;
  data: Json;
  toolCallId: string | null;
  toolName: string | null;
  args: JsonObject | null;
  inputSchema: JsonObject | null;
  responseSchema: JsonObject | null;
  createdAt: string;
  expiresAt: string | null;
  /** An approval's arguments as the action will receive them, when they fit its input. */
  validatedArgs?: JsonObject | null;
  /** Why an approval's arguments do not fit the action's input. */
  argsProblems?: Problem[];
}

/** A refusal as the page shows it: the kernel's (with its `code`), or one the page makes
 * itself when no reply comes (a timeout, a closed widget), which has no code. */
export type ResponseError = Omit<ReplyError, "code"> & { code?: ErrorCode };

export type KernelMessage = { type: "items"; start: number; items: Item[] } | { type: "text"; delta: string } | Reply;

/** Where "Jump to" goes: a call's number (1 for the first), the first pause, the last failure. */
export type JumpTo = NonNullable<FindRequest["jump"]>;

/** One step the kernel found, as the view draws it. */
export interface FoundItem {
  /** Its index in `items`. */
  position: number;
  /** Its call number, for a tool call. */
  call: number | null;
  item: Item;
}

/** The answer to a filter: how many steps fit, and one page of them from `from`. */
export interface FindValue {
  total: number;
  /** Tool calls in the run. */
  calls: number;
  from: number;
  items: FoundItem[];
  /** How long the kernel took (ms). */
  ms: number;
}

/** The answer to a jump: the page of the transcript around `target` (null: no such step). */
export interface JumpValue {
  target: number | null;
  call: number | null;
  calls: number;
  items: FoundItem[];
  ms: number;
}

/** A fork as the view lists it (the kernel keeps the list current as the fork moves). */
export interface ForkInfo {
  runId: string;
  /** What made it: "declined at refund", "edited cents at refund", "asked again at turn 3". */
  name?: string;
  /** How to reach it in the notebook: `finished.forks[0]`, by the variable holding the run. */
  code?: string;
  interruptId: string | null;
  toolCallId?: string | null;
  turn?: number | null;
  status: string;
  items?: number;
  /** Shown in place below this view (`fork_view`). */
  open?: boolean;
}

/** One run of the store that waits on a person (see pausepoint/widget/_inbox.py). */
export interface InboxEntry {
  runId: string;
  agent: string | null;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** Why this kernel cannot answer the run's cards (its agent is unknown here), or null. */
  reason: string | null;
  /** The run's stored rows could not be read; `reason` names what is wrong. */
  damaged?: boolean;
  cards: PendingCard[];
}

/** The traits of a run view (pausepoint/widget/_view.py). */
export interface RunViewTraits {
  run_id: string;
  meta: JsonObject;
  status: RunStatus;
  error: ErrorInfo | null;
  started_at: number | null;
  items: Item[];
  pending: PendingCard[];
  forks: ForkInfo[];
  /** The view of the fork shown in place below this one (`IPY_MODEL_<id>`), or null. */
  fork_view: string | null;
  /** Positions of the items a person can edit now: a fork made at a model turn, before it
   * asks the model again (`AgentRun.editable_items`). */
  editable: number[];
  /** Positions of the items a person edited in this fork (`ForkOrigin.edited`). */
  edited: number[];
}

/** One waiting run as a row of the inbox's triage list (pausepoint/widget/_inbox_triage.py). */
export interface TriageRow {
  runId: string;
  title: string;
  agent: string | null;
  /** "waiting", "failed" or "stopped". */
  status: string;
  kind: string | null;
  tool: string | null;
  message: string | null;
  pauses: number;
  /** The key arguments of the call that pauses (numbers, booleans, cut texts). */
  arguments: Record<string, Json>;
  since: string;
  ignoredBy: string | null;
  ignoredAt: string | null;
  damaged: string | null;
  /** This kernel has the run's agent: its cards can be answered here. */
  answerable: boolean;
}

/** One page of the triage list (`list` request). */
export interface TriagePage {
  rows: TriageRow[];
  total: number;
  offset: number;
  agents: [string, number][];
  kinds: [string, number][];
  keys: string[];
}

/** A run opened from the list (`open` request): its entry with cards, and its thread. */
export interface OpenedRun extends InboxEntry {
  thread: { items: { role: string; text: string }[]; earlier: number };
  /** The run's status when it was read (its summary's). */
  status?: string;
}

/** What the list filters by, as the page keeps it (no nulls); sent as a `ListFilter`. */
export interface TriageFilter {
  text?: string;
  agent?: string;
  kind?: string;
  status?: string;
  ignored?: ListFilter["ignored"];
}

/** One run's outcome in a bulk answer. */
export interface BulkOutcome {
  runId: string;
  outcome: "answered" | "not-waiting" | "read-only" | "gone" | "refused";
  message: string;
}

/** The latest bulk answer asked from the view, as it goes (the `bulk` trait). */
export interface BulkProgress {
  id?: string;
  answer?: BulkAnswer;
  total?: number;
  outcomes?: BulkOutcome[];
}

/** The traits of an inbox (pausepoint/widget/_inbox.py). */
export interface InboxTraits {
  view: "inbox";
  entries: InboxEntry[];
  /** How many runs wait; `entries` holds the newest of them. */
  total: number;
  refreshed_at: string;
  /** Moves on each reading of the store: the list asks for its shown page again. */
  revision: number;
  bulk: BulkProgress;
}

/** What the front end keeps on the model beside the traits; the kernel never sends it. */
export interface LocalState {
  _pp_streaming: string;
}

/**
 * Everything a model of this bundle may hold. One bundle draws both widgets and a model
 * restored from a saved page may lack any trait, so each key may be absent.
 */
export type Traits = Partial<RunViewTraits & InboxTraits & LocalState>;

/** anywidget's model as this widget sees it. */
export type Model = AnyModel<Traits>;
