import path from 'node:path';
import { addParameterSetBranches, createDiagnostic } from '@toolpack/core';
import type {
  BoundCredential,
  CredentialBinding,
  CredentialParameter,
  Diagnostic,
  DiscoveredTool,
} from '@toolpack/core';
import { matchesAnyWildcard } from './powershell-reader/wildcard.ts';
import type { SourceResult } from './types.ts';

const CREDENTIALS_DOC = 'docs/powershell-scripts.md#credentials';

/**
 * Binds the `[pscredential]`/`[securestring]` parameters the PowerShell reader found to a
 * source's `credentials:` entries. This runs after the reader (and its per-file cache), since
 * the entries are the project's, not the file's. A bound parameter stays out of the schema
 * and goes into `invocation.credentials`, for the host to build just before the call. An
 * unbound one is what it always was: a type no client can send, so a tool that needs it in
 * every parameter set is refused, a set that needs it can never be bound, and an optional one
 * is left out.
 */
export function bindCredentials(
  result: SourceResult,
  bindings: readonly CredentialBinding[],
): SourceResult {
  if (!result.tools.some((tool) => tool.credentialParameters !== undefined)) return result;
  const tools: DiscoveredTool[] = [];
  const diagnostics: Diagnostic[] = [...result.diagnostics];
  for (const tool of result.tools) {
    if (tool.credentialParameters === undefined) {
      tools.push(tool);
      continue;
    }
    const bound = bindTool(tool, bindings);
    diagnostics.push(...bound.diagnostics);
    if (bound.tool !== undefined) tools.push(bound.tool);
  }
  return { tools, diagnostics };
}

function bindTool(
  tool: DiscoveredTool,
  bindings: readonly CredentialBinding[],
): { tool?: DiscoveredTool; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const credentials: BoundCredential[] = [];
  let sets = tool.parameterSets;
  let refused = false;
  for (const parameter of tool.credentialParameters ?? []) {
    const binding = findBinding(tool, parameter, bindings);
    if (binding !== undefined) {
      credentials.push({
        parameter: parameter.name,
        type: parameter.type,
        ...(parameter.type === 'pscredential' && binding.username !== undefined
          ? { username: binding.username }
          : {}),
        password: binding.password,
        ...(parameter.sets === undefined ? {} : { sets: parameter.sets }),
        ...(binding.origin === undefined ? {} : { origin: binding.origin }),
      });
      continue;
    }
    const where = { path: tool.source.path, line: parameter.line };
    const label = `Parameter $${parameter.name} of ${describeCommand(tool)} is a [${parameter.type}], which no JSON value can stand for`;
    const hint = describeBindingHint(tool, parameter, bindings);
    if (parameter.required) {
      refused = true;
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_PARAMETER_TYPE',
          `${label}. The parameter is mandatory and no credentials: entry binds it, so the tool could never be called.`,
          where,
          hint,
        ),
      );
    } else if (parameter.requiredIn !== undefined && parameter.requiredIn.length > 0) {
      // As the reader drops a set needing any other unrepresentable parameter
      // (convert-parameters.ts): the set stays, requiring what no call can give, so it is never
      // bound (and a default set among them still takes the calls that fit it).
      const needing = new Set(parameter.requiredIn);
      sets = sets?.map((set) =>
        needing.has(set.name) && !set.required.includes(parameter.name)
          ? { ...set, required: [...set.required, parameter.name] }
          : set,
      );
      const remaining = (tool.parameterSets ?? []).filter((set) => !needing.has(set.name));
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_PARAMETER_TYPE',
          `${label}. It is left out of the tool's input schema.`,
          where,
          hint,
        ),
        ...parameter.requiredIn.map((name) =>
          createDiagnostic(
            'warning',
            'W_PARAMETER_SET_DROPPED',
            `The parameter set ${name} of ${describeCommand(tool)} needs $${parameter.name} ([${parameter.type}]), which no JSON value can stand for and no credentials: entry binds: the tool is served without that set (${remaining.map((set) => set.name).join(', ')} remain).`,
            where,
            hint,
          ),
        ),
      );
    } else {
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_PARAMETER_TYPE',
          `${label}. It is left out of the tool's input schema.`,
          where,
          hint,
        ),
      );
    }
  }
  if (refused) return { diagnostics };
  const unbound = new Set(
    (tool.credentialParameters ?? [])
      .filter((parameter) => !credentials.some((bound) => bound.parameter === parameter.name))
      .map((parameter) => parameter.name),
  );
  // Each set may need another unbound credential: then none is left to call.
  if (sets !== undefined && sets.every((set) => set.required.some((name) => unbound.has(name)))) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_PARAMETER_TYPE',
        `Every parameter set of ${describeCommand(tool)} needs a credential parameter (${[...unbound].map((name) => `$${name}`).join(', ')}) that no credentials: entry binds, so the tool could never be called.`,
        {
          path: tool.source.path,
          ...(tool.source.line === undefined ? {} : { line: tool.source.line }),
        },
        'Bind them in toolpack.yaml credentials: (docs/powershell-scripts.md#credentials).',
      ),
    );
    return { diagnostics };
  }
  // The server passes a bound credential only when the call's set takes it, and a credential
  // passed moves PowerShell off a default set that does not take it. So a default set that
  // needs an unbound credential (never bound itself) does not take the calls that fit it
  // while another set's credential is bound: ByToken is chosen, not a ByCredential no one fills.
  const defaultSet = sets?.find((set) => set.isDefault);
  if (
    sets !== undefined &&
    defaultSet !== undefined &&
    defaultSet.required.some((name) => unbound.has(name)) &&
    credentials.some((bound) => bound.sets?.some((name) => name !== defaultSet.name) === true)
  )
    sets = sets.map((set) => (set.isDefault ? { ...set, isDefault: false } : set));
  const next: DiscoveredTool = { ...tool };
  if (sets !== undefined && sets !== tool.parameterSets) {
    const { oneOf: _branches, ...schema } = tool.inputSchema;
    next.parameterSets = sets;
    next.inputSchema = addParameterSetBranches(schema as DiscoveredTool['inputSchema'], sets);
  }
  if (credentials.length > 0 && next.invocation.runner === 'pwsh') {
    if (next.invocation.mode === 'script' || next.invocation.mode === 'module')
      next.invocation = { ...next.invocation, credentials };
  }
  return { tool: next, diagnostics };
}

