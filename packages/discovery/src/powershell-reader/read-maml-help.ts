/**
 * External help in MAML (what platyPS and `New-ExternalHelp` write, `<Module>-help.xml`), read
 * the way PowerShell's `MamlNode` and `MamlCommandHelpInfo` read it: a `<helpItems>` root with
 * `schema="maml"` (or a `.maml` file), one `<command:command>` per command keyed by its
 * `details/name` (case-insensitive; a later entry replaces an earlier one), element names
 * compared by local name whatever their prefix, paragraphs trimmed, the synopsis the first
 * paragraph of `details/description`. Each command becomes the `CommentHelp` shape the rest of
 * the reader already consumes, with `file` naming the XML file its lines refer to.
 */
import type { XMLParser as XmlParserClass, XMLValidator as XmlValidator } from 'fast-xml-parser';
import type { CommentHelp } from './comment-help.ts';

export interface MamlHelpReading {
  /** Keyed by the command name in lower case. */
  commands: Map<string, CommentHelp>;
  /** Why PowerShell would load nothing from the file (not XML, not MAML). */
  problem?: { message: string; line?: number };
}

/** One node of fast-xml-parser's ordered output: `{ [tag]: children, ':@'?: attributes }` or `{ '#text': text }`. */
type XmlNode = Record<string, unknown>;

interface Element {
  name: string;
  children: XmlNode[];
  attributes: Record<string, string>;
  start: number;
}

/** A prompt platyPS writes before an example's code (`PS C:\>`, `PS\>`), which Get-Help shows but no caller types. */
const MAML_PROMPT = /^\s*PS(?:\s[^>\n]*|\\)?>\s*/;

interface FastXmlParser {
  XMLParser: typeof XmlParserClass;
  XMLValidator: typeof XmlValidator;
}

let parserModule: Promise<FastXmlParser> | undefined;

/** The XML parser, loaded on the first help file only: a project without MAML never pays for it. */
function loadParser(): Promise<FastXmlParser> {
  parserModule ??= import('fast-xml-parser');
  return parserModule;
}

function toElement(node: XmlNode, metadata: symbol): Element | undefined {
  for (const key of Object.keys(node)) {
    if (key === ':@' || key === '#text') continue;
    const rawAttributes = (node[':@'] ?? {}) as Record<string, unknown>;
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(rawAttributes))
      attributes[name.replace(/^@_/, '').toLowerCase()] = String(value);
    const meta = (node as Record<symbol, { startIndex?: number } | undefined>)[metadata];
    return {
      name: key.toLowerCase(),
      children: (node[key] ?? []) as XmlNode[],
      attributes,
      start: meta?.startIndex ?? 0,
    };
  }
  return undefined;
}

function childElements(element: Element, metadata: symbol): Element[] {
  return element.children
    .map((child) => toElement(child, metadata))
    .filter((child): child is Element => child !== undefined);
}

function innerText(nodes: readonly XmlNode[]): string {
  let text = '';
  for (const node of nodes) {
    if (typeof node['#text'] === 'string' || typeof node['#text'] === 'number') {
      text += String(node['#text']);
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key !== ':@' && Array.isArray(node[key])) text += innerText(node[key] as XmlNode[]);
    }
  }
  return text;
}

function hasOnlyText(element: Element, metadata: symbol): boolean {
  return childElements(element, metadata).length === 0;
}

/**
 * The text items of a formatting node (`maml:description`, `dev:remarks`...): each paragraph
 * trimmed, list items with their tag (`* `, `01. `), definition list items as term and
 * definition. A node with text only (no paragraphs) is one item, as PowerShell reads it.
 */
function readItems(element: Element, metadata: symbol): string[] {
  if (hasOnlyText(element, metadata)) return [innerText(element.children).trim()];
  const items: string[] = [];
  for (const child of childElements(element, metadata)) {
    if (child.name === 'para') items.push(innerText(child.children).trim());
    else if (child.name === 'list') {
      const ordered = child.attributes.class?.toLowerCase() === 'ordered';
      let index = 1;
      for (const item of childElements(child, metadata)) {
        if (item.name !== 'listitem') continue;
        const tag = ordered ? `${String(index++).padStart(2, '0')}. ` : '* ';
        items.push(`${tag}${innerText(item.children).trim()}`);
      }
    } else if (child.name === 'definitionlist') {
      for (const item of childElements(child, metadata)) {
        const term = childElements(item, metadata).find((e) => e.name === 'term');
        const definition = childElements(item, metadata).find((e) => e.name === 'definition');
        const parts = [term, definition]
          .filter((part): part is Element => part !== undefined)
          .map((part) => innerText(part.children).trim());
        items.push(parts.join('\n'));
      }
    }
  }
  return items;
}

function joinParagraphs(items: readonly string[]): string {
  return items.filter((item) => item !== '').join('\n\n');
}

function find(element: Element, name: string, metadata: symbol): Element | undefined {
  return childElements(element, metadata).find((child) => child.name === name);
}

function findAll(element: Element, name: string, metadata: symbol): Element[] {
  return childElements(element, metadata).filter((child) => child.name === name);
}

