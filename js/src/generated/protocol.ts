// Generated from src/pausepoint/widget/protocol.py and traits.py by `make protocol`; do not edit.

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type Answerer = "code" | "view" | "inbox" | "policy" | "agui";

export interface AssistantItem {
  type: "assistant";
  text: string | Preview;
  tool_calls?: ToolCallRequest[];
  call?: ModelCall | null;
  /** Set when Retry set this turn aside: kept for people to read, never sent to the model again. */
  set_aside?: SetAside | null;
}

/** This run and its fork `fork` (a run id) from the fork point on. */
export interface Branches {
  requestId: string;
  type: "branches";
  fork: string;
}

/** One answer to many runs; `text` is the reason to decline or the words to respond. */
export interface Bulk {
  requestId: string;
  type: "bulk";
  answer: BulkAnswer;
  runs: string[];
  text?: string | null;
}

export type BulkAnswer = "approve" | "decline" | "respond";

/** One run's outcome in a bulk answer. */
export interface BulkOutcome {
  runId: string;
  outcome: "answered" | "not-waiting" | "read-only" | "gone" | "refused";
  message: string;
  code?: ErrorCode | null;
}

/** The latest bulk answer asked from the view, as it goes (the `bulk` trait). */
export interface BulkProgress {
  id?: string | null;
  answer?: BulkAnswer | null;
  total?: number | null;
  outcomes?: BulkOutcome[] | null;
}

/** Stop the run; answered once it has stopped. */
export interface Cancel {
  requestId: string;
  type: "cancel";
}

export interface Cancellation {
  by: string;
  reason: string | null;
  at: string;
}

export type CardKind = "tool-approval" | "generic" | "breakpoint" | "unbound";

/** Go on from a stepping run's pause before a model request. */
export interface Debug {
  requestId: string;
  type: "debug";
  action: "step" | "continue";
}

/**
 * In a fork made at a model turn, before it asks the model again: a user message's new words
 * (`text`) or the result the model reads of a tool call (`result`, any JSON, `null` included);
 * exactly one of the two.
 */
export interface EditItem {
  requestId: string;
  type: "edit_item";
  position: number;
  text?: string | null;
  result?: Json;
}

export type ErrorCode =
  | "bad-request"
  | "too-large"
  | "too-deep"
  | "not-found"
  | "no-loop"
  | "invalid-answer"
  | "already-resolved"
  | "expired"
  | "busy"
  | "damaged"
  | "refused"
  | "cancelled"
  | "internal";

export interface ErrorInfo {
  name: string;
  message: string | Preview;
}

/** A refused request. A message without a usable `requestId` gets `requestId: null`. */
export interface Failure {
  type: "response";
  requestId: string | null;
  ok: false;
  error: ReplyError;
}

/** What a find keeps: steps that fit every part that is set. */
export interface FindFilter {
  tool?: string | null;
  status?: FindStatus | null;
  text?: string | null;
}

/**
 * The steps that fit `filter`: how many, and `count` of them from the `from`-th; or, with `jump`,
 * the page of the transcript around a call, the first pause or the last failure.
 */
export interface FindRequest {
  requestId: string;
  type: "find";
  filter?: FindFilter;
  from?: number;
  count?: number;
  jump?: ("first-pause" | "last-failure") | JumpCall | null;
}

export type FindStatus = "waiting" | "failed" | "cancelled" | "edited" | "answered";

/** The answer to a find: how many steps fit, and one page of them from `from`. */
export interface FindValue {
  total: number;
  /** Tool calls in the run. */
  calls: number;
  from: number;
  items: FoundItem[];
  /** How long the kernel took (ms). */
  ms: number;
}

/**
 * The page keeps the transcript from the `items` messages: the end of a cell need not send the
 * whole `items` trait again.
 */
export interface Follow {
  requestId: string;
  type: "follow";
}

/**
 * A new run forked at an answered interrupt, before a tool call runs again, or before model turn
 * `turn`: exactly one of the three. `open`: show it in place below the view (Go back here).
 */
export interface Fork {
  requestId: string;
  type: "fork";
  interrupt?: string | null;
  call?: string | null;
  turn?: number | null;
  open?: boolean;
}

/** A fork as the view lists it (the kernel keeps the list current as the fork moves). */
export interface ForkInfo {
  runId: string;
  /** What made it: "declined at refund", "edited cents at refund", "asked again at turn 3". */
  name?: string | null;
  /** How to reach it in the notebook: `finished.forks[0]`, by the variable holding it. */
  code?: string | null;
  interruptId: string | null;
  toolCallId?: string | null;
  turn?: number | null;
  status: string;
  items?: number | null;
  /** Shown in place below this view (`fork_view`). */
  open?: boolean | null;
}

/** One step the kernel found, as the view draws it. */
export interface FoundItem {
  /** Its index in `items`. */
  position: number;
  /** Its call number, for a tool call. */
  call: number | null;
  item: Item;
}