/** The first entry naming the tool and the parameter; a `[pscredential]` needs a user name. */
function findBinding(
  tool: DiscoveredTool,
  parameter: CredentialParameter,
  bindings: readonly CredentialBinding[],
): CredentialBinding | undefined {
  return bindings.find(
    (binding) =>
      namesTool(binding, tool) &&
      namesParameter(binding, parameter) &&
      (parameter.type === 'securestring' || binding.username !== undefined),
  );
}

function namesTool(binding: CredentialBinding, tool: DiscoveredTool): boolean {
  return (
    binding.tools === undefined ||
    matchesAnyWildcard(tool.name, binding.tools) ||
    matchesAnyWildcard(tool.originalName, binding.tools)
  );
}

function namesParameter(binding: CredentialBinding, parameter: CredentialParameter): boolean {
  return binding.parameters === undefined || matchesAnyWildcard(parameter.name, binding.parameters);
}

function describeCommand(tool: DiscoveredTool): string {
  return tool.source.kind === 'script'
    ? `the script ${path.basename(tool.source.path)}`
    : `the function ${tool.originalName}`;
}

function describeBindingHint(
  tool: DiscoveredTool,
  parameter: CredentialParameter,
  bindings: readonly CredentialBinding[],
): string {
  const nameless = bindings.find(
    (binding) =>
      parameter.type === 'pscredential' &&
      binding.username === undefined &&
      namesTool(binding, tool) &&
      namesParameter(binding, parameter),
  );
  if (nameless !== undefined)
    return `The credentials: entry at ${nameless.origin ?? 'toolpack.yaml'} names it but has no username:, which a [pscredential] needs: add username: { env: VARIABLE } (or a plain name).`;
  const secrets =
    parameter.type === 'pscredential'
      ? 'username: { env: USER_VARIABLE }, password: { env: PASSWORD_VARIABLE }'
      : 'password: { env: SECRET_VARIABLE }';
  return `Have the server bind it from a secret, never the model: credentials: [{ parameters: [${parameter.name}], tools: ['${tool.originalName}'], ${secrets} }] in toolpack.yaml (${CREDENTIALS_DOC}).`;
}

/**
 * `credentials:` entries that bound no parameter of any tool the sources gave (a misspelt
 * parameter or tool name, or a script that changed): said once per entry, at its line.
 */
export function findUnusedCredentialBindings(
  sources: readonly { credentials?: readonly CredentialBinding[] }[],
  results: readonly SourceResult[],
  cwd: string,
): Diagnostic[] {
  const used = new Set<string>();
  for (const result of results)
    for (const tool of result.tools)
      if (tool.invocation.runner === 'pwsh' && tool.invocation.mode !== 'tool-folder')
        for (const credential of tool.invocation.credentials ?? [])
          if (credential.origin !== undefined) used.add(credential.origin);
  const reported = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const source of sources) {
    for (const binding of source.credentials ?? []) {
      const origin = binding.origin;
      if (origin === undefined || used.has(origin) || reported.has(origin)) continue;
      reported.add(origin);
      const at = /^(.*):(\d+)$/u.exec(origin);
      const names = [
        binding.parameters === undefined
          ? 'any credential parameter'
          : `parameters ${binding.parameters.join(', ')}`,
        binding.tools === undefined ? '' : ` of tools ${binding.tools.join(', ')}`,
      ].join('');
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_CREDENTIAL_UNUSED',
          `The credentials: entry at ${origin} (${names}) binds no parameter of any tool served from its sources.`,
          {
            path: path.resolve(cwd, at?.[1] ?? origin),
            ...(at?.[2] === undefined ? {} : { line: Number(at[2]) }),
          },
          'Check the parameter and tool names (wildcards, any case; the name before any prefix); a [pscredential] needs an entry with username:. Remove the entry if nothing needs it.',
        ),
      );
    }
  }
  return diagnostics;
}
