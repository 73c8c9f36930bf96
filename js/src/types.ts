/**
 * The shapes of the model traits and messages. The requests, their replies, the error
 * codes, the traits, items and cards are the kernel's (generated/protocol.ts, made from
 * pausepoint/widget/protocol.py and traits.py); what is declared here is what the page
 * alone needs.
 */
import type { AnyModel } from "@anywidget/types";
import type { ErrorCode, FindRequest, InboxTraits, Item, Json, ListFilter, Reply, ReplyError, RunViewTraits } from "./generated/protocol";

export type {
  AssistantItem,
  BulkAnswer,
  BulkOutcome,
  BulkProgress,
  CardKind,
  ErrorCode,
  ErrorInfo,
  FindFilter,
  FindStatus,
  FindValue,
  ForkInfo,
  FoundItem,
  InboxEntry,
  InboxTraits,
  InterruptEntry,
  Item,
  Json,
  JumpValue,
  OpenedRun,
  PendingCard,
  Preview,
  Problem,
  Resolution,
  RunStatus,
  RunViewTraits,
  ToolCallRequest,
  ToolItem,
  ToolStatus,
  TriagePage,
  TriageRow,
  UserItem,
} from "./generated/protocol";
export type JsonObject = { [key: string]: Json };

/** A refusal as the page shows it: the kernel's (with its `code`), or one the page makes
 * itself when no reply comes (a timeout, a closed widget), which has no code. */
export type ResponseError = Omit<ReplyError, "code"> & { code?: ErrorCode };

export type KernelMessage = { type: "items"; start: number; items: Item[] } | { type: "text"; delta: string } | Reply;

/** Where "Jump to" goes: a call's number (1 for the first), the first pause, the last failure. */
export type JumpTo = NonNullable<FindRequest["jump"]>;

/** What the list filters by, as the page keeps it (no nulls); sent as a `ListFilter`. */
export interface TriageFilter {
  text?: string;
  agent?: string;
  kind?: string;
  status?: string;
  ignored?: ListFilter["ignored"];
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
