import { createHash, randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ToolpackError } from '@toolpack/core';
import type { ToolQuestion, ToolQuestionAnswer } from '@toolpack/runners';

/**
 * What one leg of a suspended call ends with: the tool finished (its result, or the error its
 * handler threw), or it asked a question and waits for the answer.
 */
export type CallLeg<Result> =
  | { kind: 'done'; result: Result }
  | { kind: 'failed'; error: unknown }
  | { kind: 'asked'; question: ToolQuestion; requestState: string };

export interface SuspendedCallsOptions {
  /** How long a question waits for the client's retry before the call is stopped. */
  waitMs: number;
  /**
   * How many calls may wait at once. Each keeps a process (or a PowerShell host) alive, and a
   * client may never call back: past this, a tool's question is refused at once.
   */
  maxWaiting?: number;
}

const DEFAULT_MAX_WAITING = 64;

/** What a call is bound to: a retry must name the same tool with the same arguments. */
export interface CallBinding {
  tool: string;
  args: unknown;
}

/** One request of a call: its cancellation, and what it carries (the SDK's request context). */
export interface CallRequest<Context> {
  signal: AbortSignal;
  context: Context;
}

export interface SuspendedCalls<Context> {
  /**
   * Runs a call until it finishes or asks. `run` gets the `ask` to hand the tool, the signal
   * that stops it (expiry, shutdown, a cancelled request) and the request it is serving now
   * (progress and logs go to the latest); it keeps running between requests.
   */
  start<Result>(
    binding: CallBinding,
    run: (
      ask: (question: ToolQuestion) => Promise<ToolQuestionAnswer>,
      signal: AbortSignal,
      current: () => Context,
    ) => Promise<Result>,
    request: CallRequest<Context>,
  ): Promise<CallLeg<Result>>;
  /**
   * Answers the question a `requestState` stands for and runs the call on to its next leg;
   * without an answer (the retry carried none that fits), asks the same question again under
   * a new state. Throws -32602 for a state that is unknown (forged, tampered), expired,
   * already used, or issued for another tool or other arguments.
   */
  resume<Result>(
    requestState: string,
    binding: CallBinding,
    answer: ToolQuestionAnswer | undefined,
    request: CallRequest<Context>,
  ): Promise<CallLeg<Result>>;
  /** The question a `requestState` stands for, without using it up; undefined when unknown. */
  questionOf(requestState: string, binding: CallBinding): ToolQuestion | undefined;
  /** Stops every suspended call (server shutdown). */
  close(): void;
  readonly size: number;
  /** How long a question may wait for its answer. */
  readonly waitMs: number;
}

interface Suspended<Context> {
  binding: string;
  question: ToolQuestion;
  answer(answer: ToolQuestionAnswer): void;
  next(): Promise<CallLeg<unknown>>;
  stop(reason: string): void;
  serve(context: Context): void;
  expiry: NodeJS.Timeout;
}

// 256 random bits: a state can be neither guessed nor derived from another one.
const STATE_BYTES = 32;

function digestBinding(binding: CallBinding): string {
  return createHash('sha256')
    .update(binding.tool)
    .update('\0')
    .update(stableJson(binding.args ?? {}))
    .digest('base64url');
}

/** JSON with object keys sorted, so the same arguments give the same digest in any order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function refuseState(why: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid or expired requestState: ${why} Call the tool again without requestState to start over.`,
    { reason: 'invalid_request_state' },
  );
}

/**
 * The calls of 2026-07-28 clients that asked their user a question and wait, suspended, for
 * the client to call again with the answer (multi-round-trip requests). That revision has no
 * server-to-client requests: the server answers the tools/call with `input_required` and a
 * `requestState`, and the tool's process stays where it asked until the retry brings the
 * answer. One table per server process, shared by both transports' connections, since over
 * HTTP each 2026 request is served by an SDK server of its own.
 *
 * The state is a random key into this table, never data the client could edit: a changed,
 * replayed (each state answers one retry) or expired one is unknown here and refused. It is
 * also bound to the tool and arguments it was minted for.
 */
