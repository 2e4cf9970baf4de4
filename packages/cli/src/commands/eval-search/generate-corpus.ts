import { buildInputSchema, type ParameterSpec, type ToolDefinition } from '@toolpack/core';
import { createSeededRandom, pickOne } from './seeded-random.ts';

// The catalogue a user ends up with after adding a dozen servers: the same verbs over many
// systems and their entities, each server in its own naming style, descriptions written from
// a few templates so that near-duplicates differ in one entity or one system.

interface System {
  id: string;
  label: string;
  /** Singular. */
  entities: string[];
  /** The parameter that scopes a call in this system (a project, a repository, a site). */
  scope: string;
}

const SYSTEMS: System[] = [
  {
    id: 'jira',
    label: 'Jira',
    entities: ['issue', 'project', 'sprint', 'board', 'worklog'],
    scope: 'project key',
  },
  {
    id: 'github',
    label: 'GitHub',
    entities: ['issue', 'pull request', 'repository', 'release', 'gist'],
    scope: 'repository',
  },
  {
    id: 'gitlab',
    label: 'GitLab',
    entities: ['merge request', 'issue', 'pipeline', 'project', 'snippet'],
    scope: 'project path',
  },
  {
    id: 'azure_devops',
    label: 'Azure DevOps',
    entities: ['work item', 'pipeline', 'repository', 'pull request', 'board'],
    scope: 'organization',
  },
  {
    id: 'slack',
    label: 'Slack',
    entities: ['message', 'channel', 'reminder', 'user group', 'bookmark'],
    scope: 'workspace',
  },
  {
    id: 'confluence',
    label: 'Confluence',
    entities: ['page', 'space', 'comment', 'attachment', 'label'],
    scope: 'space key',
  },
  {
    id: 'salesforce',
    label: 'Salesforce',
    entities: ['account', 'contact', 'lead', 'opportunity', 'case'],
    scope: 'org',
  },
  {
    id: 'zendesk',
    label: 'Zendesk',
    entities: ['ticket', 'user', 'organization', 'macro', 'article'],
    scope: 'subdomain',
  },
  {
    id: 'servicenow',
    label: 'ServiceNow',
    entities: ['incident', 'change request', 'problem', 'knowledge article', 'catalog item'],
    scope: 'instance',
  },
  {
    id: 'kubernetes',
    label: 'Kubernetes',
    entities: ['pod', 'deployment', 'service', 'config map', 'namespace'],
    scope: 'cluster context',
  },
  {
    id: 'pagerduty',
    label: 'PagerDuty',
    entities: ['incident', 'schedule', 'escalation policy', 'service', 'maintenance window'],
    scope: 'team',
  },
  {
    id: 'stripe',
    label: 'Stripe',
    entities: ['customer', 'invoice', 'subscription', 'refund', 'coupon'],
    scope: 'account',
  },
  {
    id: 'hubspot',
    label: 'HubSpot',
    entities: ['contact', 'deal', 'company', 'ticket', 'note'],
    scope: 'portal',
  },
  {
    id: 'datadog',
    label: 'Datadog',
    entities: ['monitor', 'dashboard', 'event', 'downtime', 'notebook'],
    scope: 'site',
  },
  {
    id: 'trello',
    label: 'Trello',
    entities: ['card', 'board', 'list', 'checklist', 'label'],
    scope: 'workspace',
  },
  {
    id: 'notion',
    label: 'Notion',
    entities: ['page', 'database', 'block', 'comment', 'user'],
    scope: 'workspace',
  },
  {
    id: 'gdrive',
    label: 'Google Drive',
    entities: ['file', 'folder', 'permission', 'shared drive', 'comment'],
    scope: 'drive',
  },
  {
    id: 'okta',
    label: 'Okta',
    entities: ['user', 'group', 'application', 'policy', 'device'],
    scope: 'org url',
  },
  {
    id: 'shopify',
    label: 'Shopify',
    entities: ['product', 'order', 'customer', 'collection', 'discount'],
    scope: 'shop',
  },
  {
    id: 'aws_s3',
    label: 'Amazon S3',
    entities: ['bucket', 'object', 'bucket policy', 'lifecycle rule', 'access point'],
    scope: 'region',
  },
];

