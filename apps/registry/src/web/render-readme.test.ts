import { readFileSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { toHtmlString } from './html.ts';
import { README_MAX_CHARS, isSafeReadmeLink, renderReadme } from './render-readme.ts';

const HOSTILE = readFileSync(
  path.join(import.meta.dirname, 'fixtures', 'packs', 'readme-attack', 'README.md'),
  'utf8',
);

const render = (source: string) => toHtmlString(renderReadme(source));

/** Every tag name the markup opens, and every attribute name it gives. */
function listMarkup(html: string): { tags: Set<string>; attributes: Set<string> } {
  const tags = new Set<string>();
  const attributes = new Set<string>();
  for (const [, name, rest] of html.matchAll(/<([a-z][a-z0-9]*)([^>]*)>/gi)) {
    tags.add(String(name).toLowerCase());
    for (const [, attribute] of String(rest).matchAll(/\s([a-z-]+)=/gi))
      attributes.add(String(attribute).toLowerCase());
  }
  return { tags, attributes };
}

describe('renderReadme', () => {
  it('renders a hostile README as text and safe links only', () => {
    const html = render(HOSTILE);
    const { tags, attributes } = listMarkup(html);
    expect([...tags].sort()).toEqual([
      'a',
      'code',
      'div',
      'h3',
      'p',
      'pre',
      'table',
      'tbody',
      'td',
      'th',
      'thead',
      'tr',
    ]);
    expect([...attributes].sort()).toEqual(['class', 'href', 'rel', 'title']);
    expect(html).toContain('<div class="table-scroll"><table>');
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual(['https://example.com/tracker.png', 'https://example.com/docs']);
    expect(html).toContain("&lt;script&gt;alert('script-tag')&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert('onerror')&quot;&gt;");
    expect(html).toContain("[a javascript link](javascript:alert('md-link'))");
    expect(html).toContain('[a data link](data:text/html;base64,');
    expect(html).toContain('![a data image](data:image/png;base64,iVBORw0KGgo=)');
    expect(html).toContain(
      '<a href="https://example.com/tracker.png" rel="nofollow noopener noreferrer">Image: an image</a>',
    );
    expect(html).toContain(
      '<a href="https://example.com/docs" title="the docs" rel="nofollow noopener noreferrer">good link</a>',
    );
    // Headings sit below the page's own h1 and h2.
    expect(html).toContain('<h3>Readme attack</h3>');
  });

  it('is what stands between a README and the page: markdown-it as configured by default passes the attacks through', () => {
    const permissive = new MarkdownIt({ html: true });
    const html = permissive.render(HOSTILE);
    expect(html).toContain("<script>alert('script-tag')</script>");
    expect(html).toContain('onerror="alert(\'onerror\')"');
    expect(html).toContain('<style>');
    expect(html).toContain('<img src="data:image/png;base64,iVBORw0KGgo="');
    expect(html).toContain('style="text-align:right"');
  });

  it('accepts http(s), mail and in-page links only', () => {
    for (const url of [
      'https://example.com/a',
      'http://example.com',
      'mailto:me@example.com',
      '#usage',
    ])
      expect(isSafeReadmeLink(url), url).toBe(true);
    for (const url of [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      'file:///etc/passwd',
      '//evil.example/x',
      'docs/usage.md',
      '#a" onmouseover="x',
    ])
      expect(isSafeReadmeLink(url), url).toBe(false);
  });

  it('cuts a huge README, and renders pathological nesting quickly', () => {
    const huge = `${'word '.repeat(40_000)}`;
    const cut = render(huge);
    expect(cut).toContain('The README is longer than 64 KB');
    expect(cut.length).toBeLessThan(README_MAX_CHARS + 1000);
    const nested = `${'> '.repeat(5000)}deep\n\n${'['.repeat(20_000)}x${'](a)'.repeat(1)}\n\n${'*a '.repeat(20_000)}`;
    const started = performance.now();
    const html = render(nested);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(html).not.toContain('<script');
  });
});
