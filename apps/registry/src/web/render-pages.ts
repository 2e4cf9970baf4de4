import { describePermissions, type PackPermissions } from '@toolpack/core';
import { defaultAlias, describeInterpreters, toServedToolName } from '@toolpack/packs';
import type { PackSummary, VersionDoc } from '../documents.ts';
import {
  SEARCH_SORTS,
  type DownloadCounts,
  type SearchSort,
  type StoredPack,
  type TagCount,
} from '../storage/metadata-store.ts';
import type { ClientSnippets } from './client-snippets.ts';
import { describeInputExamples, describeInputSchema } from './describe-schema.ts';
import { markup, toHtmlString, type SafeHtml } from './html.ts';
import { renderReadme } from './render-readme.ts';

/**
 * The tag the gallery is about. Every pack carries it, so it is quiet wherever it appears (it
 * tells one pack from another no more than its name's first letter) and findable from the
 * header link and the tag list.
 */
export const FEATURED_TAG = 'MCPTools';

/** How many tags the search page shows before "All tags". */
export const VISIBLE_TAGS = 15;

const SORT_LABELS: Record<SearchSort, string> = {
  relevance: 'Relevance',
  downloads: 'Most downloaded',
  updated: 'Recently updated',
  name: 'Name',
};

/** Break opportunities after the separators of names, URLs and hashes, never inside a word. */
export function renderBreakable(text: string): SafeHtml {
  const parts = text.split(/(?<=[/.\-_@:+=])/u);
  return markup`${parts.map((part, index) => (index === 0 ? part : markup`<wbr>${part}`))}`;
}

/** Text with `code` in backticks, as the requirement lines are written. */
function renderInlineCode(text: string): SafeHtml {
  return markup`${text.split('`').map((part, index) => (index % 2 === 1 ? markup`<code>${part}</code>` : part))}`;
}

function formatCount(n: number): string {
  return new Intl.NumberFormat('en').format(n);
}

function describeDownloads(n: number): string {
  return n === 1 ? '1 download' : `${formatCount(n)} downloads`;
}

/** A tag chip; the featured tag's is quiet, and goes last among a pack's tags. */
function renderChip(
  tag: string,
  href: string,
  extra: { count?: number; selected?: boolean } = {},
): SafeHtml {
  const classes = [
    'chip',
    tag.toLowerCase() === FEATURED_TAG.toLowerCase() ? 'quiet' : '',
    extra.selected === true ? 'selected' : '',
  ]
    .filter((c) => c !== '')
    .join(' ');
  return markup`<li><a class="${classes}" href="${href}"${extra.selected === true ? markup` aria-current="true"` : ''}>${tag}${extra.count === undefined ? '' : markup`<span class="count">${extra.count}</span>`}<span class="visually-hidden">${extra.selected === true ? ' (selected: activate to remove)' : ''}</span></a></li>`;
}

function orderTags(tags: readonly string[]): string[] {
  const isFeatured = (tag: string) => tag.toLowerCase() === FEATURED_TAG.toLowerCase();
  return [...tags.filter((tag) => !isFeatured(tag)), ...tags.filter(isFeatured)];
}

interface LayoutInput {
  title: string;
  description?: string;
  main: SafeHtml;
}

export function renderLayout(input: LayoutInput): string {
  const page = markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title}</title>