interface Verb {
  id: string;
  /** The PowerShell verb and whether the noun gets a `List` suffix. */
  powershell: string;
  descriptions: string[];
  examples: string[];
  parameters: (entity: string) => string[];
}

// {e} an entity, {es} its plural, {s} the system's label.
const VERBS: Verb[] = [
  {
    id: 'create',
    powershell: 'New',
    descriptions: ['Creates a new {e} in {s}.', 'Creates a {e} in {s} and returns its id.'],
    examples: [
      'Create a {s} {e} called Quarterly plan',
      'Open a new {e} in {s} for the onboarding work',
    ],
    parameters: (e) => ['name', 'description', `${e} type`],
  },
  {
    id: 'get',
    powershell: 'Get',
    descriptions: ['Gets one {e} from {s} by its id.', 'Returns the details of a {s} {e}.'],
    examples: ['Show {s} {e} 1042', 'Fetch the {e} with id A-17 from {s}'],
    parameters: (e) => [`${e} id`],
  },
  {
    id: 'list',
    powershell: 'Get|List',
    descriptions: ['Lists the {es} in {s}, newest first.', 'Lists {s} {es} page by page.'],
    examples: ['The 20 most recent {es} in {s}', 'Every {s} {e} created this week'],
    parameters: () => ['page size', 'cursor'],
  },
  {
    id: 'update',
    powershell: 'Set',
    descriptions: [
      'Updates the fields of an existing {s} {e}.',
      'Changes the name or description of a {e} in {s}.',
    ],
    examples: ['Rename {s} {e} 1042 to Final plan', 'Change the description of a {e} in {s}'],
    parameters: (e) => [`${e} id`, 'name', 'description'],
  },
  {
    id: 'delete',
    powershell: 'Remove',
    descriptions: ['Deletes a {e} from {s} for good.', 'Removes a {s} {e}; this cannot be undone.'],
    examples: ['Delete {s} {e} 1042', 'Remove the duplicate {e} from {s}'],
    parameters: (e) => [`${e} id`, 'force'],
  },
  {
    id: 'search',
    powershell: 'Find',
    descriptions: [
      'Searches {s} {es} by text and filters.',
      'Finds {es} in {s} that match a query.',
    ],
    examples: ['{s} {es} mentioning invoices', 'Find {es} in {s} owned by Ada'],
    parameters: () => ['query', 'limit'],
  },
  {
    id: 'export',
    powershell: 'Export',
    descriptions: ['Exports {s} {es} to a CSV or JSON file.', 'Writes the {es} of {s} to a file.'],
    examples: ['Export all {s} {es} as CSV', 'Save the {es} of {s} to backup.json'],
    parameters: () => ['path', 'format'],
  },
  {
    id: 'import',
    powershell: 'Import',
    descriptions: [
      'Imports {es} into {s} from a CSV or JSON file.',
      'Reads {es} from a file and adds them to {s}.',
    ],
    examples: ['Import {s} {es} from migration.csv', 'Load the {es} exported yesterday into {s}'],
    parameters: () => ['path', 'dry run'],
  },
  {
    id: 'archive',
    powershell: 'Disable',
    descriptions: [
      'Archives a {s} {e}: hidden from lists but kept.',
      'Moves a {e} in {s} to the archive.',
    ],
    examples: ['Archive {s} {e} 1042', 'Hide the finished {e} in {s}'],
    parameters: (e) => [`${e} id`],
  },
  {
    id: 'restore',
    powershell: 'Restore',
    descriptions: ['Restores an archived {e} in {s}.', 'Brings a {s} {e} back from the archive.'],
    examples: ['Restore {s} {e} 1042', 'Bring back the archived {e} in {s}'],
    parameters: (e) => [`${e} id`],
  },
];

/** Extra instances of every system, for corpora larger than one of each tool. */
const INSTANCES = [
  'prod',
  'staging',
  'eu',
  'us',
  'dev',
  'test',
  'apac',
  'legacy',
  'sandbox',
  'partner',
  'internal',
  'archive',
];