/** Hide a run from the list, saying who did (`by`). */
export interface Ignore {
  requestId: string;
  type: "ignore";
  run: string;
  by?: string | null;
}

/** One run of the store that waits on a person. */
export interface InboxEntry {
  runId: string;
  agent: string | null;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** Why this kernel cannot answer the run's cards (its agent is unknown here), or null. */
  reason: string | null;
  /** The run's stored rows could not be read; `reason` names what is wrong. */
  damaged?: boolean | null;
  cards: PendingCard[];
}

export type InboxRequest = Resume | Reject | Value | Refresh | Show | ListRuns | OpenRun | Bulk | Ignore | Unignore;

/** The synced traits of the inbox (`Inbox`). */
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

export interface InterruptEntry {
  id: string;
  kind: string;
  message: string;
  data: Json;
  state: Json;
  response_schema: { [key: string]: Json } | null;
  created_at: string | null;
  expires_at: string | null;
  resolution: Resolution | null;
  agui_run_id?: string | null;
}

export type Item = UserItem | AssistantItem | ToolItem;

/** A tool call by its number, 1 for the first. */
export interface JumpCall {
  call: number;
}

/** The answer to a jump: the page around `target` (null: no such step). */
export interface JumpValue {
  target: number | null;
  call: number | null;
  calls: number;
  items: FoundItem[];
  ms: number;
}

/** What the triage list keeps (the store checks the values). */
export interface ListFilter {
  text?: string | null;
  agent?: string | null;
  kind?: string | null;
  status?: string | null;
  ignored?: boolean | null;
}

/** One page of the triage list: the runs that fit `filter`, sorted by `sort`. */
export interface ListRuns {
  requestId: string;
  type: "list";
  filter?: ListFilter | null;
  sort?: string | null;
  offset?: number;
  limit?: number;
}

export interface ModelCall {
  model: string;
  started_at: string;
  ended_at: string;
  usage: { [key: string]: number } | null;
  finish_reason: string | null;
}

/** What the model was sent for assistant turn `turn` (0 for the first). */
export interface ModelRequest {
  requestId: string;
  type: "model_request";
  turn: number;
}

/** A listed run's cards and thread; its cards are answerable from then on. */
export interface OpenRun {
  requestId: string;
  type: "open";
  run: string;
}

/**
 * A run opened from the list (the `open` request's value): its entry with cards, and its thread.
 */
export interface OpenedRun {
  runId: string;
  agent: string | null;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** Why this kernel cannot answer the run's cards (its agent is unknown here), or null. */
  reason: string | null;
  /** The run's stored rows could not be read; `reason` names what is wrong. */
  damaged?: boolean | null;
  cards: PendingCard[];
  thread: Thread;
  /** The run's status when it was read (its summary's). */
  status?: string | null;
}

/** One pause a view shows, answerable there (`canResolve`) or not. */
export interface PendingCard {
  id: string;
  /**
   * Unique among a view's cards; another producer's card may reuse an interrupt id of this run's,
   * so cards are told apart by key and answered by id.
   */
  key?: string | null;
  /** The run the card belongs to, where a view lists several runs (the inbox). */
  runId?: string | null;
  kind: CardKind;
  canResolve: boolean;
  message: string;
  /**
   * The reason AG-UI clients are offered this pause under; null for a pause they are not offered (a
   * breakpoint, another producer's).
   */
  aguiReason?: ("tool_call" | "input_required") | null;
  /** Why this card cannot be answered here, for people (set when `canResolve` is false). */
  readOnlyReason?: string | null;
  /**
   * The producer whose pause this card was read from by its shape, for a pause without pausepoint's
   * binding: "Read from ...'s pause".
   */
  readFrom?: string | null;
  /** What that producer takes, of "approve", "edit", "respond" and "reject"; null: all. */
  decisions?: string[] | null;
  data: Json;
  toolCallId: string | null;
  toolName: string | null;
  args: { [key: string]: Json } | null;
  inputSchema: { [key: string]: Json } | null;
  responseSchema: { [key: string]: Json } | null;
  createdAt: string;
  expiresAt: string | null;
  /** An approval's arguments as the action will receive them, when they fit its input. */
  validatedArgs?: { [key: string]: Json } | null;
  /** Why an approval's arguments do not fit the action's input. */
  argsProblems?: Problem[] | null;
}

/** A long value the kernel did not send whole. */
export interface Preview {
  "pausepoint:preview": PreviewInfo;
}

/**
 * The head of a long value, its size in bytes, and the `ref` a `value` request answers with the
 * whole of it.
 */
export interface PreviewInfo {
  text: string;
  bytes: number;
  ref: string;
}

/** Why part of an answer does not fit: a JSON path into it (`$.editedArgs.amount`). */
export interface Problem {
  path: string;
  message: string;
}