<meta name="description" content="${input.description ?? 'Find MCP tool packs by words and tags, and install them with mcp pack add.'}">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/gallery.css">
<script src="/assets/gallery.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<a class="brand" href="/">Toolpack gallery</a>
<nav aria-label="Site">
<ul>
<li><a href="/?tag=${FEATURED_TAG}">${FEATURED_TAG} packs</a></li>
<li><a href="/v0/packs">JSON API</a></li>
</ul>
</nav>
</header>
<main id="main" tabindex="-1">
${input.main}
</main>
<footer>
<p>Packs turn folders of scripts, modules and workflows into MCP tools. Install one with <code>mcp pack add NAME</code>.</p>
</footer>
</body>
</html>
`;
  return toHtmlString(page);
}

export interface SearchPageInput {
  q: string;
  /** Selected tags as the user spelled them. */
  tags: string[];
  sort: SearchSort;
  packs: PackSummary[];
  /** How many packs match in all pages (absent when the query was refused). */
  total?: number;
  /** `total` was counted up to this many: equal to it reads "1,000+". */
  totalCap?: number;
  /** Where the page starts among them. */
  offset?: number;
  /** Downloads by pack name; a pack never downloaded is absent. */
  downloads?: ReadonlyMap<string, number>;
  /** Every tag of listed packs, most used first. */
  topTags: TagCount[];
  nextCursor: string | null;
  /** A problem with the query (a bad cursor), shown instead of results. */
  problem?: string;
  /** The registry is still publishing its seed packs: the results may be incomplete. */
  seeding?: boolean;
}

export function renderSearchPage(input: SearchPageInput): string {
  const selected = new Set(input.tags.map((tag) => tag.toLowerCase()));
  const chips = collectChips(input.topTags, input.tags);
  const link = (tags: readonly string[], cursor?: string) => {
    const params = new URLSearchParams();
    if (input.q !== '') params.set('q', input.q);
    for (const tag of tags) params.append('tag', tag);
    if (input.sort !== 'relevance') params.set('sort', input.sort);
    if (cursor !== undefined) params.set('cursor', cursor);
    const query = params.toString();
    return query === '' ? '/' : `/?${query}`;
  };
  const toggle = (tag: string) =>
    selected.has(tag.toLowerCase())
      ? input.tags.filter((t) => t.toLowerCase() !== tag.toLowerCase())
      : [...input.tags, tag];
  const heading = describeResults(input);
  const renderTagChip = (chip: { tag: string; count?: number }) =>
    renderChip(chip.tag, link(toggle(chip.tag)), {
      ...(chip.count === undefined ? {} : { count: chip.count }),
      selected: selected.has(chip.tag.toLowerCase()),
    });
  // A selected tag stays in view even when it is not among the most used.
  const visible = chips.filter(
    (chip, index) => index < VISIBLE_TAGS || selected.has(chip.tag.toLowerCase()),
  );
  const more = chips.filter((chip) => !visible.includes(chip));

  const main = markup`