export function createSuspendedCalls<Context>(
  options: SuspendedCallsOptions,
): SuspendedCalls<Context> {
  const table = new Map<string, Suspended<Context>>();
  const maxWaiting = options.maxWaiting ?? DEFAULT_MAX_WAITING;

  /** Waits for the call's next leg; a leg whose request is cancelled stops the call. */
  async function awaitLeg<Result>(
    next: () => Promise<CallLeg<unknown>>,
    stop: (reason: string) => void,
    legSignal: AbortSignal,
  ): Promise<CallLeg<Result>> {
    const onAbort = () => stop('the client cancelled the request');
    legSignal.addEventListener('abort', onAbort, { once: true });
    try {
      return (await next()) as CallLeg<Result>;
    } finally {
      legSignal.removeEventListener('abort', onAbort);
    }
  }

  function suspend(entry: Omit<Suspended<Context>, 'expiry'>): string {
    const requestState = randomBytes(STATE_BYTES).toString('base64url');
    const expiry = setTimeout(() => {
      table.delete(requestState);
      entry.stop(`no retry with its answer came within ${options.waitMs} ms`);
    }, options.waitMs);
    expiry.unref();
    table.set(requestState, { ...entry, expiry });
    return requestState;
  }

  return {
    get size() {
      return table.size;
    },
    waitMs: options.waitMs,

    start(binding, run, request) {
      const bound = digestBinding(binding);
      let context = request.context;
      const serve = (next: Context) => {
        context = next;
      };
      const controller = new AbortController();
      // Legs queue here until the request waiting for the next one takes them.
      const legs: CallLeg<unknown>[] = [];
      let waiter: ((leg: CallLeg<unknown>) => void) | undefined;
      const push = (leg: CallLeg<unknown>) => {
        if (waiter === undefined) legs.push(leg);
        else {
          const take = waiter;
          waiter = undefined;
          take(leg);
        }
      };
      const next = () => {
        const leg = legs.shift();
        if (leg !== undefined) return Promise.resolve(leg);
        return new Promise<CallLeg<unknown>>((resolve) => {
          waiter = resolve;
        });
      };
      let pendingAnswer:
        { resolve(a: ToolQuestionAnswer): void; reject(e: unknown): void } | undefined;
      const stop = (reason: string) => {
        if (controller.signal.aborted) return;
        controller.abort(reason);
        pendingAnswer?.reject(
          new ToolpackError(
            'E_ELICITATION_UNAVAILABLE',
            `The tool asked its user a question and the call was stopped: ${reason}.`,
          ),
        );
        pendingAnswer = undefined;
      };
      const ask = (question: ToolQuestion) =>
        new Promise<ToolQuestionAnswer>((resolve, reject) => {
          if (controller.signal.aborted) {
            reject(new ToolpackError('E_ELICITATION_UNAVAILABLE', 'The call was stopped.'));
            return;
          }
          if (table.size >= maxWaiting) {
            reject(
              new ToolpackError(
                'E_ELICITATION_UNAVAILABLE',
                `The tool asked its user a question, and ${maxWaiting} calls already wait for their clients to answer theirs.`,
                { hint: 'Answer or abandon the open questions (each expires), then call again.' },
              ),
            );
            return;
          }
          pendingAnswer = { resolve, reject };
          const requestState = suspend({
            binding: bound,
            question,
            answer: (answer) => {
              pendingAnswer = undefined;
              resolve(answer);
            },
            next,
            stop,
            serve,
          });
          push({ kind: 'asked', question, requestState });
        });
      run(ask, controller.signal, () => context).then(
        (result) => push({ kind: 'done', result }),
        (error: unknown) => push({ kind: 'failed', error }),
      );
      return awaitLeg(next, stop, request.signal);
    },

    async resume(requestState, binding, answer, request) {
      const suspended = table.get(requestState);
      if (suspended === undefined)
        throw refuseState('it is unknown to this server, expired, or was already answered.');
      if (suspended.binding !== digestBinding(binding))
        throw refuseState('it was issued for another tool or other arguments.');
      table.delete(requestState);
      clearTimeout(suspended.expiry);
      if (answer === undefined) {
        const { expiry: _expired, ...entry } = suspended;
        return { kind: 'asked', question: suspended.question, requestState: suspend(entry) };
      }
      suspended.serve(request.context);
      suspended.answer(answer);
      return awaitLeg(suspended.next, suspended.stop, request.signal);
    },

    questionOf(requestState, binding) {
      const suspended = table.get(requestState);
      if (suspended === undefined || suspended.binding !== digestBinding(binding)) return undefined;
      return suspended.question;
    },

    close() {
      for (const [requestState, suspended] of table) {
        clearTimeout(suspended.expiry);
        table.delete(requestState);
        suspended.stop('the server is shutting down');
      }
    },
  };
}
