import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  packFixture,
  packFolder,
  removeTempDirs,
  startTestRegistryApp,
  type TestRegistryApp,
} from '../testing/registry-fixtures.ts';
import { GALLERY_ASSETS } from './assets.ts';
import { renderSearchPage } from './render-pages.ts';

const README_ATTACK = path.join(import.meta.dirname, 'fixtures', 'packs', 'readme-attack');
const GREETINGS = path.join(import.meta.dirname, '..', 'nuget', 'fixtures', 'packs', 'greetings');

let app: TestRegistryApp;
const page = async (path: string) => {
  const response = await fetch(`${app.url}${path}`);
  return { status: response.status, headers: response.headers, html: await response.text() };
};

beforeAll(async () => {
  app = await startTestRegistryApp();
  for (const [fixture, options] of [
    ['weather', {}],
    ['weather', { version: '1.1.0' }],
    ['notes', {}],
    ['xss', {}],
    ['issue-search', {}],
  ] as const) {
    expect((await app.publish(await packFixture(fixture, options), app.tokens.acme)).status).toBe(
      201,
    );
  }
  expect((await app.publish(await packFolder(README_ATTACK), app.tokens.acme)).status).toBe(201);
  expect((await app.publish(await packFolder(GREETINGS), app.tokens.acme)).status).toBe(201);
  await fetch(`${app.url}/v0/packs/weather/versions/1.0.0/deprecate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.tokens.acme}` },
    body: JSON.stringify({ message: 'Use 1.1.0: it fixes the units.' }),
  });
});

afterAll(async () => {
  await app?.close();
  await removeTempDirs();
});

/** Every URL a page loads or links to. */
function findUrls(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src|action)="([^"]*)"/g)].map((m) => m[1] ?? '');
}