<h1>Find tool packs</h1>
<p class="muted">Search by words (names, descriptions, tags and tool names) and narrow by tags. Every pack installs with <code>mcp pack add NAME</code>.</p>
<form class="search" role="search" action="/" method="get">
<div class="field">
<label for="q">Search packs</label>
<input id="q" name="q" type="search" value="${input.q}" placeholder="git, http, issues…" autocomplete="off">
</div>
<div class="field sort">
<label for="sort">Sort by</label>
<select id="sort" name="sort" data-submit-on-change>
${SEARCH_SORTS.map((sort) => markup`<option value="${sort}"${sort === input.sort ? markup` selected` : ''}>${SORT_LABELS[sort]}</option>`)}
</select>
</div>
${input.tags.map((tag) => markup`<input type="hidden" name="tag" value="${tag}">`)}
<button type="submit">Search</button>
</form>
<nav aria-labelledby="tags-heading">
<h2 id="tags-heading">Tags</h2>
<ul class="chips" id="tag-list">
${visible.map(renderTagChip)}
</ul>
${
  more.length === 0
    ? ''
    : markup`<details class="more-tags">
<summary>All ${chips.length} tags</summary>
<ul class="chips" aria-label="More tags">
${more.map(renderTagChip)}
</ul>
</details>`
}
</nav>
<section aria-labelledby="results-heading">
<h2 id="results-heading">${heading}</h2>
${input.total === undefined || input.packs.length === 0 ? '' : markup`<p class="muted result-count" role="status">${describeRange(input)}</p>`}
${input.problem === undefined ? '' : markup`<p class="banner warning" role="alert">${input.problem}</p>`}
${input.seeding === true ? markup`<p class="banner warning" role="status">The gallery is still loading its packs, so this list may be incomplete. Reload in a few seconds.</p>` : ''}
${
  input.packs.length === 0 && input.seeding === true
    ? ''
    : input.packs.length === 0
      ? markup`<p>No pack matches. Try fewer words${input.tags.length > 0 ? markup` or <a href="${link([])}">remove the tags</a>` : ''}.</p>`
      : markup`<ol class="results">
${input.packs.map(
  (pack) => markup`<li class="card">
<h3><a href="/packs/${pack.name}">${renderBreakable(pack.name)}</a><span class="version">${pack.version}</span></h3>
<p>${pack.description}</p>
<p class="meta">${pack.toolCount === 1 ? '1 tool' : `${pack.toolCount} tools`} · ${describeDownloads(input.downloads?.get(pack.name) ?? 0)}</p>
<ul class="chips" aria-label="Tags of ${pack.name}">
${orderTags(pack.tags).map((tag) => renderChip(tag, link([tag])))}
</ul>
</li>`,
)}
</ol>`
}
${input.nextCursor === null ? '' : markup`<nav class="pages" aria-label="Pages"><a rel="next" href="${link(input.tags, input.nextCursor)}">Next page</a></nav>`}
</section>`;
  return renderLayout({
    title:
      input.q === '' && input.tags.length === 0
        ? 'Toolpack gallery'
        : `${heading} · Toolpack gallery`,
    main,
  });
}

/** "12 packs", or "21–40 of 57 packs" past the first page. */
function describeRange(input: SearchPageInput): string {
  const total = input.total ?? input.packs.length;
  const capped = input.totalCap !== undefined && total >= input.totalCap;
  const noun = total === 1 ? 'pack' : 'packs';
  const first = (input.offset ?? 0) + 1;
  const last = (input.offset ?? 0) + input.packs.length;
  const shown = capped ? `${formatCount(total)}+` : formatCount(total);
  return first === 1 && last === total && !capped
    ? `${shown} ${noun}`
    : `${formatCount(first)}–${formatCount(last)} of ${shown} ${noun}`;
}

function describeResults(input: SearchPageInput): string {
  const parts: string[] = [];
  if (input.q !== '') parts.push(`matching “${input.q}”`);
  if (input.tags.length > 0) parts.push(`tagged ${input.tags.join(' and ')}`);
  return parts.length === 0 ? 'All packs' : `Packs ${parts.join(', ')}`;
}

/** The featured tag first, then the most used ones, then any selected tag not among them. */
function collectChips(
  topTags: readonly TagCount[],
  selected: readonly string[],
): { tag: string; count?: number }[] {
  const chips: { tag: string; count?: number }[] = [];
  const seen = new Set<string>();
  const add = (tag: string, count?: number) => {
    const key = tag.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    chips.push(count === undefined ? { tag } : { tag, count });
  };
  const featured = topTags.find((t) => t.tag.toLowerCase() === FEATURED_TAG.toLowerCase());
  add(FEATURED_TAG, featured?.count ?? 0);
  for (const { tag, count } of topTags) add(tag, count);
  for (const tag of selected) add(tag);
  return chips;
}

export interface PackPageInput {
  pack: StoredPack;
  /** The version shown. */
  doc: VersionDoc;
  latest: string | undefined;
  /** True when the URL asked for this version (the install command then pins it). */
  pinned: boolean;
  /** The pack's name in the official MCP Registry API (`/v0.1`), where its server.json is. */
  serverName: string;
  /** Set when the version is a PowerShell module, which PSResourceGet installs from the NuGet endpoint. */
  powershell?: { id: string; repositoryUrl: string };
  /** The version's README, as published. */
  readme?: string;
  /** What a machine needs to run its tools. */
  requirements: string[];
  downloads?: DownloadCounts;
  snippets: ClientSnippets;
}

const HINTS = [
  ['readOnlyHint', 'read-only', 'Read-only'],
  ['destructiveHint', 'destructive', 'Destructive'],
  ['idempotentHint', 'idempotent', 'Idempotent'],
  ['openWorldHint', 'open-world', 'Open world'],
] as const;

/** The same pack as a PowerShell module: the line PSResourceGet installs it with. */
function renderPowerShellInstall(
  powershell: NonNullable<PackPageInput['powershell']>,
  version: string | undefined,
): SafeHtml {
  const command = `Install-PSResource -Name ${powershell.id} -Repository Toolpack${version === undefined ? '' : ` -Version ${version}`}`;
  return markup`<p>It is a PowerShell module too: install it with PSResourceGet, once the gallery is registered with <code>Register-PSResourceRepository -Name Toolpack -Uri ${powershell.repositoryUrl} -Trusted</code>.</p>
