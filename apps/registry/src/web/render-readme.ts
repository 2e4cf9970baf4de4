import MarkdownIt, { type MarkdownIt as MarkdownItInstance, type Token } from 'markdown-it';
import { escapeHtml, trustedHtml, type SafeHtml } from './html.ts';

/** A README longer than this is cut there (with a note): a page stays light whatever is published. */
export const README_MAX_CHARS = 64 * 1024;

/**
 * The only tokens a README may render as. Raw HTML is off in the parser, so `html_block` and
 * `html_inline` never appear; anything else a future markdown-it or plugin adds is shown as
 * its text rather than trusted.
 */
const ALLOWED_TOKENS = new Set([
  'inline',
  'text',
  'softbreak',
  'hardbreak',
  'code_inline',
  'code_block',
  'fence',
  'paragraph_open',
  'paragraph_close',
  'heading_open',
  'heading_close',
  'blockquote_open',
  'blockquote_close',
  'bullet_list_open',
  'bullet_list_close',
  'ordered_list_open',
  'ordered_list_close',
  'list_item_open',
  'list_item_close',
  'hr',
  'em_open',
  'em_close',
  'strong_open',
  'strong_close',
  's_open',
  's_close',
  'link_open',
  'link_close',
  'image',
  'table_open',
  'table_close',
  'thead_open',
  'thead_close',
  'tbody_open',
  'tbody_close',
  'tr_open',
  'tr_close',
  'th_open',
  'th_close',
  'td_open',
  'td_close',
]);

/** Attributes kept, by token type; every other attribute (a table cell's inline style) is dropped. */
const ALLOWED_ATTRIBUTES: Record<string, readonly string[]> = {
  link_open: ['href', 'title'],
  image: ['src', 'alt', 'title'],
  ordered_list_open: ['start'],
};

/**
 * Links go only to the web or to mail, or within the page. A relative link would resolve
 * against the gallery, not the pack's repository, and `javascript:`, `data:` and the like are
 * never links.
 */
export function isSafeReadmeLink(url: string): boolean {
  const trimmed = url.trim();
  if (trimmed.startsWith('#')) return !/[\s<>"']/.test(trimmed);
  if (!/^(?:https?|mailto):/i.test(trimmed)) return false;
  try {
    const parsed = new URL(trimmed);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol);
  } catch {
    return false;
  }
}

function createRenderer(): MarkdownItInstance {
  const md = new MarkdownIt('default', {
    html: false,
    linkify: true,
    typographer: false,
    // Deeply nested quotes and lists cost time and say nothing more.
    maxNesting: 20,
  });
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  md.validateLink = isSafeReadmeLink;
  const rules = md.renderer.rules;
  const renderToken = md.renderer.renderToken.bind(md.renderer);
  rules.link_open = (tokens, index, options) => {
    const token = tokens[index] as Token;
    token.attrSet('rel', 'nofollow noopener noreferrer');
    return renderToken(tokens, index, options);
  };
  // The page's CSP loads images from the gallery only, so an image is a link to it instead.
  rules.image = (tokens, index) => {
    const token = tokens[index] as Token;
    const src = token.attrGet('src') ?? '';
    const alt = token.content === '' ? 'image' : token.content;
    return `<a href="${escapeHtml(String(src))}" rel="nofollow noopener noreferrer">${escapeHtml(`Image: ${alt}`)}</a>`;
  };
  // The page has its h1 and h2: a README's headings sit below them.
  rules.heading_open = (tokens, index, options) => {
    const token = tokens[index] as Token;
    token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
    return renderToken(tokens, index, options);
  };
  rules.heading_close = rules.heading_open;
  // A wide table scrolls in its own box instead of widening the page on a phone.
  rules.table_open = (tokens, index, options) =>
    `<div class="table-scroll">${renderToken(tokens, index, options)}`;
  rules.table_close = (tokens, index, options) => `${renderToken(tokens, index, options)}</div>`;
  return md;
}

const renderer = createRenderer();

/** Keeps only allowed tokens and attributes; a token outside the list becomes its text. */
function sanitizeTokens(tokens: Token[]): void {
  for (const token of tokens) {
    if (!ALLOWED_TOKENS.has(token.type)) {
      token.type = 'text';
      token.tag = '';
      token.attrs = null;
      token.children = null;
      continue;
    }
    const allowed = ALLOWED_ATTRIBUTES[token.type] ?? [];
    token.attrs = token.attrs?.filter(([name]) => allowed.includes(name)) ?? null;
    // A fence's info string would become a class; the gallery styles no languages.
    if (token.type === 'fence') token.info = '';
    if (token.children !== null) sanitizeTokens(token.children);
  }
}

/**
 * A pack's README as markup for its gallery page: CommonMark with tables and strikethrough,
 * raw HTML shown as text, links only to http(s) and mail (marked nofollow), images as links,
 * headings moved below the page's own, at most `README_MAX_CHARS` characters.
 */
export function renderReadme(source: string): SafeHtml {
  const cut = source.length > README_MAX_CHARS;
  const text = cut ? source.slice(0, README_MAX_CHARS) : source;
  const tokens = renderer.parse(text, {});
  sanitizeTokens(tokens);
  const body = renderer.renderer.render(tokens, renderer.options, {});
  const note = cut
    ? `<p class="muted">The README is longer than ${README_MAX_CHARS / 1024} KB; the rest is in the pack's tarball.</p>`
    : '';
  return trustedHtml(body + note);
}