/** Read the store again; answered once it has. */
export interface Refresh {
  requestId: string;
  type: "refresh";
}

/** Decline, with a reason or none (a blank reason is none). */
export interface Reject {
  requestId: string;
  type: "reject";
  interrupt: string;
  reason?: string | null;
  run?: string | null;
}

export type Reply = Success | Failure;

/**
 * Why a request was refused: `name` is what the card shows, `message` what to do, `code` what kind
 * of refusal, `problems` the parts of an answer that do not fit.
 */
export interface ReplyError {
  name: string;
  message: string;
  code: ErrorCode;
  problems?: Problem[];
}

/** How a pause was answered: resumed with `data`, or rejected with `error`. */
export interface Resolution {
  type: "resume" | "reject";
  by?: Answerer | null;
  data?: Json;
  error?: ErrorInfo | null;
  at?: string | null;
}

/**
 * Approve or submit: `data` is the answer (`true`, `{approved, editedArgs}`, words or JSON fitting
 * the pause's response schema; absent is `null`). In an inbox, `run` names the run when a run and
 * its forks wait on one interrupt id.
 */
export interface Resume {
  requestId: string;
  type: "resume";
  interrupt: string;
  data?: Json;
  run?: string | null;
}

/** Ask the model again without the turn that ended the run (after a stop or failure). */
export interface Retry {
  requestId: string;
  type: "retry";
}

export type RunStatus = "idle" | "running" | "interrupted" | "paused" | "completed" | "failed" | "cancelled";

/** The synced traits of a run view (`RunView`). */
export interface RunViewTraits {
  run_id: string;
  meta: { [key: string]: Json };
  status: RunStatus;
  error: ErrorInfo | null;
  started_at: number | null;
  items: Item[];
  pending: PendingCard[];
  forks: ForkInfo[];
  /** The view of the fork shown in place below this one (`IPY_MODEL_<id>`), or null. */
  fork_view: string | null;
  /**
   * Positions of the items a person can edit now: a fork made at a model turn, before it asks the
   * model again (`AgentRun.editable_items`).
   */
  editable: number[];
  /** Positions of the items a person edited in this fork (`ForkOrigin.edited`). */
  edited: number[];
  /** For a stored run, the line that rebuilds it after a restart; empty otherwise. */
  load_line: string;
}

/**
 * The message box: the next user message of a run that waits on nobody, or `null` to go on after a
 * stop or a failure (Continue).
 */
export interface Say {
  requestId: string;
  type: "say";
  text?: string | null;
}

export interface SetAside {
  at: string;
  by: string | null;
}

/** Show the newest `count` waiting runs. */
export interface Show {
  requestId: string;
  type: "show";
  count: number;
}

/** Show the fork `fork` (a run id) in place below the view, or none with `null`. */
export interface ShowFork {
  requestId: string;
  type: "show_fork";
  fork?: string | null;
}

/** A served request; `value` when it has one (absent: none). */
export interface Success {
  type: "response";
  requestId: string | null;
  ok: true;
  value?: Json;
}

/** The last lines of a run's conversation, and how many earlier ones are left out. */
export interface Thread {
  items: ThreadLine[];
  earlier: number;
}

export interface ThreadLine {
  role: string;
  text: string;
}

export interface ToolCallRequest {
  id: string;
  name: string;
  input: Json;
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
  cancellation?: Cancellation | null;
  started_at?: string | null;
  ended_at?: string | null;
}

export type ToolStatus = "pending" | "running" | "interrupted" | "succeeded" | "failed" | "rejected" | "responded" | "cancelled";

/** One page of the triage list (the `list` request's value). */
export interface TriagePage {
  rows: TriageRow[];
  total: number;
  offset: number;
  agents: [string, number][];
  kinds: [string, number][];
  keys: string[];
}

/** One waiting run as a row of the inbox's triage list. */
export interface TriageRow {
  runId: string;
  title: string;
  agent: string | null;
  status: "waiting" | "failed" | "stopped";
  kind: string | null;
  tool: string | null;
  message: string | null;
  pauses: number;
  /** The key arguments of the call that pauses (numbers, booleans, cut texts). */
  arguments: { [key: string]: Json };
  since: string;
  ignoredBy: string | null;
  ignoredAt: string | null;
  damaged: string | null;
  /** This kernel has the run's agent: its cards can be answered here. */
  answerable: boolean;
}

/** List a hidden run again. */
export interface Unignore {
  requestId: string;
  type: "unignore";
  run: string;
}

export interface UserItem {
  type: "user";
  text: string | Preview;
}

/** The whole value behind a preview's reference (what "Show all" shows). */
export interface Value {
  requestId: string;
  type: "value";
  ref: string;
}

export type ViewRequest = Resume | Reject | Value | Say | Retry | Cancel | Debug | ModelRequest | Fork | Branches | ShowFork | EditItem | FindRequest | Follow;