const plural = (noun: string) => (/[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`);

type NamingStyle = 'snake' | 'camel' | 'powershell';

const words = (text: string) => text.split(/[\s_]+/).filter((w) => w !== '');
const pascal = (text: string) =>
  words(text)
    .map((w) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`)
    .join('');
const camel = (text: string) => {
  const p = pascal(text);
  return `${p[0]?.toLowerCase() ?? ''}${p.slice(1)}`;
};

function nameTool(style: NamingStyle, prefix: string, verb: Verb, singular: string): string {
  // What a list returns is plural in every style but PowerShell's, whose nouns stay singular.
  const entity = verb.id === 'list' ? plural(singular) : singular;
  if (style === 'snake') return words(`${prefix} ${verb.id} ${entity}`).join('_');
  if (style === 'camel') return camel(`${verb.id} ${prefix} ${entity}`);
  const [psVerb, suffix] = verb.powershell.split('|');
  return `${psVerb}-${pascal(`${prefix} ${singular}`)}${suffix ?? ''}`;
}

function nameParameter(style: NamingStyle, parameter: string): string {
  if (style === 'snake') return words(parameter).join('_');
  return style === 'camel' ? camel(parameter) : pascal(parameter);
}

function fill(template: string, entity: string, label: string): string {
  const text = template
    .replaceAll('{es}', plural(entity))
    .replaceAll('{e}', entity)
    .replaceAll('{s}', label)
    .replace(/\ba ([aeiou])/gi, 'an $1');
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
}

export interface GenerateCorpusOptions {
  /** How many tools; the first 1,000 are one of each (system, entity, verb). */
  size: number;
  seed: number;
}

/**
 * A deterministic catalogue of `size` tools with realistic near-duplicates: 20 systems x 5
 * entities x 10 verbs, each system named in one style (snake_case, camelCase or PowerShell
 * Verb-Noun), more instances of each system (prod, staging, eu...) beyond 1,000.
 */
export function generateCorpus(options: GenerateCorpusOptions): ToolDefinition[] {
  const random = createSeededRandom(options.seed);
  const tools: ToolDefinition[] = [];
  for (let round = 0; tools.length < options.size; round++) {
    const instance = round === 0 ? undefined : INSTANCES[(round - 1) % INSTANCES.length];
    const copy = round === 0 ? '' : ` ${Math.floor((round - 1) / INSTANCES.length) + 1}`;
    for (const system of SYSTEMS) {
      const style = pickOne<NamingStyle>(random, ['snake', 'camel', 'powershell']);
      const prefix = instance === undefined ? system.id : `${system.id} ${instance}${copy.trim()}`;
      const label = instance === undefined ? system.label : `${system.label} (${instance}${copy})`;
      for (const entity of system.entities) {
        for (const verb of VERBS) {
          if (tools.length >= options.size) return tools;
          const parameters: ParameterSpec[] = [
            {
              name: nameParameter(style, system.scope),
              type: 'string',
              description: `The ${label} ${system.scope}.`,
              required: true,
            },
            ...verb.parameters(entity).map((parameter): ParameterSpec => ({
              name: nameParameter(style, parameter),
              type:
                parameter === 'force' || parameter === 'dry run'
                  ? 'boolean'
                  : parameter === 'limit' || parameter === 'page size'
                    ? 'integer'
                    : 'string',
              description: `The ${parameter}.`,
            })),
          ];
          const exampleCount = Math.floor(random() * 3);
          tools.push({
            name: nameTool(style, prefix, verb, entity),
            description: fill(pickOne(random, verb.descriptions), entity, label),
            inputSchema: buildInputSchema(parameters),
            source: { kind: 'script', path: `generated/${system.id}` },
            ...(exampleCount === 0
              ? {}
              : {
                  inputExamples: verb.examples.slice(0, exampleCount).map((template) => ({
                    arguments: { [nameParameter(style, system.scope)]: 'demo' },
                    description: fill(template, entity, label),
                  })),
                }),
          });
        }
      }
    }
  }
  return tools;
}
