/**
 * External help in MAML (what platyPS and `New-ExternalHelp` write, `<Module>-help.xml`), read
 * the way PowerShell's `MamlNode` and `MamlCommandHelpInfo` read it: a `<helpItems>` root with
 * `schema="maml"` (or a `.maml` file), one `<command:command>` per command keyed by its
 * `details/name` (case-insensitive; a later entry replaces an earlier one), element names
 * compared by local name whatever their prefix, paragraphs trimmed, the synopsis the first
 * paragraph of `details/description`. Each command becomes the `CommentHelp` shape the rest of
 * the reader already consumes, with `file` naming the XML file its lines refer to.
 */
import type { SaxesParser as SaxesParserClass } from 'saxes';
import type { CommentHelp } from './comment-help.ts';

export interface MamlHelpReading {
  /** Keyed by the command name in lower case. */
  commands: Map<string, CommentHelp>;
  /** Why PowerShell would load nothing from the file (not XML, not MAML). */
  problem?: { message: string; line?: number };
}

/** An element: its local name in lower case (`maml:para` is `para`; attributes too), its text and elements in order. */
interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Array<Element | string>;
  /** The line its start tag opens on. */
  line: number;
}

/** A prompt platyPS writes before an example's code (`PS C:\>`, `PS\>`), which Get-Help shows but no caller types. */
const MAML_PROMPT = /^\s*PS(?:\s[^>\n]*|\\)?>\s*/;

let saxes: Promise<{ SaxesParser: typeof SaxesParserClass }> | undefined;

/** The XML parser, loaded on the first help file only: a project without MAML never pays for it. */
function loadSaxes(): Promise<{ SaxesParser: typeof SaxesParserClass }> {
  saxes ??= import('saxes');
  return saxes;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}

/**
 * The document's root element, or the first well-formedness error (saxes checks what
 * XmlDocument checks: tags, entities XML does not declare, one root...), with its line.
 */
async function parseXml(
  xml: string,
): Promise<{ root: Element } | { error: { message: string; line: number } }> {
  const { SaxesParser } = await loadSaxes();
  const parser = new SaxesParser({ position: true });
  const stack: Element[] = [];
  let root: Element | undefined;
  let error: { message: string; line: number } | undefined;
  let line = 1;
  parser.on('opentagstart', () => {
    line = parser.line;
  });
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(tag.attributes))
      attributes[localName(name)] = String(value);
    const element: Element = { name: localName(tag.name), attributes, children: [], line };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root ??= element;
    else parent.children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const addText = (text: string): void => {
    stack[stack.length - 1]?.children.push(text);
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('error', (cause) => {
    error ??= { message: cause.message.replace(/^(?:[^:\n]*:)?\d+:\d+: /, ''), line: parser.line };
  });
  try {
    parser.write(xml).close();
  } catch (cause) {
    error ??= { message: (cause as Error).message, line: parser.line };
  }
  if (error !== undefined) return { error };
  if (root === undefined) return { error: { message: 'it has no root element', line: 1 } };
  return { root };
}

function childElements(element: Element): Element[] {
  return element.children.filter((child): child is Element => typeof child !== 'string');
}

function innerText(element: Element): string {
  return element.children
    .map((child) => (typeof child === 'string' ? child : innerText(child)))
    .join('');
}

function hasOnlyText(element: Element): boolean {
  return childElements(element).length === 0;
}

/**
 * The text items of a formatting node (`maml:description`, `dev:remarks`...): each paragraph
 * trimmed, list items with their tag (`* `, `01. `), definition list items as term and
 * definition. A node with text only (no paragraphs) is one item, as PowerShell reads it.
 */
function readItems(element: Element): string[] {
  if (hasOnlyText(element)) return [innerText(element).trim()];
  const items: string[] = [];
  for (const child of childElements(element)) {
    if (child.name === 'para') items.push(innerText(child).trim());
    else if (child.name === 'list') {
      const ordered = child.attributes.class?.toLowerCase() === 'ordered';
      let index = 1;
      for (const item of childElements(child)) {
        if (item.name !== 'listitem') continue;
        const tag = ordered ? `${String(index++).padStart(2, '0')}. ` : '* ';
        items.push(`${tag}${innerText(item).trim()}`);
      }
    } else if (child.name === 'definitionlist') {
      for (const item of childElements(child)) {
        const term = childElements(item).find((e) => e.name === 'term');
        const definition = childElements(item).find((e) => e.name === 'definition');
        const parts = [term, definition]
          .filter((part): part is Element => part !== undefined)
          .map((part) => innerText(part).trim());
        items.push(parts.join('\n'));
      }
    }
  }
  return items;
}