<div class="install">
<code id="install-psresource">${command}</code>
<button type="button" class="secondary" data-copy-target="install-psresource" data-copy-status="copy-status-psresource" hidden>Copy</button>
<span id="copy-status-psresource" class="copy-status" role="status" aria-live="polite"></span>
</div>`;
}

export function renderPackPage(input: PackPageInput): string {
  const { pack, doc } = input;
  const alias = defaultAlias(pack.name);
  const install =
    input.pinned || input.latest === undefined
      ? `mcp pack add ${pack.name}@${doc.version}`
      : `mcp pack add ${pack.name}`;
  const versionsNewestFirst = [...pack.versions].reverse();
  const published = pack.versions.find((v) => v.doc.version === doc.version)?.publishedAt;
  const downloads = input.downloads?.total ?? 0;
  const versionDownloads = input.downloads?.versions[doc.version] ?? 0;

  const main = markup`
<nav aria-label="Breadcrumb" class="muted breadcrumb"><a href="/">All packs</a> › ${renderBreakable(pack.name)}</nav>
<div class="layout">
<article aria-labelledby="pack-title">
<h1 id="pack-title">${renderBreakable(pack.name)}<span class="version">${doc.version}</span></h1>
<p>${doc.description}</p>
<ul class="pack-facts" aria-label="About ${pack.name}">
<li class="fact-license">${doc.license === undefined ? markup`No licence given` : markup`Licence <strong>${doc.license}</strong>`}</li>
${doc.repository === undefined || !isWebUrl(doc.repository) ? '' : markup`<li class="fact-repository"><a href="${doc.repository}" rel="nofollow noopener noreferrer">Repository</a></li>`}
<li class="fact-downloads">${describeDownloads(downloads)}</li>
</ul>
<ul class="chips" aria-label="Tags">
${orderTags(doc.tags).map((tag) => renderChip(tag, `/?tag=${encodeURIComponent(tag)}`))}
</ul>
${doc.yanked === true ? markup`<div class="banner danger" role="note"><strong>Yanked.</strong> ${doc.version} was withdrawn: new installs and updates skip it, while projects whose toolpack.lock names it still install it.${input.latest === undefined ? '' : markup` Install <a href="/packs/${pack.name}">${input.latest}</a> instead.`}</div>` : ''}
${doc.deprecated === undefined ? '' : markup`<div class="banner warning" role="note"><strong>Deprecated.</strong> ${doc.deprecated}</div>`}
${!doc.yanked && input.latest !== undefined && input.latest !== doc.version ? markup`<div class="banner info" role="note">This is ${doc.version}; the latest version is <a href="/packs/${pack.name}">${input.latest}</a>.</div>` : ''}
<section aria-labelledby="install-heading">
<h2 id="install-heading">Install</h2>
<div class="install">
<code id="install-command">${install}</code>
<button type="button" class="secondary" data-copy-target="install-command" data-copy-status="copy-status" hidden>Copy</button>
<span id="copy-status" class="copy-status" role="status" aria-live="polite"></span>
</div>
<p class="muted">Its tools are served as <code>${renderBreakable(`${alias}_`)}&lt;tool&gt;</code>; choose another prefix with <code>--as</code>.</p>
${input.powershell === undefined ? '' : renderPowerShellInstall(input.powershell, input.pinned ? doc.version : undefined)}
</section>
<section aria-labelledby="requirements-heading">
<h2 id="requirements-heading">What it needs to run</h2>
<ul class="requirements">
${input.requirements.map((line) => markup`<li>${renderInlineCode(line)}</li>`)}
</ul>
</section>
<section aria-labelledby="clients-heading">
<h2 id="clients-heading">Use it from an MCP client</h2>
<p>Without a project, a client can start the pack itself with <code>mcp serve --pack</code>${doc.env.length === 0 ? '' : ' (fill in its environment)'}.</p>
${renderSnippet('claude', 'Claude Desktop', markup`<code>claude_desktop_config.json</code>`, input.snippets.claudeDesktop)}
${renderSnippet('vscode', 'VS Code', markup`<code>.vscode/mcp.json</code>`, input.snippets.vscode)}
</section>
${renderPermissions(doc.permissions, doc.interpreters)}
<section aria-labelledby="env-heading">
<h2 id="env-heading">Environment</h2>
${
  doc.env.length === 0
    ? markup`<p>This pack needs no environment variables.</p>`
    : markup`<div class="table-scroll"><table>
<caption class="visually-hidden">Environment variables of ${pack.name}</caption>
<thead><tr><th scope="col">Variable</th><th scope="col">Required</th><th scope="col">Secret</th><th scope="col">Description</th></tr></thead>
<tbody>
${doc.env.map((env) => markup`<tr><th scope="row"><code>${renderBreakable(env.name)}</code></th><td>${env.required ? 'required' : 'optional'}</td><td>${env.secret ? 'secret' : 'no'}</td><td>${env.description ?? ''}</td></tr>`)}
</tbody>
</table></div>`
}
</section>
${
  input.readme === undefined
    ? ''
    : markup`<section aria-labelledby="readme-heading" class="readme">
<h2 id="readme-heading">README</h2>
${renderReadme(input.readme)}
</section>`
}
<section aria-labelledby="tools-heading">
<h2 id="tools-heading">Tools (${doc.tools.length})</h2>
${doc.tools.map((tool, index) => renderTool(tool, index, alias))}
</section>
</article>
<aside aria-labelledby="versions-heading" class="versions">
<h2 id="versions-heading">Versions</h2>
<ol>
${versionsNewestFirst.map(({ doc: v, publishedAt }) => markup`<li>${v.version === doc.version ? markup`<strong aria-current="page">${v.version}</strong>` : markup`<a href="/packs/${pack.name}?version=${encodeURIComponent(v.version)}">${v.version}</a>`}${v.version === input.latest ? markup`<span class="label">latest</span>` : ''}${v.yanked ? markup`<span class="label yanked">yanked</span>` : ''}${v.deprecated === undefined ? '' : markup`<span class="label deprecated">deprecated</span>`}<br><span class="muted"><time datetime="${publishedAt}">${publishedAt.slice(0, 10)}</time></span></li>`)}
</ol>
<h2 id="details-heading">Details</h2>
<dl class="facts" aria-labelledby="details-heading">
<dt>Owner</dt><dd>${renderBreakable(pack.owner)}</dd>
<dt>Licence</dt><dd>${doc.license ?? 'not given'}</dd>
${doc.repository === undefined || !isWebUrl(doc.repository) ? '' : markup`<dt>Repository</dt><dd><a href="${doc.repository}" rel="nofollow noopener noreferrer">${renderBreakable(doc.repository.replace(/^https?:\/\//, ''))}</a></dd>`}
<dt>Downloads</dt><dd>${formatCount(downloads)} in all, ${formatCount(versionDownloads)} of ${doc.version}</dd>
${published === undefined ? '' : markup`<dt>Published</dt><dd>${published.slice(0, 10)}</dd>`}
<dt>Files</dt><dd>${doc.dist.fileCount}</dd>
<dt>Size</dt><dd>${formatSize(doc.dist.size)}</dd>
<dt>Tarball</dt><dd><a href="${doc.dist.tarball}">download</a></dd>
<dt>Integrity</dt><dd class="copyable"><code id="integrity" class="truncate" title="${doc.dist.integrity}">${doc.dist.integrity}</code><button type="button" class="secondary small" data-copy-target="integrity" data-copy-status="copy-status-integrity" aria-label="Copy the integrity" hidden>Copy</button><span id="copy-status-integrity" class="copy-status visually-hidden" role="status" aria-live="polite"></span></dd>
<dt>API</dt><dd><a href="/v0/packs/${pack.name}/versions/${encodeURIComponent(doc.version)}">version document</a></dd>
<dt>MCP server</dt><dd><code>${renderBreakable(input.serverName)}</code> · <a href="/v0.1/servers/${encodeURIComponent(input.serverName)}/versions/${encodeURIComponent(doc.version)}">server.json</a></dd>
</dl>
</aside>
</div>`;
  return renderLayout({
    title: `${pack.name} ${doc.version} · Toolpack gallery`,
    description: doc.description,
    main,
  });
}

/** A client configuration with its copy button, as the install line has. */
function renderSnippet(id: string, client: string, file: SafeHtml, text: string): SafeHtml {
  return markup`<h3 class="snippet-heading">${client} <span class="muted">(${file})</span></h3>
