import type { ToolLogLevel } from '@toolpack/core';
import { readQuestionFields } from '../read-question-fields.ts';
import type { ToolQuestionField } from '../runner-types.ts';

/**
 * A tool-folder call's session (core's PwshSession) with the key the host files runspaces
 * under: a runspace that loaded one session only ever serves calls of that session.
 */
export interface HostSession {
  key: string;
  origin: string;
  imports: readonly string[];
  setup: string | null;
  variables: Readonly<Record<string, string>>;
  environment: Readonly<Record<string, string>>;
  jsonWriter: 'ConvertTo-Json' | null;
}

/**
 * A server-bound credential parameter with its secrets read (toolpack.yaml `credentials:`):
 * the host builds a PSCredential (`username` set) or a SecureString from it in the runspace,
 * just before the call. It travels on the host's private channel only, never in argv or the
 * tool's environment.
 */
export interface HostCredential {
  parameter: string;
  type: 'pscredential' | 'securestring';
  username: string | null;
  password: string;
}

/** Messages Node sends the host; see the comment at the top of assets/host.ps1. */
export type ToHostMessage =
  | {
      type: 'call';
      id: string;
      mode: 'script' | 'tool-folder' | 'module';
      toolName: string;
      scriptPath: string | null;
      functionName: string | null;
      modulePath: string | null;
      arguments: Record<string, unknown>;
      /** Parameters the host adds from server secrets; never in `arguments`, never logged. */
      credentials?: HostCredential[] | null;
      /** What the runspace holds before a tool-folder script (`preload:`, dotbot's session). */
      session?: HostSession | null;
    }
  | { type: 'stop'; id: string }
  /** The answer to an `ask`; `error` says why nobody could answer (thrown in the tool). */
  | {
      type: 'answer';
      id: string;
      askId: string;
      action: 'accept' | 'decline' | 'cancel' | 'error';
      values?: Record<string, string>;
      error?: string;
    }
  | { type: 'warm-module'; modulePath: string }
  /** Loads a tool-folder session into a fresh runspace ahead of the first call that needs it. */
  | { type: 'warm-session'; session: HostSession }
  /** Module runspaces to drop (all when null): the next call imports the module afresh. */
  | { type: 'forget-modules'; modulePaths: string[] | null }
  | { type: 'shutdown' };

export interface HostHelloMessage {
  type: 'hello';
  token: string;
  pid: number;
  psVersion: string;
}

/** One Write-Progress record (the host coalesces a burst of one activity's to its latest). */
export interface HostProgressMessage {
  type: 'progress';
  id: string;
  activityId: number;
  /** -1 for an outermost activity. */
  parentId: number;
  activity: string;
  status: string;
  operation: string;
  /** PowerShell's PercentComplete: -1 when the tool did not give one. */
  percent: number;
  /** Write-Progress -Completed. */
  completed: boolean;
}

export interface HostLogMessage {
  type: 'log';
  id: string;
  level: ToolLogLevel;
  message: string;
}

/** A question the tool put to its PowerShell host (ShouldProcess, Read-Host, PromptForChoice). */
export interface HostAskMessage {
  type: 'ask';
  id: string;
  askId: string;
  message: string;
  fields: ToolQuestionField[];
  /** A secret prompt (Read-Host -AsSecureString, a credential): what it asked for. Never put to anyone. */
  secret: string | null;
}

export interface HostResultMessage {
  type: 'result';
  id: string;
  kind: 'none' | 'text' | 'json' | 'error';
  text: string | null;
  json: string | null;
  error: string | null;
  file: string | null;
  line: number;
  truncated: boolean;
  stopped: boolean;
  /** Records the tool wrote to the error stream (Write-Error), forwarded as logs. */
  errorCount: number;
}

export type FromHostMessage =
  HostHelloMessage | HostProgressMessage | HostLogMessage | HostAskMessage | HostResultMessage;

const LOG_LEVELS = new Set<string>(['debug', 'info', 'notice', 'warning', 'error']);

/**
 * Parses one line from the host. Returns undefined for anything that is not a well-formed
 * message, so a damaged line can never throw inside the runner.
 */
export function parseHostMessage(line: string): FromHostMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'hello':
      return typeof message.token === 'string'
        ? {
            type: 'hello',
            token: message.token,
            pid: typeof message.pid === 'number' ? message.pid : 0,
            psVersion: typeof message.psVersion === 'string' ? message.psVersion : '',
          }
        : undefined;
    case 'progress':
      return typeof message.id === 'string'
        ? {
            type: 'progress',
            id: message.id,
            activityId: typeof message.activityId === 'number' ? message.activityId : 0,
            parentId: typeof message.parentId === 'number' ? message.parentId : -1,
            activity: typeof message.activity === 'string' ? message.activity : '',
            status: typeof message.status === 'string' ? message.status : '',
            operation: typeof message.operation === 'string' ? message.operation : '',
            percent: typeof message.percent === 'number' ? message.percent : -1,
            completed: message.completed === true,
          }
        : undefined;
    case 'log':
      return typeof message.id === 'string' && typeof message.message === 'string'
        ? {
            type: 'log',
            id: message.id,
            level: LOG_LEVELS.has(String(message.level)) ? (message.level as ToolLogLevel) : 'info',
            message: message.message,
          }
        : undefined;
    case 'ask':
      return typeof message.id === 'string' && typeof message.askId === 'string'
        ? {
            type: 'ask',
            id: message.id,
            askId: message.askId,
            message: typeof message.message === 'string' ? message.message : '',
            fields: readQuestionFields(message.fields),
            secret: typeof message.secret === 'string' ? message.secret : null,
          }
        : undefined;
    case 'result': {
      if (typeof message.id !== 'string') return undefined;
      const kind = message.kind;
      return {
        type: 'result',
        id: message.id,
        kind: kind === 'text' || kind === 'json' || kind === 'error' ? kind : 'none',
        text: typeof message.text === 'string' ? message.text : null,
        json: typeof message.json === 'string' ? message.json : null,
        error: typeof message.error === 'string' ? message.error : null,
        file: typeof message.file === 'string' && message.file !== '' ? message.file : null,
        line: typeof message.line === 'number' ? message.line : 0,
        truncated: message.truncated === true,
        stopped: message.stopped === true,
        errorCount: typeof message.errorCount === 'number' ? message.errorCount : 0,
      };
    }
    default:
      return undefined;
  }
}