function joinParagraphs(items: readonly string[]): string {
  return items.filter((item) => item !== '').join('\n\n');
}

function find(element: Element, name: string): Element | undefined {
  return childElements(element).find((child) => child.name === name);
}

function findAll(element: Element, name: string): Element[] {
  return childElements(element).filter((child) => child.name === name);
}

function readCommand(
  command: Element,
  file: string,
): { name: string; help: CommentHelp } | undefined {
  const details = find(command, 'details');
  const nameElement = details === undefined ? undefined : find(details, 'name');
  const name = nameElement === undefined ? '' : innerText(nameElement).trim();
  // PowerShell drops a command entry without a name.
  if (name === '') return undefined;
  const start = command.line;
  const help: CommentHelp = {
    parameters: {},
    examples: [],
    outputs: [],
    links: [],
    file,
    lines: { start, end: start, examples: [], outputs: [], parameters: {} },
  };
  const synopsisElement = details === undefined ? undefined : find(details, 'description');
  // Get-Help's synopsis is the first item's text; a description of bare text has none.
  if (synopsisElement !== undefined && !hasOnlyText(synopsisElement)) {
    const synopsis = readItems(synopsisElement)[0] ?? '';
    if (synopsis !== '') {
      help.synopsis = synopsis;
      help.lines.synopsis = synopsisElement.line;
    }
  }
  const descriptionElement = find(command, 'description');
  if (descriptionElement !== undefined) {
    const description = joinParagraphs(readItems(descriptionElement));
    if (description !== '') {
      help.description = description;
      help.lines.description = descriptionElement.line;
    }
  }
  const parameters = find(command, 'parameters');
  for (const parameter of parameters === undefined ? [] : findAll(parameters, 'parameter')) {
    const parameterName = find(parameter, 'name');
    const description = find(parameter, 'description');
    if (parameterName === undefined) continue;
    const key = innerText(parameterName).trim().toLowerCase();
    if (key === '' || Object.hasOwn(help.parameters, key)) continue;
    help.parameters[key] = description === undefined ? '' : joinParagraphs(readItems(description));
    help.lines.parameters[key] = parameter.line;
  }
  const alertSet = find(command, 'alertset');
  if (alertSet !== undefined) {
    const notes = findAll(alertSet, 'alert')
      .flatMap((alert) => readItems(alert))
      .filter((item) => item !== '')
      .join('\n');
    if (notes !== '') {
      help.notes = notes;
      help.lines.notes = alertSet.line;
    }
  }
  const examples = find(command, 'examples');
  for (const example of examples === undefined ? [] : findAll(examples, 'example')) {
    const code = find(example, 'code');
    if (code === undefined) continue;
    const remarks = find(example, 'remarks');
    const text = [
      innerText(code).trim().replace(MAML_PROMPT, ''),
      ...(remarks === undefined ? [] : readItems(remarks).filter((item) => item !== '')),
    ].join('\n');
    help.examples.push(text);
    help.lines.examples.push(code.line);
  }
  const links = find(command, 'relatedlinks');
  for (const link of links === undefined ? [] : findAll(links, 'navigationlink')) {
    const uri = find(link, 'uri');
    const text = find(link, 'linktext');
    const target = uri ?? text;
    const value = target === undefined ? '' : innerText(target).trim();
    if (value !== '') help.links.push(value);
  }
  return { name, help };
}

/**
 * Reads one MAML help file's text. `file` is recorded on each command's help, so diagnostics
 * about it (an example that does not bind, a hint) point at the XML file and its line.
 */
export async function readMamlHelp(text: string, file: string): Promise<MamlHelpReading> {
  const commands = new Map<string, CommentHelp>();
  const parsed = await parseXml(text.replace(/^\uFEFF/, ''));
  if ('error' in parsed) {
    return {
      commands,
      problem: {
        message: `it is not well-formed XML: ${parsed.error.message}`,
        line: parsed.error.line,
      },
    };
  }
  const { root } = parsed;
  if (root.name !== 'helpitems') {
    return {
      commands,
      problem: { message: 'its root element is not <helpItems>, so PowerShell ignores it' },
    };
  }
  const isMaml =
    file.toLowerCase().endsWith('.maml') || root.attributes.schema?.toLowerCase() === 'maml';
  if (!isMaml) {
    return {
      commands,
      problem: {
        message: '<helpItems> lacks schema="maml", so PowerShell does not read it as command help',
        line: root.line,
      },
    };
  }
  for (const element of findAll(root, 'command')) {
    const command = readCommand(element, file);
    if (command !== undefined) commands.set(command.name.toLowerCase(), command.help);
  }
  return { commands };
}
