// Generated from src/pausepoint/widget/protocol.py by `make protocol`; do not edit.

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

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

/** Stop the run; answered once it has stopped. */
export interface Cancel {
  requestId: string;
  type: "cancel";
}

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

/** Hide a run from the list, saying who did (`by`). */
export interface Ignore {
  requestId: string;
  type: "ignore";
  run: string;
  by?: string | null;
}

export type InboxRequest = Resume | Reject | Value | Refresh | Show | ListRuns | OpenRun | Bulk | Ignore | Unignore;

/** A tool call by its number, 1 for the first. */
export interface JumpCall {
  call: number;
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

/**
 * The message box: the next user message of a run that waits on nobody, or `null` to go on after a
 * stop or a failure (Continue).
 */
export interface Say {
  requestId: string;
  type: "say";
  text?: string | null;
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

/** List a hidden run again. */
export interface Unignore {
  requestId: string;
  type: "unignore";
  run: string;
}

/** The whole value behind a preview's reference (what "Show all" shows). */
export interface Value {
  requestId: string;
  type: "value";
  ref: string;
}

export type ViewRequest = Resume | Reject | Value | Say | Retry | Cancel | Debug | ModelRequest | Fork | Branches | ShowFork | EditItem | FindRequest | Follow;