function readCommand(
  command: Element,
  metadata: symbol,
  lineAt: (index: number) => number,
  file: string,
): { name: string; help: CommentHelp } | undefined {
  const details = find(command, 'details', metadata);
  const nameElement = details === undefined ? undefined : find(details, 'name', metadata);
  const name = nameElement === undefined ? '' : innerText(nameElement.children).trim();
  // PowerShell drops a command entry without a name.
  if (name === '') return undefined;
  const start = lineAt(command.start);
  const help: CommentHelp = {
    parameters: {},
    examples: [],
    outputs: [],
    links: [],
    file,
    lines: { start, end: start, examples: [], outputs: [], parameters: {} },
  };
  const synopsisElement =
    details === undefined ? undefined : find(details, 'description', metadata);
  // Get-Help's synopsis is the first item's text; a description of bare text has none.
  if (synopsisElement !== undefined && !hasOnlyText(synopsisElement, metadata)) {
    const synopsis = readItems(synopsisElement, metadata)[0] ?? '';
    if (synopsis !== '') {
      help.synopsis = synopsis;
      help.lines.synopsis = lineAt(synopsisElement.start);
    }
  }
  const descriptionElement = find(command, 'description', metadata);
  if (descriptionElement !== undefined) {
    const description = joinParagraphs(readItems(descriptionElement, metadata));
    if (description !== '') {
      help.description = description;
      help.lines.description = lineAt(descriptionElement.start);
    }
  }
  const parameters = find(command, 'parameters', metadata);
  for (const parameter of parameters === undefined
    ? []
    : findAll(parameters, 'parameter', metadata)) {
    const parameterName = find(parameter, 'name', metadata);
    const description = find(parameter, 'description', metadata);
    if (parameterName === undefined) continue;
    const key = innerText(parameterName.children).trim().toLowerCase();
    if (key === '' || Object.hasOwn(help.parameters, key)) continue;
    help.parameters[key] =
      description === undefined ? '' : joinParagraphs(readItems(description, metadata));
    help.lines.parameters[key] = lineAt(parameter.start);
  }
  const alertSet = find(command, 'alertset', metadata);
  if (alertSet !== undefined) {
    const notes = findAll(alertSet, 'alert', metadata)
      .flatMap((alert) => readItems(alert, metadata))
      .filter((item) => item !== '')
      .join('\n');
    if (notes !== '') {
      help.notes = notes;
      help.lines.notes = lineAt(alertSet.start);
    }
  }
  const examples = find(command, 'examples', metadata);
  for (const example of examples === undefined ? [] : findAll(examples, 'example', metadata)) {
    const code = find(example, 'code', metadata);
    if (code === undefined) continue;
    const remarks = find(example, 'remarks', metadata);
    const text = [
      innerText(code.children).trim().replace(MAML_PROMPT, ''),
      ...(remarks === undefined ? [] : readItems(remarks, metadata).filter((item) => item !== '')),
    ].join('\n');
    help.examples.push(text);
    help.lines.examples.push(lineAt(code.start));
  }
  const links = find(command, 'relatedlinks', metadata);
  for (const link of links === undefined ? [] : findAll(links, 'navigationlink', metadata)) {
    const uri = find(link, 'uri', metadata);
    const text = find(link, 'linktext', metadata);
    const value = innerText((uri ?? text)?.children ?? []).trim();
    if (value !== '') help.links.push(value);
  }
  return { name, help };
}

/** XML's own entities; any other needs a DTD declaring it. */
const PREDEFINED_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

/**
 * An entity reference XmlDocument refuses ("Reference to undeclared entity"): one not predefined,
 * in a document without a DTD. The validator accepts `&nbsp;`; PowerShell loads nothing then.
 */
function findUndeclaredEntity(xml: string, lineAt: (index: number) => number) {
  if (/<!DOCTYPE/i.test(xml)) return undefined;
  // Blank out CDATA and comments, keeping offsets, so their text is not read as references.
  const markup = xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->/g, (text) =>
    text.replace(/[^\n]/g, ' '),
  );
  for (const match of markup.matchAll(/&([A-Za-z_][\w.-]*);/g)) {
    const name = match[1] as string;
    if (!PREDEFINED_ENTITIES.has(name))
      return { message: `it refers to the undeclared entity &${name};`, line: lineAt(match.index) };
  }
  return undefined;
}

function createLineIndex(text: string): (index: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (index: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= index) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
}

/**
 * Reads one MAML help file's text. `file` is recorded on each command's help, so diagnostics
 * about it (an example that does not bind, a hint) point at the XML file and its line.
 */
export async function readMamlHelp(text: string, file: string): Promise<MamlHelpReading> {
  const { XMLParser, XMLValidator } = await loadParser();
  const xml = text.replace(/^\uFEFF/, '');
  const commands = new Map<string, CommentHelp>();
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    return {
      commands,
      problem: { message: `it is not well-formed XML: ${valid.err.msg}`, line: valid.err.line },
    };
  }
  const lineAt = createLineIndex(xml);
  const undeclared = findUndeclaredEntity(xml, lineAt);
  if (undeclared !== undefined) return { commands, problem: undeclared };
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    removeNSPrefix: true,
    trimValues: false,
    parseTagValue: false,
    parseAttributeValue: false,
    captureMetaData: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // Character references (`&#39;`); named HTML ones cannot remain after the check above.
    htmlEntities: true,
  });
  const metadata = XMLParser.getMetaDataSymbol() as symbol;
  const root = (parser.parse(xml) as XmlNode[])
    .map((node) => toElement(node, metadata))
    .find((element) => element !== undefined);
  if (root?.name !== 'helpitems') {
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
        line: lineAt(root.start),
      },
    };
  }
  for (const element of findAll(root, 'command', metadata)) {
    const command = readCommand(element, metadata, lineAt, file);
    if (command !== undefined) commands.set(command.name.toLowerCase(), command.help);
  }
  return { commands };
}
