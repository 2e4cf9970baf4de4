import { createHash } from 'node:crypto';

/**
 * The gallery's only stylesheet and script, served from memory by the registry itself: no
 * CDN, no external URL, a few KB in all. Colours keep at least 4.5:1 contrast on their
 * backgrounds (WCAG AA), and every control shows a visible focus ring.
 */
const STYLESHEET = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4b5563; --line: #d1d5db; --accent: #1d4ed8; --accent-ink: #ffffff; --chip: #eef2ff; --chip-ink: #1e3a8a; --code: #f3f4f6; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: .5rem 1rem; z-index: 1; }
.skip:focus { left: 1rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.site { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
header.site .brand { font-weight: 700; font-size: 1.15rem; color: var(--ink); text-decoration: none; }
header.site nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
main { max-width: 64rem; margin: 0 auto; padding: 1.5rem; }
main:focus { outline: none; }
footer { max-width: 64rem; margin: 2rem auto; padding: 1rem 1.5rem; color: var(--muted); border-top: 1px solid var(--line); font-size: .9rem; }
h1 { font-size: 1.8rem; margin: .2rem 0 .5rem; }
h2 { font-size: 1.3rem; margin: 1.75rem 0 .5rem; }
h3 { font-size: 1.1rem; margin: 0 0 .25rem; }
form.search { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: 1rem 0; }
form.search .field { display: flex; flex-direction: column; flex: 1 1 20rem; }
form.search label { font-weight: 600; margin-bottom: .25rem; }
input[type=search] { font: inherit; padding: .55rem .7rem; border: 1px solid #6b7280; border-radius: .4rem; }
button { font: inherit; cursor: pointer; padding: .55rem 1rem; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); }
button.secondary { background: #fff; color: var(--accent); }
.chips { display: flex; flex-wrap: wrap; gap: .4rem; list-style: none; padding: 0; margin: .5rem 0; }
.chip { display: inline-block; padding: .2rem .7rem; border-radius: 999px; background: var(--chip); color: var(--chip-ink); text-decoration: none; border: 1px solid #c7d2fe; font-size: .95rem; }
.chip .count { color: var(--muted); font-size: .85em; margin-left: .25rem; }
.chip.quiet { background: #fff; color: var(--muted); border-color: var(--line); font-size: .85rem; }
.chip.selected { background: #14532d; color: #fff; border-color: #14532d; }
.chip.selected .count { color: #dcfce7; }
.chip.selected::after { content: " \\00d7" / ""; }
.results { list-style: none; padding: 0; display: grid; gap: 1rem; }
.card { border: 1px solid var(--line); border-radius: .6rem; padding: 1rem 1.2rem; }
.card p { margin: .3rem 0; }
.meta, .muted { color: var(--muted); }
.version { font-weight: 400; color: var(--muted); font-size: .9em; margin-left: .4rem; }
.install { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); border-radius: .3rem; }
code { padding: .1rem .3rem; }
.install code { padding: .55rem .8rem; font-size: 1rem; }
pre { padding: .8rem; overflow: auto; font-size: .85rem; }
pre code { padding: 0; background: none; }
.copy-status { color: #14532d; font-weight: 600; }
.banner { border-radius: .5rem; padding: .8rem 1rem; margin: 1rem 0; border: 2px solid; }
.banner.warning { background: #fff7e6; border-color: #b45309; color: #5c2c00; }
.banner.danger { background: #fdecec; border-color: #b91c1c; color: #7f1d1d; }
.banner.info { background: #eff6ff; border-color: #1d4ed8; color: #1e3a8a; }
.tool { border: 1px solid var(--line); border-radius: .6rem; padding: 1rem 1.2rem; margin: 1rem 0; }
.served { color: var(--muted); font-size: .9rem; }
.hints { display: flex; flex-wrap: wrap; gap: .4rem; list-style: none; padding: 0; margin: .5rem 0; }
.hint { font-size: .85rem; padding: .1rem .6rem; border-radius: .3rem; border: 1px solid; }
.hint.read-only { background: #ecfdf5; color: #065f46; border-color: #6ee7b7; }
.hint.destructive { background: #fef2f2; color: #991b1b; border-color: #fca5a5; }
.hint.idempotent { background: #f5f3ff; color: #5b21b6; border-color: #c4b5fd; }
.hint.open-world { background: #fffbeb; color: #92400e; border-color: #fcd34d; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .95rem; }
th, td { text-align: left; vertical-align: top; padding: .45rem .6rem; border-bottom: 1px solid var(--line); }
th { background: #f9fafb; }
td ul { margin: 0; padding-left: 1rem; }
.tool h4 { margin: 1rem 0 .3rem; font-size: 1rem; }
.examples { list-style: none; padding: 0; margin: .3rem 0; }
.examples p { margin: .4rem 0 .2rem; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 17rem; gap: 2rem; }
@media (max-width: 48rem) { .layout { grid-template-columns: minmax(0, 1fr); } }
.versions ol { list-style: none; padding: 0; margin: 0; }
.versions li { padding: .3rem 0; border-bottom: 1px solid var(--line); }
.label { font-size: .8rem; padding: 0 .4rem; border-radius: .3rem; margin-left: .3rem; background: var(--code); color: var(--ink); }
.label.yanked { background: #fdecec; color: #7f1d1d; }
.label.deprecated { background: #fff7e6; color: #5c2c00; }
dl.facts { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: 0; font-size: .9rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
nav.pages { margin: 1.5rem 0; }
h1, h3, .breadcrumb { overflow-wrap: break-word; }
select { font: inherit; padding: .5rem .6rem; border: 1px solid #6b7280; border-radius: .4rem; background: #fff; color: var(--ink); }
form.search .field.sort { flex: 0 1 12rem; }
.more-tags summary { cursor: pointer; color: var(--accent); margin: .25rem 0; }
.result-count { margin: 0 0 .5rem; }
.pack-facts { display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; list-style: none; padding: 0; margin: .5rem 0; color: var(--muted); }
.requirements li { margin: .2rem 0; }
.requirements code { white-space: nowrap; }
.snippet-heading { margin-top: 1rem; font-size: 1rem; }
.snippet { display: grid; grid-template-columns: minmax(0, 1fr); gap: .4rem; justify-items: start; }
.snippet pre { width: 100%; margin: 0; }
.install code { max-width: 100%; overflow-wrap: anywhere; }
.table-scroll { max-width: 100%; overflow-x: auto; }
.readme { border-top: 1px solid var(--line); overflow-wrap: break-word; }
.readme h3, .readme h4, .readme h5, .readme h6 { margin: 1.2rem 0 .4rem; }
.readme img { max-width: 100%; }
dl.facts dd { overflow-wrap: break-word; min-width: 0; }
dl.facts dd.copyable { display: flex; gap: .4rem; align-items: center; }
code.truncate { display: block; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
button.small { padding: .1rem .5rem; font-size: .85rem; }
@media (max-width: 30rem) { .tool .table-scroll table { min-width: 34rem; } main { padding: 1rem; } header.site { padding: .75rem 1rem; } .install code { font-size: .9rem; } }
`;

/**
 * Progressive enhancement only: the copy buttons, and sorting as soon as a sort is chosen.
 * Everything else works without script.
 */
const SCRIPT = `
(() => {
  for (const button of document.querySelectorAll('button[data-copy-target]')) button.hidden = false;
  for (const select of document.querySelectorAll('select[data-submit-on-change]'))
    select.addEventListener('change', () => select.form && select.form.submit());
  document.addEventListener('click', async (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-copy-target]') : null;
    if (!button) return;
    const source = document.getElementById(button.dataset.copyTarget);
    const status = document.getElementById(button.dataset.copyStatus);
    if (!source) return;
    const text = source.textContent.trim();
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      copied = document.execCommand && document.execCommand('copy');
    }
    if (status) status.textContent = copied ? 'Copied: ' + text : 'Press Ctrl+C (or Cmd+C) to copy the selected command.';
  });
})();
`;

export interface Asset {
  body: string;
  contentType: string;
  etag: string;
}

function createAsset(body: string, contentType: string): Asset {
  return {
    body,
    contentType,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

export const GALLERY_ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['/assets/gallery.css', createAsset(STYLESHEET.trim(), 'text/css; charset=utf-8')],
  ['/assets/gallery.js', createAsset(SCRIPT.trim(), 'text/javascript; charset=utf-8')],
]);