<div class="snippet">
<pre><code id="snippet-${id}">${text}</code></pre>
<button type="button" class="secondary" data-copy-target="snippet-${id}" data-copy-status="copy-status-${id}" aria-label="Copy the ${client} configuration" hidden>Copy</button>
<span id="copy-status-${id}" class="copy-status" role="status" aria-live="polite"></span>
</div>`;
}

/** A repository link is shown only when it goes to the web (documents of older registries were never checked). */
function isWebUrl(url: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * What the version's tools may touch, in the words `mcp pack add` asks with. A version
 * published before packs declared permissions has none in its stored document: saying
 * "least" for it would claim a declaration its author never made.
 */
function renderPermissions(
  permissions: PackPermissions | undefined,
  interpreters: Record<string, string[]> | undefined,
): SafeHtml {
  const interpreterLines = describeInterpreters(interpreters);
  const body =
    permissions === undefined
      ? markup`<p class="permissions-undeclared">Not declared (published before permissions existed).</p>
<p>Installed, its tools get the least: its own folder and its environment variables, no project files, no network. Where they need more, install a version that declares it.</p>`
      : isLeast(permissions)
        ? markup`<p class="permissions-least">This pack declares no permissions beyond reading its own folder: no project files, no network, no environment variables, no other programs.</p>`
        : markup`<ul class="permissions">${describePermissions(permissions).map((line) => markup`<li>${line}</li>`)}</ul>`;
  return markup`<section aria-labelledby="permissions-heading">