/** The text of the element with this id (tags dropped, entities of JSON decoded). */
function textOf(html: string, id: string): string {
  const match = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</code>`).exec(html);
  return (match?.[1] ?? '')
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('search page', () => {
  it('searches by words and tags, with MCPTools the first chip', async () => {
    const { status, headers, html } = await page('/?q=forecast&tag=MCPTools');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain(
      '<h2 id="results-heading">Packs matching “forecast”, tagged MCPTools</h2>',
    );
    expect(html).toContain('<a href="/packs/weather">weather</a>');
    expect(html).not.toContain('<a href="/packs/acme/notes">');
    const chips = [...html.matchAll(/<a class="(chip[^"]*)" href="([^"]*)"/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(chips[0]).toEqual(['chip quiet selected', '/?q=forecast']);
    expect(html).toMatch(/<input id="q" name="q" type="search" value="forecast"/);
    expect(html).toContain('<label for="q">Search packs</label>');
  });

  it('counts the results and sorts them by downloads, latest publish or name', async () => {
    const all = await page('/?sort=name');
    expect(all.html).toMatch(/<p class="muted result-count" role="status">\d+ packs<\/p>/);
    const names = (html: string) =>
      [...html.matchAll(/<h3><a href="\/packs\/([^"]+)">/g)].map((m) => m[1]);
    expect(names(all.html)).toEqual([...names(all.html)].sort());
    expect(all.html).toContain('<option value="name" selected>Name</option>');
    await fetch(
      `${app.url}${findUrls((await page('/packs/acme/notes?version=1.0.0')).html).find((url) => url.endsWith('.tgz'))}`,
    ).then((r) => r.arrayBuffer());
    const byDownloads = await page('/?sort=downloads&q=notes');
    expect(names(byDownloads.html)[0]).toBe('acme/notes');
    expect(byDownloads.html).toMatch(/1 tool · 1 download</);
    const updated = await page('/?sort=updated');
    expect(names(updated.html)[0]).toBe('greetings');
    // A tag link keeps the sort.
    expect(updated.html).toContain('href="/?tag=notes&amp;sort=updated"');
    expect((await page('/?sort=stars')).status).toBe(400);
  });

  it('reaches every tag: the most used in view, the rest under "All tags"', () => {
    const topTags = Array.from({ length: 19 }, (_, i) => ({ tag: `tag-${i}`, count: 19 - i }));
    const html = renderSearchPage({
      q: '',
      tags: ['tag-18'],
      sort: 'relevance',
      packs: [],
      topTags,
      nextCursor: null,
    });
    for (const { tag } of topTags)
      expect(html, tag).toMatch(new RegExp(`<a class="chip[^"]*" href="[^"]*"[^>]*>${tag}<`));
    expect(html).toContain('<summary>All 20 tags</summary>');
    // The selected tag stays in view although it is among the least used.
    const inView = html.slice(html.indexOf('id="tag-list"'), html.indexOf('<details'));
    expect(inView).toContain('>tag-18<');
    expect(inView).not.toContain('>tag-17<');
  });

  it('counts results up to its cap, then says so with a +', () => {
    const packs = Array.from({ length: 20 }, (_, i) => ({
      name: `pack-${i}`,
      version: '1.0.0',
      description: 'A pack.',
      tags: ['MCPTools'],
      toolCount: 1,
    }));
    const count = (total: number, offset = 0) =>
      /<p class="muted result-count" role="status">([^<]*)<\/p>/.exec(
        renderSearchPage({
          q: '',
          tags: [],
          sort: 'relevance',
          packs,
          total,
          totalCap: 1000,
          offset,
          topTags: [],
          nextCursor: null,
        }),
      )?.[1];
    expect(count(1000)).toBe('1–20 of 1,000+ packs');
    expect(count(57, 20)).toBe('21–40 of 57 packs');
    expect(count(20)).toBe('20 packs');
  });

  it('says so when nothing matches, and offers to drop the tags', async () => {
    const { html } = await page('/?q=zzzz&tag=weather');
    expect(html).toContain('No pack matches.');
    expect(html).toContain('<a href="/?q=zzzz">remove the tags</a>');
  });

  it('answers 400 with the page for a bad cursor', async () => {
    const { status, html } = await page('/?cursor=nope');
    expect(status).toBe(400);
    expect(html).toContain('role="alert"');
  });
});

describe('pack page', () => {
  it('shows the install command, env, every tool with hints and a parameter table', async () => {
    const { status, html } = await page('/packs/weather');
    expect(status).toBe(200);
    expect(html).toContain('<code id="install-command">mcp pack add weather</code>');
    expect(html).toContain(
      '<th scope="row"><code>WEATHER_<wbr>API_<wbr>KEY</code></th><td>required</td><td>secret</td>',
    );
    expect(html).toContain('<h2 id="tools-heading">Tools (2)</h2>');
    expect(html).toContain(
      '<tr><th scope="row"><code>units</code></th><td>string</td><td>optional</td><td>Metric or imperial units.</td><td><ul><li>one of: metric, imperial</li></ul></td></tr>',
    );
    expect(html).toContain(
      '<tr><th scope="row"><code>days</code></th><td>integer</td><td>optional</td><td>How many days ahead.</td><td><ul><li>default: 3</li></ul></td></tr>',
    );
    expect(html).toContain(
      '<li><strong aria-current="page">1.1.0</strong><span class="label">latest</span>',
    );
    expect(html).toContain(
      '<a href="/packs/weather?version=1.0.0">1.0.0</a><span class="label deprecated">deprecated</span>',
    );
    expect(html).not.toContain('class="banner');
  });

  it('shows a deprecation banner and pins the install command on an older version', async () => {
    const { html } = await page('/packs/weather?version=1.0.0');
    expect(html).toContain(
      '<div class="banner warning" role="note"><strong>Deprecated.</strong> Use 1.1.0: it fixes the units.</div>',
    );
    expect(html).toContain('<code id="install-command">mcp pack add weather@1.0.0</code>');
    expect(html).toContain('the latest version is <a href="/packs/weather">1.1.0</a>');
  });

  it("names the pack's MCP server and links its server.json, which the registry serves", async () => {
    const { html } = await page('/packs/acme/notes?version=1.0.0');
    expect(html).toContain(
      '<dt>MCP server</dt><dd><code>dev.<wbr>toolpack.<wbr>acme/<wbr>notes</code>',
    );
    const link = findUrls(html).find((url) => url.startsWith('/v0.1/'));
    expect(link).toBe('/v0.1/servers/dev.toolpack.acme%2Fnotes/versions/1.0.0');
    const response = await fetch(`${app.url}${link}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { server: { name: string; version: string } };
    expect(body.server).toMatchObject({ name: 'dev.toolpack.acme/notes', version: '1.0.0' });
  });

  it('shows a yank banner', async () => {
    await app.publish(await packFixture('notes', { version: '1.1.0' }), app.tokens.acme);
    await fetch(`${app.url}/v0/packs/acme/notes/versions/1.1.0/yank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.tokens.acme}` },
    });
    const { html } = await page('/packs/acme/notes?version=1.1.0');
    expect(html).toMatch(
      /<div class="banner danger" role="note"><strong>Yanked\.<\/strong> 1\.1\.0 was withdrawn/,
    );
    expect(html).toContain('Install <a href="/packs/acme/notes">1.0.0</a> instead.');
  });

  it("shows each tool's output properties and its examples", async () => {
    const { html } = await page('/packs/issue-search');
    expect(html).toContain('<h4>Output</h4>');
    expect(html).toContain(
      '<tr><th scope="row"><code>total</code></th><td>integer</td><td>yes</td><td>How many issues match.</td></tr>',
    );
    expect(html).toContain(
      '<tr><th scope="row"><code>next_page</code></th><td>string</td><td>optional</td><td>Cursor of the next page.</td></tr>',
    );
    expect(html).toContain('<summary>Output schema (JSON)</summary>');
    expect(html).toContain('<ul class="examples" aria-label="Examples of search_issues">');
    expect(html).toContain(
      '<li><p>Five issues about logging in.</p><pre><code>{\n  &quot;query&quot;: &quot;login&quot;,\n  &quot;limit&quot;: 5\n}</code></pre></li>',
    );
    expect(html).toContain(
      '<li><pre><code>{\n  &quot;query&quot;: &quot;crash&quot;\n}</code></pre></li>',
    );
  });

  it('shows no output or examples section for a tool without them', async () => {
    const { html } = await page('/packs/weather');
    expect(html).not.toContain('<h4>Output</h4>');
    expect(html).not.toContain('class="examples"');
  });

  it('escapes everything a pack says about itself', async () => {
    const { html } = await page('/packs/xss');
    expect(html).not.toMatch(/<script>alert|<img src=x|<a href=javascript/);
    expect(html).toContain(
      '&lt;script&gt;alert(&#39;description&#39;)&lt;/script&gt; &amp; friends',
    );
    expect(html).toContain('&lt;img src=x onerror=alert(&#39;tool&#39;)&gt;');
    expect(html).toContain('&lt;script&gt;alert(&#39;output&#39;)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(&#39;example-description&#39;)&gt;');
    expect(html).toContain('alert(&#39;input-example&#39;)');
    expect(html).toContain('&lt;a href=javascript:alert(&#39;param&#39;)&gt;click&lt;/a&gt;');
    const search = await page('/?q=%3Cscript%3Ealert(1)%3C/script%3E');
    expect(search.html).not.toContain('<script>alert(1)');
  });

  it('lists what the tools may touch, in the words mcp pack add asks with', async () => {
    const { html } = await page('/packs/weather');
    expect(html).toContain('<h2 id="permissions-heading">Permissions</h2>');
    expect(html).toContain(
      '<ul class="permissions"><li>files: read its own folder; write nothing</li><li>network: none</li><li>environment: WEATHER_API_KEY</li><li>programs: starts none</li></ul>',
    );
  });

  it('says plainly when a pack declares the least', async () => {
    const { html } = await page('/packs/acme/notes?version=1.0.0');
    expect(html).toContain(
      '<p class="permissions-least">This pack declares no permissions beyond reading its own folder',
    );
    expect(html).not.toContain('<ul class="permissions">');
  });

  it('does not pass a version published before permissions existed off as declaring the least', async () => {
    // What a registry holds for versions published before manifests had permissions:
    // the same document, without the field.
    const stored = await app.registry.store.getVersion('acme/notes', '1.0.0');
    const { permissions, ...before } = stored!.doc;
    expect(permissions).toBeDefined();
    await app.registry.store.addVersion({
      owner: 'acme',
      doc: { ...before, name: 'acme/legacy', version: '0.9.0' },
      blobKey: stored!.blobKey,
      publishedAt: stored!.publishedAt,
      publishedBy: 'seed',
    });
    const { html } = await page('/packs/acme/legacy');
    expect(html).toContain(
      '<p class="permissions-undeclared">Not declared (published before permissions existed).</p>',
    );
    expect(html).toContain('Installed, its tools get the least');
    expect(html).not.toContain('permissions-least');
    const api = await fetch(`${app.url}/v0/packs/acme/legacy/versions/0.9.0`);
    expect(await api.json()).not.toHaveProperty('permissions');
  });

  it("shows a pack's own interpreters beside its permissions, each command whole", async () => {
    const stored = await app.registry.store.getVersion('acme/notes', '1.0.0');
    const argv = ['/bin/sh', '-c', 'cat "$0/.ssh/id_rsa"', '/home/me'];
    await app.registry.store.addVersion({
      owner: 'acme',
      doc: { ...stored!.doc, name: 'acme/shell', version: '1.0.0', interpreters: { '.x': argv } },
      blobKey: stored!.blobKey,
      publishedAt: stored!.publishedAt,
      publishedBy: 'seed',
    });
    const { html } = await page('/packs/acme/shell');
    expect(html).toContain('Its tools run with interpreters of its own');
    expect(html).toContain(
      '<ul class="interpreters"><li><code>runs its .x tools with [&quot;/bin/sh&quot;,&quot;-c&quot;,&quot;cat \\&quot;$0/.ssh/id_rsa\\&quot;&quot;,&quot;/home/me&quot;]</code></li></ul>',
    );
    expect((await page('/packs/acme/notes?version=1.0.0')).html).not.toContain('interpreters');
  });

  it("renders the pack's README safely, with its licence and repository", async () => {
    const { html } = await page('/packs/acme/readme-attack');
    expect(html).toContain('<h2 id="readme-heading">README</h2>');
    expect(html).toContain('<h3>Readme attack</h3>');
    expect(html).not.toMatch(
      /<script>alert|<img |onerror="|href="javascript|href="data:(?!,")|<style>/,
    );
    expect(html).toContain('<li class="fact-license">Licence <strong>Apache-2.0</strong></li>');
    expect(html).toContain(
      '<li class="fact-repository"><a href="https://example.com/acme/readme-attack" rel="nofollow noopener noreferrer">Repository</a></li>',
    );
    expect(html).toContain('<dt>Licence</dt><dd>Apache-2.0</dd>');
    const weather = await page('/packs/weather');
    expect(weather.html).toContain('<li class="fact-license">No licence given</li>');
    expect(weather.html).not.toContain('readme-heading');
  });

  it('counts downloads of the tarball (GET, not HEAD) and of the .nupkg, and shows them', async () => {
    const before = await page('/packs/greetings');
    expect(before.html).toContain('<li class="fact-downloads">0 downloads</li>');
    const tarball = findUrls(before.html).find((url) => url.endsWith('.tgz'));
    await fetch(`${app.url}${tarball}`, { method: 'HEAD' });
    await (await fetch(`${app.url}${tarball}`)).arrayBuffer();
    const nupkg = await fetch(
      `${app.url}/nuget/v3/flatcontainer/greetings/1.0.0/greetings.1.0.0.nupkg`,
    );
    expect(nupkg.status).toBe(200);
    await nupkg.arrayBuffer();
    await expect
      .poll(async () => (await page('/packs/greetings')).html)
      .toContain('<li class="fact-downloads">2 downloads</li>');
    expect((await page('/packs/greetings')).html).toContain(
      '<dt>Downloads</dt><dd>2 in all, 2 of 1.0.0</dd>',
    );
  });

  it('says what a pack needs to run, from its tools and permissions', async () => {
    const requirements = (html: string) =>
      [
        ...(/<ul class="requirements">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '').matchAll(
          /<li>(.*?)<\/li>/g,
        ),
      ].map((m) => m[1]);
    expect(requirements((await page('/packs/weather')).html)).toEqual([
      '<code>bash</code> on PATH, for its .sh tools.',
      expect.stringMatching(/^On Linux, bubblewrap \(<code>bwrap<\/code>\)/),
    ]);
    expect(requirements((await page('/packs/greetings')).html)[0]).toBe(
      'PowerShell 7.2 or later (<code>pwsh</code> on PATH): its tools are PowerShell.',
    );
  });

  it('gives Claude Desktop and VS Code configurations for mcp serve --pack, each with a copy button', async () => {
    const { html } = await page('/packs/weather');
    const claude = JSON.parse(textOf(html, 'snippet-claude')) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    expect(claude.mcpServers.weather).toEqual({
      command: 'mcp',
      args: ['serve', '--pack', 'weather', '--registry', app.url],
      env: { WEATHER_API_KEY: '<The key of the forecast service.>' },
    });
    const vscode = JSON.parse(textOf(html, 'snippet-vscode')) as {
      inputs: { id: string; password: boolean }[];
      servers: Record<string, { type: string; env: Record<string, string> }>;
    };
    expect(vscode.inputs).toEqual([
      expect.objectContaining({ id: 'weather-weather-api-key', password: true }),
    ]);
    expect(vscode.servers.weather?.env).toEqual({
      WEATHER_API_KEY: '${input:weather-weather-api-key}',
    });
    expect(html).toContain('data-copy-target="snippet-claude"');
    expect(html).toContain('data-copy-target="snippet-vscode"');
    const pinned = JSON.parse(
      textOf((await page('/packs/weather?version=1.0.0')).html, 'snippet-claude'),
    ) as typeof claude;
    expect(pinned.mcpServers.weather?.args).toContain('weather@1.0.0');
  });

  it('shows the whole integrity, with a copy button, and breaks names only after separators', async () => {
    const { html } = await page('/packs/acme/notes?version=1.0.0');
    expect(html).toMatch(
      /<code id="integrity" class="truncate" title="sha512-[^"]+">sha512-[A-Za-z0-9+/=]{80,}<\/code>/,
    );
    expect(html).toContain('data-copy-target="integrity"');
    expect(html).toContain(
      '<dt>MCP server</dt><dd><code>dev.<wbr>toolpack.<wbr>acme/<wbr>notes</code>',
    );
  });

  it('answers 404 pages for unknown packs, versions and paths', async () => {
    expect((await page('/packs/nope')).status).toBe(404);
    expect((await page('/packs/weather?version=9.9.9')).status).toBe(404);
    expect((await page('/packs/%E0%A4%A')).status).toBe(404);
    expect((await page('/elsewhere')).status).toBe(404);
  });
});

