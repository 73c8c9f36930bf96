import type { VNode } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { problemPath, reject, resume } from "../kernel/protocol";
import type { Kernel, Outcome } from "../kernel/requests";
import { useAnswer } from "../kernel/use-answer";
import { respondAnswer } from "../lib/answers";
import { moveFocusAfterAnswer } from "../lib/focus";
import { formatDuration, useNow, useUniqueId } from "../lib/hooks";
import { sameJson } from "../lib/json";
import { callTitle, kindTitle, possessive } from "../lib/labels";
import { booleanChoice } from "../lib/schema-form";
import { revealText } from "../lib/unicode";
import type { Json, PendingCard } from "../types";
import { AnswerError } from "./AnswerError";
import { FreeAnswer } from "./FreeAnswer";
import { JsonBlock } from "./JsonBlock";
import type { EditorState } from "./JsonEditor";
import { previewOf, TooLargeToEdit } from "./Preview";
import { Respond } from "./Respond";
import { cardHasHidden, HiddenWarning, Revealed } from "./Revealed";
import { AnswerEditor } from "./SchemaForm";
import { YesNo } from "./YesNo";

interface RejectControlsProps {
  idPrefix: string;
  disabled: boolean;
  onReject: (reason: string | null) => void;
}

function RejectControls({ idPrefix, disabled, onReject }: RejectControlsProps) {
  const [reason, setReason] = useState("");
  const send = () => onReject(reason.trim() === "" ? null : reason.trim());
  return (
    <span class="pp-reject">
      <input
        id={`${idPrefix}-reason`}
        class="pp-input pp-reason"
        type="text"
        placeholder="Reason (optional)"
        aria-label="Reason for rejecting (optional)"
        data-testid="pp-reject-reason"
        value={reason}
        disabled={disabled}
        onInput={(e: Event) => setReason((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e: KeyboardEvent) => {
          if (e.key === "Enter" && !e.isComposing) {
            e.preventDefault();
            send();
          }
        }}
      />
      <button type="button" class="pp-button pp-button-danger" data-testid="pp-reject" disabled={disabled} onClick={send}>
        Reject
      </button>
    </span>
  );
}

interface CountdownProps {
  remaining: number;
}

function Countdown({ remaining }: CountdownProps) {
  const expired = remaining <= 0;
  const soon = !expired && remaining < 60_000;
  return (
    <span class={`pp-countdown${expired ? " pp-expired" : soon ? " pp-soon" : ""}`} data-testid="pp-countdown" data-expired={expired ? "true" : "false"}>
      {expired ? "expired" : `expires in ${formatDuration(remaining)}`}
    </span>
  );
}

interface ArgumentsProps {
  card: PendingCard;
}

/**
 * An approval's arguments as the action will receive them (validated by the kernel:
 * converted values, defaults filled in), with the model's own input on demand; or the
 * model's input with the reasons it does not fit.
 */
function Arguments({ card }: ArgumentsProps) {
  const raw = card.args ?? {};
  const problems = Array.isArray(card.argsProblems) ? card.argsProblems : [];
  if (problems.length > 0) {
    return (
      <>
        <JsonBlock label="Arguments" value={raw} testid="pp-args" />
        <div class="pp-card-warning" role="note" data-testid="pp-args-problems">
          <strong>These arguments do not fit the action's input</strong>; approved as they are, the call fails.
          <ul class="pp-problems">
            {problems.map((p) => (
              <li data-path={revealText(problemPath(p.path))}>
                <code>
                  <Revealed text={problemPath(p.path) || "(arguments)"} />
                </code>
                : <Revealed text={String(p.message ?? "")} />
              </li>
            ))}
          </ul>
        </div>
      </>
    );
  }
  if (!card.validatedArgs) return <JsonBlock label="Arguments" value={raw} testid="pp-args" />;
  // Previews of large values (see Preview.tsx) cannot be compared here.
  const differs = previewOf(card.validatedArgs) === null && previewOf(raw) === null && !sameJson(card.validatedArgs, raw);
  return (
    <>
      <JsonBlock label="Arguments (as the action will receive them)" value={card.validatedArgs} testid="pp-args" />
      {differs ? (
        <p class="pp-help pp-args-differ" data-testid="pp-args-differ">
          These differ from what the model wrote: values converted to the action's types, defaults filled in.
        </p>
      ) : null}
      <details class="pp-model-args" data-testid="pp-model-args">
        <summary>The model's input{differs ? " (differs)" : ""}</summary>
        <JsonBlock label="Arguments as the model wrote them" value={raw} testid="pp-raw-args" />
      </details>
    </>
  );
}

interface CardProps {
  card: PendingCard;
  readOnly?: boolean;
}

/** `readOnly`: the kernel is gone, so nothing can be sent (see kernel/liveness.ts). */
export function Card({ card, readOnly: offline = false }: CardProps) {
  const idPrefix = useUniqueId("pp-card");
  const within = card.kind === "tool-approval" ? "editedArgs" : "";
  const answer = useAnswer({ within });
  const readOnly = offline || !answer.connected;
  const [editing, setEditing] = useState(false);
  const [responding, setResponding] = useState(false);
  const cardRef = useRef<HTMLElement>(null);
  const mounted = useRef(true);
  // Set while an answer is out: a card the kernel removes before its answer's reply
  // arrives still moves focus on as it leaves.
  const answered = useRef<{ hadFocus: boolean } | null>(null);
  useEffect(() => {
    mounted.current = true;
    const element = cardRef.current;
    const root = element?.closest(".pp-root") ?? null;
    return () => {
      mounted.current = false;
      if (answered.current) {
        const { hadFocus } = answered.current;
        answered.current = null;
        // After this card has left the page, so that the next one is the first left.
        queueMicrotask(() => moveFocusAfterAnswer(element, hadFocus, root));
      }
    };
  }, []);

  const expiresAt = card.expiresAt ? Date.parse(card.expiresAt) : Number.NaN;
  const expiring = Number.isFinite(expiresAt);
  const now = useNow(expiring && Date.now() < expiresAt);
  const remaining = expiring ? expiresAt - now : Number.POSITIVE_INFINITY;
  const expired = expiring && remaining <= 0;
  const answerable = card.canResolve && card.kind !== "unbound";
  const { phase } = answer;
  const disabled = !answerable || phase !== "idle" || expired || readOnly;

  const send = async (request: (kernel: Kernel) => Promise<Outcome>) => {
    if (!answer.ready() || !answerable || readOnly || (expiring && Date.now() >= expiresAt)) return;
    const hadFocus = cardRef.current?.contains(document.activeElement) ?? false;
    answered.current = { hadFocus };
    const outcome = await answer.send(request);
    if (!mounted.current) return;
    answered.current = null;
    if (outcome?.ok) moveFocusAfterAnswer(cardRef.current, hadFocus);
  };
  const onResume = (data: Json | (() => Json)) => send((kernel) => resume(kernel, card, typeof data === "function" ? data() : data));
  const onReject = (reason: string | null) => send((kernel) => reject(kernel, card, reason));
  const serverErrors = answer.fieldErrors;
  const offers = (decision: string) => !card.decisions || card.decisions.includes(decision);
  const rejectControls = offers("reject") ? <RejectControls idPrefix={idPrefix} disabled={disabled} onReject={onReject} /> : null;

  const choice = useMemo(() => (card.kind === "generic" && card.responseSchema ? booleanChoice(card.responseSchema) : null), [card.kind, card.responseSchema]);
  let body: VNode;
  if (!answerable) {
    body = (
      <div class="pp-card-body">
        <p class="pp-unanswerable" data-testid="pp-unanswerable">
          Not answerable here
          {card.readOnlyReason ? (
            <>
              :{" "}
              <span class="pp-reason">
                <Revealed text={card.readOnlyReason} />
              </span>
            </>
          ) : null}
        </p>
        {card.data !== null && card.data !== undefined ? <JsonBlock label="Data" value={card.data} /> : null}
      </div>
    );
  } else if (card.kind === "tool-approval") {
    const approveButton = (state: EditorState | null) => (
      <button
        type="button"
        class="pp-button pp-button-primary"
        data-testid="pp-approve"
        disabled={disabled || (state !== null && !state.valid)}
        aria-label={revealText(state ? `Approve with edits: ${callTitle(card.toolName, card.args)}` : `Approve ${callTitle(card.toolName, card.args)}`)}
        onClick={() =>
          state ? state.valid && state.value !== undefined && onResume(() => ({ approved: true, editedArgs: state.value as Json })) : onResume(true)
        }
      >
        {state ? "Approve with edits" : "Approve"}
      </button>
    );
    const editToggle = (
      <button
        type="button"
        class="pp-button pp-button-quiet"
        data-testid="pp-edit-args"
        aria-expanded={editing ? "true" : "false"}
        disabled={disabled || previewOf(card.args) !== null}
        onClick={() => setEditing(!editing)}
      >
        {editing ? "Cancel edits" : "Edit arguments"}
      </button>
    );
    const respondToggle = (
      <button
        type="button"
        class="pp-button pp-button-quiet"
        data-testid="pp-respond"
        aria-expanded={responding ? "true" : "false"}
        disabled={disabled}
        onClick={() => setResponding(!responding)}
      >
        {responding ? "Cancel response" : "Respond"}
      </button>
    );
    const actions = (state: EditorState | null) => (
      <>
        <div class="pp-actions">
          {offers("approve") || state ? approveButton(state) : null} {offers("edit") ? editToggle : null} {offers("respond") ? respondToggle : null}{" "}
          {rejectControls}
        </div>
        {responding ? <Respond idPrefix={idPrefix} disabled={disabled} onRespond={(words: string) => onResume(respondAnswer(words))} /> : null}
      </>
    );
    body = (
      <div class="pp-card-body">
        {editing ? (
          <AnswerEditor
            idPrefix={`${idPrefix}-args`}
            schema={card.inputSchema}
            initial={(previewOf(card.validatedArgs) === null ? card.validatedArgs : null) ?? card.args ?? {}}
            jsonLabel="Arguments (JSON)"
            disabled={disabled}
            serverErrors={serverErrors}
            actions={(state: EditorState) => actions(state)}
            onSubmit={(value: Json) => onResume({ approved: true, editedArgs: value })}
          />
        ) : (
          <>
            <Arguments card={card} />
            <TooLargeToEdit value={card.args} />
            {actions(null)}
          </>
        )}
      </div>
    );
  } else if (choice) {
    body = (
      <div class="pp-card-body">
        {card.data !== null && card.data !== undefined ? <JsonBlock label="Data" value={card.data} /> : null}
        <YesNo choice={choice} disabled={disabled} after={rejectControls} onAnswer={onResume} />
      </div>
    );
  } else if (card.responseSchema) {
    body = (
      <div class="pp-card-body">
        {card.data !== null && card.data !== undefined ? <JsonBlock label="Data" value={card.data} /> : null}
        <AnswerEditor
          idPrefix={`${idPrefix}-answer`}
          schema={card.responseSchema}
          jsonLabel="Answer (JSON)"
          disabled={disabled}
          serverErrors={serverErrors}
          actions={(state: EditorState) => (
            <div class="pp-actions">
              <button
                type="button"
                class="pp-button pp-button-primary"
                data-testid="pp-submit"
                disabled={disabled || !state.valid}
                onClick={() => state.valid && state.value !== undefined && onResume(state.value)}
              >
                Submit
              </button>
              {rejectControls}
            </div>
          )}
          onSubmit={onResume}
        />
      </div>
    );
  } else {
    body = (
      <div class="pp-card-body">
        {card.data !== null && card.data !== undefined ? <JsonBlock label="Data" value={card.data} /> : null}
        <FreeAnswer idPrefix={`${idPrefix}-answer`} disabled={disabled} serverErrors={serverErrors} after={rejectControls} onSend={onResume} />
      </div>
    );
  }

  return (
    <article
      ref={cardRef}
      tabindex={-1}
      class={`pp-card pp-card-${card.kind}${!answerable || readOnly ? " pp-card-readonly" : ""}${expired ? " pp-card-expired" : ""}`}
      data-testid="pp-card"
      data-kind={card.kind}
      data-interrupt-id={revealText(card.id)}
      data-phase={expired ? "expired" : phase}
      data-readonly={readOnly || !answerable ? "true" : "false"}
      aria-label={revealText(`${kindTitle(card.kind)}: ${card.toolName ? `${callTitle(card.toolName, card.args)}: ` : ""}${card.message}`)}
      aria-busy={phase === "sending" ? "true" : "false"}
    >
      <div class="pp-card-head">
        <span class={`pp-badge pp-badge-${card.kind}`}>{answerable ? kindTitle(card.kind) : "Not answerable here"}</span>
        {card.toolName ? (
          <span class="pp-card-title" data-testid="pp-card-title">
            <Revealed text={callTitle(card.toolName, card.args)} />
          </span>
        ) : null}
        {expiring ? <Countdown remaining={remaining} /> : null}
        {phase === "sending" ? (
          <span class="pp-muted" data-testid="pp-sending">
            Sending…
          </span>
        ) : null}
        {phase === "sent" ? (
          <span class="pp-muted" data-testid="pp-sent">
            Sent; waiting for the run
          </span>
        ) : null}
      </div>
      {cardHasHidden(card) ? <HiddenWarning what="card" /> : null}
      <p class="pp-card-message">
        <Revealed text={card.message} />
      </p>
      {card.readFrom ? (
        <p
          class="pp-read-from pp-muted"
          data-testid="pp-read-from"
          title="It came without pausepoint's binding, so nothing vouches that it belongs to this run or that its schema is the one its server checks; your answer is checked here against the schema it came with, and again by its server"
        >
          Read from {possessive(revealText(card.readFrom))} pause
        </p>
      ) : null}
      {body}
      {answer.error ? <AnswerError error={answer.error} within={within} /> : null}
    </article>
  );
}