<h2 id="permissions-heading">Permissions</h2>
${body}
${
  interpreterLines.length === 0
    ? ''
    : markup`<p>Its tools run with interpreters of its own (inside its sandbox, for its tools only):</p>
<ul class="interpreters">${interpreterLines.map((line) => markup`<li><code>${line.replace(/^interpreter: /u, '')}</code></li>`)}</ul>`
}
<p class="muted"><code>mcp pack add</code> shows these and asks before installing; an update that asks for more stops until you accept it. On Linux the tools run in a sandbox that holds them to these (the hosts named and starting other programs are shown, not enforced).</p>
</section>`;
}

function isLeast({ filesystem, network, env, subprocess }: PackPermissions): boolean {
  return (
    filesystem.read.length === 0 &&
    filesystem.write.length === 0 &&
    network.access === 'none' &&
    network.hosts.length === 0 &&
    env.length === 0 &&
    !subprocess
  );
}

function renderTool(tool: VersionDoc['tools'][number], index: number, alias: string): SafeHtml {
  const id = `tool-${index}`;
  const { parameters, closed } = describeInputSchema(tool.inputSchema);
  const examples = describeInputExamples(tool.inputExamples);
  const annotations = (tool.annotations ?? {}) as Record<string, unknown>;
  const hints = HINTS.filter(([key]) => annotations[key] === true);
  const served = toServedToolName(alias, tool.name);
  return markup`<section class="tool" aria-labelledby="${id}">
