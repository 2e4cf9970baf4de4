import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_DIR } from '../start-registry.ts';
import {
  makeTempDir,
  packFixture,
  removeTempDirs,
  startTestRegistryApp,
  type TestRegistryApp,
} from '../testing/registry-fixtures.ts';

// The callbacks given to page.evaluate run in the page; these declarations only let them
// typecheck here without pulling the DOM library into the whole program.
interface PageElement {
  id: string;
  textContent: string | null;
  parentElement: PageElement | null;
  focus(): void;
}
declare const document: {
  activeElement: PageElement | null;
  querySelector(selector: string): PageElement | null;
};
declare function getComputedStyle(element: PageElement): {
  color: string;
  backgroundColor: string;
  outlineStyle: string;
  fontWeight: string;
};

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const OUTPUT = path.join(import.meta.dirname, '..', '..', 'test-output');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

const LONG_NAME = 'acme/weather-forecasts-for-every-city-and-village-in-the-world';

const OFFICIAL_PACKS = readdirSync(DEFAULT_SEED_DIR, { withFileTypes: true })
  .filter(
    (entry) =>
      entry.isDirectory() && existsSync(path.join(DEFAULT_SEED_DIR, entry.name, 'toolpack.yaml')),
  )
  .map((entry) => entry.name)
  .sort();

interface Layout {
  scrollWidth: number;
  /** Elements reaching past the viewport's edges (outside a scrolling box). */
  tooWide: string[];
  /** Boxes whose text is wider than they are and spills out. */
  overflowing: string[];
  /** Names, facts and headings broken between two letters or digits. */
  midWord: string[];
  visibleTags: string[];
  asideBelowArticle: boolean;
}

/** A PNG's width, from its IHDR chunk. */
function readPngWidth(file: string): number {
  return readFileSync(file).readUInt32BE(16);
}

/** Every tag of the listed packs, lowercased, from the JSON API. */
async function listAllTags(): Promise<string[]> {
  const response = (await (await fetch(`${app.url}/v0/packs?limit=100`)).json()) as {
    packs: { tags: string[] }[];
  };
  return [
    ...new Set(response.packs.flatMap((pack) => pack.tags.map((tag) => tag.toLowerCase()))),
  ].sort();
}

/**
 * Measures the page in the browser. A string, so it runs there as written: it needs the DOM,
 * which this program's types do not include.
 */
const MEASURE_LAYOUT = `(() => {
  const width = document.documentElement.clientWidth;
  const describe = (element) =>
    element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') +
    (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '') +
    ' "' + (element.textContent || '').trim().slice(0, 40) + '"';
  const hidden = (element) => element.closest('.skip, .visually-hidden, [hidden], details:not([open]) > :not(summary)') !== null;
  const scrolls = (element) => {
    for (let e = element.parentElement; e !== null; e = e.parentElement) {
      const overflow = getComputedStyle(e).overflowX;
      if (overflow === 'auto' || overflow === 'scroll' || overflow === 'hidden') return true;
    }
    return false;
  };
  const tooWide = [];
  const wide = new Set();
  const overflowing = [];
  for (const element of document.querySelectorAll('body *')) {
    if (hidden(element)) continue;
    const rect = element.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) continue;
    if ((rect.right > width + 1 || rect.left < -1) && !scrolls(element)) {
      // Only the outermost: its children are too wide because it is.
      wide.add(element);
      if (!wide.has(element.parentElement)) tooWide.push(describe(element));
    }
    const style = getComputedStyle(element);
    if (style.display !== 'inline' && style.overflowX === 'visible' && element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0 && !scrolls(element))
      overflowing.push(describe(element));
  }
  const midWord = [];
  const word = /[A-Za-z0-9]/;
  for (const element of document.querySelectorAll('h1, .card h3 a, dl.facts dd, .breadcrumb, .chip, .pack-facts li, th code')) {
    if (hidden(element)) continue;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let previous = null;
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent || '';
      for (let i = 0; i < text.length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (box === undefined) continue;
        if (previous !== null && box.top > previous.top + previous.height / 2 && word.test(previous.char) && word.test(text[i]))
          midWord.push(describe(element) + ' at "' + previous.char + text[i] + '"');
        previous = { top: box.top, height: box.height, char: text[i] };
      }
    }
  }
  const visibleTags = [...document.querySelectorAll('nav[aria-labelledby="tags-heading"] a.chip')]
    .filter((chip) => { const r = chip.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= width + 1; })
    .map((chip) => chip.childNodes[0].textContent.trim());
  const article = document.querySelector('.layout > article');
  const aside = document.querySelector('.layout > aside');
  const asideBelowArticle = article !== null && aside !== null && aside.getBoundingClientRect().top >= article.getBoundingClientRect().bottom - 1;
  return { scrollWidth: document.documentElement.scrollWidth, tooWide, overflowing, midWord, visibleTags, asideBelowArticle };
})()`;