describe('every page', () => {
  it('loads nothing from elsewhere and keeps script off the page itself', async () => {
    for (const path of [
      '/',
      '/?tag=MCPTools',
      '/packs/weather',
      '/packs/xss',
      '/packs/acme/readme-attack',
      '/packs/nope',
    ]) {
      const { headers, html } = await page(path);
      // Only a link the user follows (the repository, a README's) may leave the gallery.
      const local = html.replace(
        /<a href="https:[^"]*" (?:title="[^"]*" )?rel="nofollow noopener noreferrer">/g,
        '',
      );
      for (const url of findUrls(local))
        expect(url, `${path} links ${url}`).toMatch(/^(\/(?!\/)|#|\?|data:,$)/);
      expect(html).not.toMatch(/<script>|<style>|\sstyle="|\son[a-z]+="/);
      expect(headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    }
  });

  it('has landmarks, a skip link and a language', async () => {
    const { html } = await page('/packs/weather');
    for (const fragment of [
      '<html lang="en">',
      '<a class="skip" href="#main">',
      '<header class="site">',
      '<main id="main"',
      '<footer>',
      '<nav aria-label="Site">',
    ])
      expect(html).toContain(fragment);
  });

  it('ships a few KB of script and style, cacheable by ETag', async () => {
    const script = GALLERY_ASSETS.get('/assets/gallery.js');
    expect(Buffer.byteLength(script?.body ?? '')).toBeLessThan(4 * 1024);
    const response = await fetch(`${app.url}/assets/gallery.js`);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const again = await fetch(`${app.url}/assets/gallery.js`, {
      headers: { 'if-none-match': response.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
  });
});