<h3 id="${id}"><code>${renderBreakable(tool.name)}</code></h3>
${served === tool.name ? '' : markup`<p class="served">Served as <code>${renderBreakable(served)}</code></p>`}
<p>${tool.description}</p>
${hints.length === 0 ? '' : markup`<ul class="hints" aria-label="Hints">${hints.map(([, cls, label]) => markup`<li class="hint ${cls}">${label}</li>`)}</ul>`}
${
  parameters.length === 0
    ? markup`<p class="muted">No parameters.</p>`
    : markup`<div class="table-scroll"><table>
<caption class="visually-hidden">Parameters of ${tool.name}</caption>
<thead><tr><th scope="col">Parameter</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th><th scope="col">Constraints</th></tr></thead>
<tbody>
${parameters.map((p) => markup`<tr><th scope="row"><code>${p.name}</code></th><td>${p.type}</td><td>${p.required ? 'required' : 'optional'}</td><td>${p.description}</td><td>${p.constraints.length === 0 ? '' : markup`<ul>${p.constraints.map((c) => markup`<li>${c}</li>`)}</ul>`}</td></tr>`)}
</tbody>
</table></div>`
}
${closed || parameters.length === 0 ? '' : markup`<p class="muted">Other parameters are accepted too.</p>`}
<details>
<summary>Input schema (JSON)</summary>
<pre><code>${JSON.stringify(tool.inputSchema, null, 2)}</code></pre>
</details>
${tool.outputSchema === undefined ? '' : renderOutput(tool.name, tool.outputSchema)}
${
  examples.length === 0
    ? ''
    : markup`<h4>Examples</h4>
<ul class="examples" aria-label="Examples of ${tool.name}">
${examples.map((e) => markup`<li>${e.description === '' ? '' : markup`<p>${e.description}</p>`}<pre><code>${e.arguments}</code></pre></li>`)}
</ul>`
}
</section>`;
}

/** What a tool's results hold: a row per output property, and the schema itself. */
function renderOutput(toolName: string, outputSchema: unknown): SafeHtml {
  const { parameters: properties } = describeInputSchema(outputSchema);
  return markup`<h4>Output</h4>
${
  properties.length === 0
    ? markup`<p class="muted">A JSON object; its properties are not described.</p>`
    : markup`<div class="table-scroll"><table>
<caption class="visually-hidden">Output of ${toolName}</caption>
<thead><tr><th scope="col">Property</th><th scope="col">Type</th><th scope="col">Always</th><th scope="col">Description</th></tr></thead>
<tbody>
${properties.map((p) => markup`<tr><th scope="row"><code>${p.name}</code></th><td>${p.type}</td><td>${p.required ? 'yes' : 'optional'}</td><td>${p.description}</td></tr>`)}
</tbody>
</table></div>`
}
<details>
<summary>Output schema (JSON)</summary>
<pre><code>${JSON.stringify(outputSchema, null, 2)}</code></pre>
</details>`;
}

export function renderNotFoundPage(message: string): string {
  return renderLayout({
    title: 'Not found · Toolpack gallery',
    main: markup`<h1>Not found</h1><p>${message}</p><p><a href="/">Search all packs</a></p>`,
  });
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