let app: TestRegistryApp;
let context: BrowserContext;

async function launch(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  // A persistent context is how Playwright takes a fresh --user-data-dir of our own.
  return chromium.launchPersistentContext(await makeTempDir('toolpack-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
    ...options,
  });
}

async function openPage(
  target: BrowserContext,
  url: string,
): Promise<{ page: Page; requests: string[] }> {
  const page = await target.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  return { page, requests };
}

describe.skipIf(!hasChromium)(
  `the gallery in a real Chromium [needs ${CHROMIUM} on this machine]`,
  () => {
    beforeAll(async () => {
      mkdirSync(OUTPUT, { recursive: true });
      // The official packs, seeded as a real start seeds them, and a pack with env and history.
      app = await startTestRegistryApp({ seedDir: DEFAULT_SEED_DIR });
      await app.publish(await packFixture('weather'), app.tokens.acme);
      await app.publish(await packFixture('weather', { version: '1.1.0' }), app.tokens.acme);
      await app.publish(await packFixture('issue-search'), app.tokens.acme);
      // The longest name a pack may have, to be broken only at its separators on a phone.
      await app.publish(await packFixture('weather', { name: LONG_NAME }), app.tokens.acme);
      await fetch(`${app.url}/v0/packs/weather/versions/1.0.0/deprecate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.tokens.acme}` },
        body: JSON.stringify({ message: 'Use 1.1.0: it fixes the units.' }),
      });
      context = await launch();
    }, 60_000);

    afterAll(async () => {
      await context?.close();
      await app?.close();
      await removeTempDirs();
    });

    it('searches by the MCPTools tag chip', async () => {
      const { page, requests } = await openPage(context, `${app.url}/`);
      expect(await page.title()).toBe('Toolpack gallery');
      const firstChip = page.locator('nav[aria-labelledby="tags-heading"] a.chip').first();
      expect(await firstChip.innerText()).toMatch(/^MCPTools/);
      await firstChip.click();
      await page.waitForURL(/\?tag=MCPTools$/);
      await expect
        .poll(() => page.locator('#results-heading').innerText())
        .toBe('Packs tagged MCPTools');
      const names = await page.locator('.results h3 a').allInnerTexts();
      expect(names).toEqual(expect.arrayContaining(['git', 'http', 'files', 'sysinfo', 'weather']));
      expect(await page.locator('a.chip.selected[aria-current="true"]').innerText()).toMatch(
        /^MCPTools/,
      );
      await page.screenshot({ path: path.join(OUTPUT, 'search-mcptools.png'), fullPage: true });
      expect(requests.every((url) => url.startsWith(app.url))).toBe(true);
    });

    it('searches by words from the search box', async () => {
      const { page } = await openPage(context, `${app.url}/`);
      await page.getByLabel('Search packs').fill('git diff');
      await page.getByLabel('Search packs').press('Enter');
      await page.waitForURL(/q=git\+diff/);
      expect(await page.locator('.results h3 a').first().innerText()).toBe('git');
    });

    it('opens a pack: tools with hints and parameter tables, then copies the install command', async () => {
      const { page } = await openPage(context, `${app.url}/?q=files`);
      await page.locator('.results h3 a', { hasText: 'files' }).first().click();
      await page.waitForURL(/\/packs\/files$/);
      expect(await page.locator('h1').innerText()).toMatch(/^files\s*1\.2\.1$/);
      expect(await page.locator('#tools-heading').innerText()).toBe('Tools (3)');
      const readTool = page.locator('section.tool', {
        has: page.locator('h3', { hasText: 'files_read' }),
      });
      expect(await readTool.locator('.hint').allInnerTexts()).toEqual(['Read-only', 'Idempotent']);
      const headers = await readTool.locator('thead th').allInnerTexts();
      expect(headers).toEqual(['Parameter', 'Type', 'Required', 'Description', 'Constraints']);
      const pathRow = readTool.locator('tbody tr', {
        has: page.locator('th', { hasText: /^path$/ }),
      });
      expect(await pathRow.locator('td').allInnerTexts()).toEqual([
        'string',
        'required',
        'The file, relative to the project root.',
        expect.stringContaining('1 to 4096 characters'),
      ]);

      const copy = page.getByRole('button', { name: 'Copy', exact: true });
      expect(await copy.isVisible()).toBe(true);
      await copy.click();
      await expect
        .poll(() => page.locator('#copy-status').innerText())
        .toBe('Copied: mcp pack add files');
      const clipboard = await page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      );
      expect(clipboard).toBe('mcp pack add files');
      await page.screenshot({ path: path.join(OUTPUT, 'pack-files.png'), fullPage: true });
    });

    it("shows a tool's output properties and examples, and its output schema on demand", async () => {
      const { page } = await openPage(context, `${app.url}/packs/issue-search`);
      const tool = page.locator('section.tool', {
        has: page.locator('h3', { hasText: 'search_issues' }),
      });
      const output = tool.getByRole('table', { name: 'Output of search_issues' });
      expect(await output.locator('thead th').allInnerTexts()).toEqual([
        'Property',
        'Type',
        'Always',
        'Description',
      ]);
      expect(await output.locator('tbody th').allInnerTexts()).toEqual(['total', 'next_page']);
      const examples = tool.getByRole('list', { name: 'Examples of search_issues' });
      expect(await examples.locator('li p').allInnerTexts()).toEqual([
        'Five issues about logging in.',
      ]);
      expect(await examples.locator('pre').count()).toBe(2);
      const schema = tool.locator('details', { hasText: 'Output schema (JSON)' });
      expect(await schema.locator('pre').isVisible()).toBe(false);
      await schema.locator('summary').click();
      expect(await schema.locator('pre').innerText()).toContain('"next_page"');
      await page.screenshot({ path: path.join(OUTPUT, 'pack-issue-search.png'), fullPage: true });
    });

    it('shows what an official pack may touch, and says so when it is the least', async () => {
      const { page } = await openPage(context, `${app.url}/packs/jira`);
      const section = page.locator('section', { has: page.locator('#permissions-heading') });
      expect(await section.locator('ul.permissions li').allInnerTexts()).toEqual([
        'files: read its own folder; write nothing',
        'network: any host (says it reaches *.atlassian.net)',
        'environment: JIRA_API_TOKEN, JIRA_BASE_URL, JIRA_EMAIL',
        'programs: starts none',
      ]);
      await page.screenshot({
        path: path.join(OUTPUT, 'pack-jira-permissions.png'),
        fullPage: true,
      });
      const json = (await openPage(context, `${app.url}/packs/json`)).page;
      expect(await json.locator('.permissions-least').innerText()).toMatch(
        /^This pack declares no permissions beyond reading its own folder/,
      );
    });

    it('shows required env, versions and a deprecation banner', async () => {
      const { page } = await openPage(context, `${app.url}/packs/weather?version=1.0.0`);
      expect(await page.getByRole('note').first().innerText()).toContain(
        'Deprecated. Use 1.1.0: it fixes the units.',
      );
      expect(await page.locator('#install-command').innerText()).toBe('mcp pack add weather@1.0.0');
      expect(
        await page
          .locator('table', { hasText: 'WEATHER_API_KEY' })
          .locator('tbody td')
          .first()
          .innerText(),
      ).toBe('required');
      expect(await page.locator('.versions li').allInnerTexts()).toEqual([
        expect.stringMatching(/^1\.1\.0\s*latest/),
        expect.stringMatching(/^1\.0\.0\s*deprecated/),
      ]);
      await page.screenshot({
        path: path.join(OUTPUT, 'pack-weather-deprecated.png'),
        fullPage: true,
      });
    });

    it('is usable from the keyboard: skip link, search field, chips', async () => {
      const { page } = await openPage(context, `${app.url}/`);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        'Skip to content',
      );
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      await page.getByLabel('Search packs').focus();
      await page.keyboard.type('http');
      await page.keyboard.press('Enter');
      await page.waitForURL(/q=http/);
      const outline = await page.evaluate(async () => {
        const link = document.querySelector('.results h3 a');
        link?.focus();
        return link === null ? '' : getComputedStyle(link).outlineStyle;
      });
      expect(outline).not.toBe('none');
    });

    it('keeps text contrast at WCAG AA (4.5:1) for text, links, chips, labels and hints', async () => {
      const { page } = await openPage(context, `${app.url}/packs/files`);
      const ratios = await page.evaluate(() => {
        const parse = (color: string) => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
          const [R, G, B] = [r, g, b].map((v) => {
            const c = v / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * (R ?? 0) + 0.7152 * (G ?? 0) + 0.0722 * (B ?? 0);
        };
        const background = (element: PageElement | null): string => {
          for (let e = element; e !== null; e = e.parentElement) {
            const bg = getComputedStyle(e).backgroundColor;
            if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
          }
          return 'rgb(255, 255, 255)';
        };
        const out: Record<string, number> = {};
        for (const selector of [
          'body p',
          'a',
          '.chip',
          '.chip.quiet',
          '.muted',
          '.hint.read-only',
          '.hint.idempotent',
          'th',
          '.version',
          'code',
        ]) {
          const element = document.querySelector(selector);
          if (element === null) continue;
          const a = luminance(parse(getComputedStyle(element).color));
          const b = luminance(parse(background(element)));
          out[selector] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        }
        return out;
      });
      expect(Object.keys(ratios).length).toBeGreaterThan(6);
      for (const [selector, ratio] of Object.entries(ratios))
        expect(ratio, selector).toBeGreaterThanOrEqual(4.5);
    });

    it('loads under 100 KB of script, all from the registry itself', async () => {
      const page = await context.newPage();
      const scripts: Promise<number>[] = [];
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('response', (response) => {
        if (response.request().resourceType() === 'script')
          scripts.push(response.body().then((body) => body.length));
      });
      await page.goto(`${app.url}/packs/git`);
      await page.waitForLoadState('load');
      const scriptBytes = (await Promise.all(scripts)).reduce((a, b) => a + b, 0);
      expect(scriptBytes).toBeGreaterThan(0);
      expect(scriptBytes).toBeLessThan(100 * 1024);
      expect(requests.filter((url) => !url.startsWith(app.url))).toEqual([]);
    });

    it('works without JavaScript: tag links search, the copy button stays hidden', async () => {
      const plain = await launch({ javaScriptEnabled: false });
      try {
        const { page } = await openPage(plain, `${app.url}/`);
        await page.locator('a.chip', { hasText: 'git' }).first().click();
        await page.waitForURL(/tag=git/);
        expect(await page.locator('.results h3 a').allInnerTexts()).toEqual(['git']);
        await page.locator('.results h3 a').first().click();
        await page.waitForURL(/\/packs\/git$/);
        expect(await page.getByRole('button', { name: 'Copy', exact: true }).isVisible()).toBe(
          false,
        );
        expect(await page.locator('#install-command').innerText()).toBe('mcp pack add git');
      } finally {
        await plain.close();
      }
    });

    describe.each(VIEWPORTS)('laid out at $name width ($width x $height)', (viewport) => {
      const check = async (url: string, slug: string): Promise<{ page: Page; layout: Layout }> => {
        const page = await context.newPage();
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        await page.goto(url);
        // Hidden tags are opened first: every tag must be reachable, and then measured.
        const more = page.locator('details.more-tags > summary');
        if ((await more.count()) > 0) await more.click();
        const file = path.join(OUTPUT, `layout-${viewport.name}-${slug}.png`);
        await page.screenshot({ path: file, fullPage: true });
        const layout = (await page.evaluate(MEASURE_LAYOUT)) as Layout;
        expect(layout.tooWide, `${slug}: elements wider than the viewport`).toEqual([]);
        expect(layout.overflowing, `${slug}: text overflowing its box`).toEqual([]);
        expect(layout.midWord, `${slug}: words broken across lines`).toEqual([]);
        expect(layout.scrollWidth, `${slug}: page width`).toBeLessThanOrEqual(viewport.width);
        // The screenshot is the page as a user scrolls it: no wider than the screen.
        expect(readPngWidth(file), `${slug}: screenshot width`).toBe(viewport.width);
        return { page, layout };
      };

      it('the index: every tag reachable, the MCPTools chip quiet', async () => {
        const { page, layout } = await check(`${app.url}/`, 'index');
        const expected = await listAllTags();
        expect(
          layout.visibleTags.map((tag) => tag.toLowerCase()).sort(),
          'every tag is in view once "All tags" is open',
        ).toEqual(expected);
        const quiet = page.locator('nav[aria-labelledby="tags-heading"] a.chip.quiet');
        expect(await quiet.innerText()).toMatch(/^MCPTools/);
        const weight = await quiet.evaluate(
          (element) => getComputedStyle(element as never).fontWeight,
        );
        expect(Number(weight)).toBeLessThan(600);
        await page.close();
      });

      it('a search sorted by downloads, with its count', async () => {
        const { page } = await check(`${app.url}/?q=tools&sort=downloads`, 'search');
        expect(await page.locator('.result-count').innerText()).toMatch(/^\d+ packs?$/);
        expect(await page.locator('#sort').inputValue()).toBe('downloads');
        // Choosing another sort searches again at once, keeping the words.
        await page.locator('#sort').selectOption('name');
        await page.waitForURL(/sort=name/);
        expect(page.url()).toContain('q=tools');
        await page.close();
      });

      it('a pack with a long name, in the search results and on its page', async () => {
        await (await check(`${app.url}/?q=forecasts`, 'search-long-name')).page.close();
        const { page } = await check(`${app.url}/packs/${LONG_NAME}`, 'pack-long-name');
        expect(await page.locator('h1').innerText()).toContain(LONG_NAME);
        await page.close();
      });

      it.each(OFFICIAL_PACKS)(
        'the page of %s, with its README, licence, repository, downloads, needs and client snippets',
        async (name) => {
          const { page, layout } = await check(`${app.url}/packs/${name}`, `pack-${name}`);
          expect(await page.locator('.fact-license').innerText()).toBe('Licence MIT');
          expect(await page.locator('.fact-repository a').getAttribute('href')).toMatch(
            new RegExp(`^https://[^/]+/.*/registry/packs/${name}$`),
          );
          expect(await page.locator('.fact-downloads').innerText()).toMatch(/^[\d,]+ downloads?$/);
          expect(await page.locator('#readme-heading').isVisible()).toBe(true);
          expect(await page.locator('.readme').innerText()).toContain(name);
          expect(await page.locator('ul.requirements li').count()).toBeGreaterThan(0);
          for (const id of ['snippet-claude', 'snippet-vscode']) {
            const snippet = JSON.parse(await page.locator(`#${id}`).innerText()) as object;
            expect(JSON.stringify(snippet)).toContain(`"serve","--pack","${name}"`);
            expect(await page.locator(`button[data-copy-target="${id}"]`).isVisible()).toBe(true);
          }
          // Side by side on a desktop; the details below the article on a phone.
          expect(layout.asideBelowArticle).toBe(viewport.width < 768);
          await page.close();
        },
      );
    });

    it('copies a client configuration whole', async () => {
      const { page } = await openPage(context, `${app.url}/packs/jira`);
      await page.locator('button[data-copy-target="snippet-claude"]').click();
      await expect.poll(() => page.locator('#copy-status-claude').innerText()).toMatch(/^Copied: /);
      const clipboard = await page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      );
      expect(JSON.parse(clipboard)).toMatchObject({
        mcpServers: {
          jira: { command: 'mcp', args: ['serve', '--pack', 'jira', '--registry', app.url] },
        },
      });
    });
  },
);
