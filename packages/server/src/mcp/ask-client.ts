import {
  SdkError,
  SdkErrorCode,
  type ElicitRequestFormParams,
  type ElicitResult,
  type InputRequests,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ToolpackError } from '@toolpack/core';
import type { ToolQuestion, ToolQuestionAnswer } from '@toolpack/runners';

/**
 * How long a question waits for the user before the tool is told nobody answered, unless the
 * server says otherwise (`mcp serve --question-timeout`). The call's own timeout does not run
 * meanwhile (the runner holds it), so this is the bound on a call left waiting by a user who
 * walked away.
 */
export const QUESTION_TIMEOUT_MS = 10 * 60 * 1000;

/** Where a 2026-07-28 request declares what its client can do. */
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * The key of a question in an `input_required` result's `inputRequests`, unless the tool named
 * it (a JS module's `context.ask({ key })`). A call has one question open at a time, so one key
 * serves every round; the `requestState` tells rounds apart.
 */
export const INPUT_REQUEST_KEY = 'question';

const keyOf = (question: ToolQuestion) => question.key ?? INPUT_REQUEST_KEY;

const ELICITATION_HINT =
  'Use an MCP client that declares the elicitation capability (form mode), or call a tool that needs no answer from its user.';

/** The form an MCP client shows for a tool's question: one required string per field. */
export function toElicitationForm(question: ToolQuestion): ElicitRequestFormParams {
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {};
  for (const field of question.fields) {
    const helps = (field.choices ?? []).filter((choice) => choice.description !== undefined);
    const description = [
      field.description,
      ...helps.map((choice) => `${choice.value}: ${choice.description}`),
    ]
      .filter((part) => part !== undefined && part !== '')
      .join('\n');
    properties[field.name] = {
      type: 'string',
      ...(field.title === undefined ? {} : { title: field.title }),
      ...(description === '' ? {} : { description }),
      ...(field.choices === undefined ? {} : { enum: field.choices.map((choice) => choice.value) }),
      ...(field.default === undefined ? {} : { default: field.default }),
    };
  }
  return {
    mode: 'form',
    message: question.message,
    requestedSchema: {
      type: 'object',
      properties,
      ...(question.fields.length === 0 ? {} : { required: question.fields.map((f) => f.name) }),
    },
  };
}

function readAnswer(result: ElicitResult, question: ToolQuestion): ToolQuestionAnswer {
  if (result.action !== 'accept') return { action: result.action };
  const values: Record<string, string> = {};
  for (const field of question.fields) {
    const value = result.content?.[field.name];
    values[field.name] = Array.isArray(value) ? value.join(', ') : String(value ?? '');
  }
  return { action: 'accept', values };
}

/** A question as the `inputRequests` of a 2026-07-28 `input_required` result. */
export function toInputRequest(question: ToolQuestion): InputRequests {
  return {
    [keyOf(question)]: { method: 'elicitation/create', params: toElicitationForm(question) },
  };
}

/**
 * The client's answer to a question, from a retry's `inputResponses`; undefined when the
 * retry carries none for it, or one that is no elicitation result (the question is then asked
 * again, as the revision recommends, rather than failing the call).
 */
export function readInputResponse(
  responses: Record<string, unknown> | undefined,
  question: ToolQuestion | undefined,
): ToolQuestionAnswer | undefined {
  if (question === undefined) return undefined;
  const response = responses?.[keyOf(question)];
  if (typeof response !== 'object' || response === null) return undefined;
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') return undefined;
  if (content !== undefined && (typeof content !== 'object' || content === null)) return undefined;
  return readAnswer({ action, content } as ElicitResult, question);
}

/**
 * A 2026-07-28 request says in its own `_meta` whether its client can answer a question: one
 * that cannot gets the refusal at once, as a 2025 session without the capability does.
 */
export function verifyElicitationDeclared(ctx: ServerContext): void {
  const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
    CLIENT_CAPABILITIES_KEY
  ] as { elicitation?: unknown } | undefined;
  if (declared?.elicitation !== undefined) return;
  throw new ToolpackError(
    'E_ELICITATION_UNAVAILABLE',
    `The tool asked its user a question, and this request did not declare the elicitation capability (_meta["${CLIENT_CAPABILITIES_KEY}"]), so nobody can answer it.`,
    { hint: ELICITATION_HINT },
  );
}

/**
 * Puts a running tool's questions to the 2025-era client of the request that called it, as
 * `elicitation/create` sent in that request's context (so over HTTP it travels on the call's
 * own stream, to the right session). Refuses at once, with why, where no answer can come: a
 * client without the elicitation capability. (2026-07-28 requests are answered with
 * `input_required` instead: create-mcp-server.ts.)
 */
export function createClientAsker(
  server: Server,
  ctx: ServerContext,
  timeoutMs: number,
): (question: ToolQuestion) => Promise<ToolQuestionAnswer> {
  return async (question) => {
    if (server.getClientCapabilities()?.elicitation === undefined) {
      throw new ToolpackError(
        'E_ELICITATION_UNAVAILABLE',
        'The tool asked its user a question, and this MCP client did not declare the elicitation capability, so nobody can answer it.',
        { hint: ELICITATION_HINT },
      );
    }
    let result: ElicitResult;
    try {
      result = await ctx.mcpReq.send(
        { method: 'elicitation/create', params: { ...toElicitationForm(question) } },
        { signal: ctx.mcpReq.signal, timeout: timeoutMs },
      );
    } catch (error) {
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new ToolpackError(
          'E_ELICITATION_UNAVAILABLE',
          `The tool asked its user a question and got no answer within ${timeoutMs} ms.`,
          { hint: 'Answer sooner, or give what the tool asks for as an argument.' },
        );
      }
      throw new ToolpackError(
        'E_ELICITATION_UNAVAILABLE',
        `The tool asked its user a question and the client failed to answer: ${(error as Error)?.message ?? String(error)}`,
        { hint: ELICITATION_HINT, cause: error },
      );
    }
    return readAnswer(result, question);
  };
}

/** For calls that cannot carry a question (a task-augmented call): refused at once. */
export async function refuseQuestionInTask(): Promise<ToolQuestionAnswer> {
  throw new ToolpackError(
    'E_ELICITATION_UNAVAILABLE',
    'The tool asked its user a question during a task-augmented call, which Toolpack cannot put to the client.',
    { hint: 'Call the tool without a task to answer its questions.' },
  );
}
