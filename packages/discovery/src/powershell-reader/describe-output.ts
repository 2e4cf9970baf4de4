/**
 * A PowerShell command's output schema: its `[OutputType()]` names the type, and either a
 * `class` of the same file or the property lines of the `.OUTPUTS` help section describe it.
 * The schema follows what the pwsh runner really returns (runners/assets/host.ps1): a class
 * instance's public instance properties in order, `[datetime]` as an ISO 8601 string, class
 * instances more than two objects deep as their `ToString()` text.
 */
import { createDiagnostic } from '@toolpack/core';
import type { Diagnostic, JsonSchema, ObjectJsonSchema } from '@toolpack/core';
import { constantString } from './attribute-values.ts';
import type { CommentHelp } from './comment-help.ts';
import { mapPowerShellType } from './map-powershell-type.ts';
import type { PsAttribute, PsClass } from './reader.ts';

export interface DescribeOutputInput {
  path: string;
  /** `the script` or `the function Get-Widget`, for messages. */
  what: string;
  sourceKind: 'script' | 'ps-module';
  /** The attributes of the command's param block, where `[OutputType()]` sits. */
  blockAttributes: readonly PsAttribute[];
  classes: readonly PsClass[];
  /**
   * Classes of the module's other files: PowerShell resolves them by name at run time
   * (`[OutputType('Widget')]`), not as a type literal in a param block of another file.
   */
  otherClasses?: readonly PsClass[];
  help?: CommentHelp;
}

export interface DescribedOutput {
  outputSchema?: ObjectJsonSchema;
  diagnostics: Diagnostic[];
}

/** One `Name <type> description` line of a `.OUTPUTS` section. */
export interface OutputPropertyLine {
  name: string;
  type: string;
  description: string;
  optional: boolean;
  line: number;
}

/** The types `[OutputType()]` may name for a hashtable-like result that `.OUTPUTS` describes. */
const DICTIONARY_TYPES = new Set([
  'hashtable',
  'collections.hashtable',
  'ordered',
  'collections.specialized.ordereddictionary',
  'collections.idictionary',
  'pscustomobject',
  'management.automation.pscustomobject',
  'psobject',
  'management.automation.psobject',
]);

/** The short and full spellings of one dictionary type, to match a `.OUTPUTS` type line. */
const TYPE_ALIASES: Record<string, string> = {
  'collections.hashtable': 'hashtable',
  'collections.specialized.ordereddictionary': 'ordered',
  'management.automation.pscustomobject': 'pscustomobject',
  'management.automation.psobject': 'psobject',
};

function sameType(a: string, b: string): boolean {
  // A type line may be written as PowerShell shows types, in brackets: `[hashtable]`.
  const canonical = (name: string) => {
    const key = normalize(name.replace(/^\[(.*)\]$/, '$1'));
    return TYPE_ALIASES[key] ?? key;
  };
  return canonical(a) === canonical(b);
}

/** .NET types the runner writes as an object of their properties: nothing this file can describe. */
const WRITTEN_AS_OBJECTS = new Set([
  'io.fileinfo',
  'io.directoryinfo',
  'io.filesysteminfo',
  'cultureinfo',
  'globalization.cultureinfo',
  'text.encoding',
]);

/** Types whose value is never $null: everything else (strings, arrays, objects) may be. */
const VALUE_TYPES =
  /^(bool|boolean|char|byte|sbyte|u?short|u?int(16|32|64)?|u?long|bigint|numerics\.biginteger|double|single|float|decimal|datetime|datetimeoffset|guid|timespan)$/;

/** The host writes class instances deeper than this as their ToString() text. */
const MAX_OBJECT_DEPTH = 2;

const PROPERTY_LINE = /^[ \t\u00A0]+([\p{L}_][\p{L}\p{N}_]*)[ \t]+<([^<>]+)>[ \t]*(.*)$/u;
const OPTIONAL = /^\(?optional\)?[.:,]?\s*/i;

function normalize(typeName: string): string {
  return typeName
    .replace(/\s+/g, '')
    .toLowerCase()
    .replace(/^system\./, '');
}

/** The type names of every `[OutputType()]`, as written: `[hashtable]` or `'System.Collections.Hashtable'`. */
function readOutputTypes(
  attributes: readonly PsAttribute[],
): Array<{ name: string; line: number; literal: boolean }> {
  const types: Array<{ name: string; line: number; literal: boolean }> = [];
  for (const attribute of attributes) {
    if (attribute.key !== 'outputtype') continue;
    for (const argument of attribute.positional) {
      const literal = /^\[(.+)\]$/s.exec(argument.text);
      const name = literal?.[1] ?? constantString(argument.value) ?? argument.text;
      types.push({
        name: name.replace(/\s+/g, ''),
        line: argument.line,
        literal: literal !== null,
      });
    }
  }
  return types;
}

/**
 * The property lines of a `.OUTPUTS` section: after the type line, each indented
 * `Name <type> description`; a more indented line without `<type>` continues the description.
 */
export function readOutputProperties(
  text: string,
  firstLine: number,
): {
  typeName: string;
  properties: OutputPropertyLine[];
  problems: Array<{ line: number; text: string }>;
} {
  const lines = text.split('\n');
  const typeName = (lines[0] ?? '').trim();
  const properties: OutputPropertyLine[] = [];
  const problems: Array<{ line: number; text: string }> = [];
  lines.slice(1).forEach((raw, index) => {
    const line = firstLine + index + 1;
    if (raw.trim() === '') return;
    const match = PROPERTY_LINE.exec(raw);
    if (match !== null) {
      const [, name = '', type = '', rest = ''] = match;
      const optional = OPTIONAL.test(rest);
      properties.push({
        name,
        type: type.trim(),
        description: rest.replace(OPTIONAL, '').trim(),
        optional,
        line,
      });
      return;
    }
    const previous = properties[properties.length - 1];
    if (previous !== undefined && /^[ \t\u00A0]/.test(raw)) {
      previous.description = `${previous.description} ${raw.trim()}`.trim();
      return;
    }
    if (/<[^<>]+>/.test(raw)) problems.push({ line, text: raw.trim() });
  });
  return { typeName, properties, problems };
}

class OutputReader {
  readonly diagnostics: Diagnostic[] = [];
  private readonly input: DescribeOutputInput;

  constructor(input: DescribeOutputInput) {
    this.input = input;
  }

  warn(message: string, line: number | undefined, hint: string): void {
    this.diagnostics.push(
      createDiagnostic(
        'warning',
        'W_OUTPUT_TYPE',
        message,
        { path: this.input.path, ...(line === undefined ? {} : { line }) },
        hint,
      ),
    );
  }

  findClass(name: string): PsClass | undefined {
    const key = normalize(name);
    const matches = (definition: PsClass) => definition.name.toLowerCase() === key;
    return this.input.classes.find(matches) ?? this.input.otherClasses?.find(matches);
  }

  /** Whether the class is defined in the command's own file. */
  isOwnClass(definition: PsClass): boolean {
    return this.input.classes.includes(definition);
  }

  /**
   * The schema of one value of `typeName` as the runner writes it, at `depth` class instances
   * below the result; undefined when the type is unknown.
   */
  mapType(typeName: string, depth: number, seen: ReadonlySet<string>): JsonSchema | undefined {
    const text = typeName.replace(/\s+/g, '');
    const array = /^(.+)\[\]$/.exec(text);
    if (array !== null) {
      const items = this.mapType(array[1] as string, depth, seen);
      if (items === undefined) return undefined;
      return Object.keys(items).length === 0 ? { type: 'array' } : { type: 'array', items };
    }
    const nullable = /^(?:system\.)?nullable\[(.+)\]$/i.exec(text);
    if (nullable !== null) return this.mapType(nullable[1] as string, depth, seen);
    const key = normalize(text);
    if (key === 'object' || key === 'any') return {};
    const definition = this.findClass(text);
    if (definition !== undefined) {
      if (depth >= MAX_OBJECT_DEPTH || seen.has(definition.name.toLowerCase()))
        return { type: 'string' };
      return this.describeClass(definition, depth, seen);
    }
    if (DICTIONARY_TYPES.has(key)) return { type: 'object' };
    if (key === 'datetime' || key === 'datetimeoffset' || key === 'uri') return { type: 'string' };
    if (WRITTEN_AS_OBJECTS.has(key)) return undefined;
    const mapping = mapPowerShellType(text);
    if (mapping.kind !== 'known' || mapping.spec === undefined) return undefined;
    const { format, ...spec } = structuredClone(mapping.spec) as unknown as JsonSchema;
    // Only a GUID's text is always in its format; the runner writes an e-mail address as an object.
    if (format === 'uuid') return { ...spec, format } as JsonSchema;
    if (format !== undefined) return undefined;
    return spec as JsonSchema;
  }

  describeClass(
    definition: PsClass,
    depth: number,
    seen: ReadonlySet<string>,
  ): JsonSchema | undefined {
    const inner = new Set(seen).add(definition.name.toLowerCase());
    const chain: PsClass[] = [definition];
    for (let base = definition.base; base !== undefined;) {
      const parent = this.findClass(base);
      if (parent === undefined || chain.includes(parent)) {
        this.warn(
          `The class ${definition.name} (line ${definition.line}) derives from ${base}, which is not a class of this file, so its output schema is unknown.`,
          definition.line,
          'Define the base class in the same file, or describe the result as [OutputType([pscustomobject])] with properties under .OUTPUTS.',
        );
        return undefined;
      }
      chain.unshift(parent);
      base = parent.base;
    }
    const properties: Record<string, JsonSchema> = {};
    for (const member of chain.flatMap((c) => c.properties)) {
      if (member.hidden || member.static) continue;
      const typeName = member.typeNames[member.typeNames.length - 1];
      let schema: JsonSchema | undefined =
        typeName === undefined ? {} : this.mapType(typeName, depth + 1, inner);
      if (schema === undefined) {
        this.warn(
          `The property $${member.name} of the class ${definition.name} has the type [${typeName}], which Toolpack cannot describe, so the tool has no output schema.`,
          member.line,
          'Use a type such as [string], [int], [bool], [datetime], [string[]], [hashtable] or another class of this file.',
        );
        return undefined;
      }
      // A value type always has a value; a string, array, hashtable or object may be $null.
      if (typeName !== undefined && !VALUE_TYPES.test(normalize(typeName)))
        schema = allowNull(schema);
      properties[member.name] = schema;
    }
    return { type: 'object', properties, required: Object.keys(properties) };
  }
}

function allowNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type !== 'string') return schema;
  return { ...schema, type: [schema.type as string, 'null'] };
}

/**
 * The output schema of a script or function, or nothing: only a described object becomes
 * one (MCP's structuredContent is an object), so a scalar `[OutputType([string])]` or an
 * undescribed `[hashtable]` leaves the tool as it is.
 */
export function describeOutput(input: DescribeOutputInput): DescribedOutput {
  const reader = new OutputReader(input);
  const types = readOutputTypes(input.blockAttributes);
  const help = input.help;
  const sections = (help?.outputs ?? []).map((text, index) =>
    readOutputProperties(text, help?.lines.outputs[index] ?? 1),
  );
  const described = sections.filter((section) => section.properties.length > 0);

  // A type literal of a class PowerShell has not defined yet where the param block is read
  // stops the command from loading at all: that is a broken command, not a missing schema.
  const unresolved: Diagnostic[] = [];
  for (const type of types) {
    const definition = type.literal ? reader.findClass(type.name) : undefined;
    if (definition === undefined) continue;
    const own = reader.isOwnClass(definition);
    if (input.sourceKind !== 'script' && own) continue;
    unresolved.push(
      createDiagnostic(
        'error',
        'E_UNRESOLVED_TYPE',
        own
          ? `[OutputType([${type.name}])] of ${input.what} names a class of the script: PowerShell reads the param block before the script's classes exist and stops with "Unable to find type [${type.name}]".`
          : `[OutputType([${type.name}])] of ${input.what} names a class of another file of the module: PowerShell cannot resolve it in this file's param block and stops with "Unable to find type [${type.name}]".`,
        { path: input.path, line: type.line },
        `Write the type name as a string: [OutputType('${type.name}')].`,
      ),
    );
  }
  if (unresolved.length > 0) return { diagnostics: unresolved };

  const distinct = [...new Map(types.map((type) => [normalize(type.name), type])).values()];
  if (distinct.length === 0) {
    const section = described[0];
    if (section !== undefined) {
      reader.warn(
        `The .OUTPUTS help of ${input.what} describes properties, but the command has no [OutputType()], so the tool has no output schema.`,
        section.properties[0]?.line,
        `Add [OutputType([${section.typeName || 'hashtable'}])] above param( to declare what it returns.`,
      );
    }
    return { diagnostics: reader.diagnostics };
  }
  if (distinct.length > 1) {
    reader.warn(
      `${capitalize(input.what)} declares several output types (${distinct.map((type) => `[${type.name}]`).join(', ')}); a tool has one output schema, so it has none.`,
      distinct[1]?.line,
      'Declare the one type every call returns, for example one class or [OutputType([hashtable])] with its properties under .OUTPUTS.',
    );
    return { diagnostics: reader.diagnostics };
  }
  const declared = distinct[0] as { name: string; line: number; literal: boolean };
  const key = normalize(declared.name);
  const definition = reader.findClass(declared.name);
  if (definition !== undefined) {
    const schema = reader.describeClass(definition, 0, new Set());
    if (schema === undefined) return { diagnostics: reader.diagnostics };
    const section = described.find((s) => sameType(s.typeName, declared.name));
    for (const property of section?.properties ?? []) {
      const target = (schema.properties as Record<string, JsonSchema>)[property.name];
      if (target !== undefined && property.description !== '')
        target.description = property.description;
    }
    return { outputSchema: schema as ObjectJsonSchema, diagnostics: reader.diagnostics };
  }
  if (!DICTIONARY_TYPES.has(key)) {
    // Scalars and arrays come back as text or an array, never as structuredContent: nothing to describe.
    if (reader.mapType(declared.name, 0, new Set()) !== undefined) return { diagnostics: [] };
    reader.warn(
      `[OutputType([${declared.name}])] of ${input.what} is neither a class of this file nor a hashtable or pscustomobject, so the tool has no output schema.`,
      declared.line,
      'Define the class in the same file, or return a [pscustomobject] or [hashtable] and describe its properties under .OUTPUTS.',
    );
    return { diagnostics: reader.diagnostics };
  }
  const section =
    described.find((s) => sameType(s.typeName, declared.name)) ??
    (described.length === 1 ? described[0] : undefined);
  if (section === undefined) return { diagnostics: [] };
  for (const problem of section.problems) {
    reader.warn(
      `The .OUTPUTS line ${JSON.stringify(problem.text)} of ${input.what} is not a property line, so the tool has no output schema.`,
      problem.line,
      'Write each property indented under the type line as "Name <type> description", e.g. "  Count <int> How many widgets."',
    );
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const property of section.properties) {
    const schema = reader.mapType(property.type, 0, new Set());
    if (schema === undefined) {
      reader.warn(
        `The .OUTPUTS property ${property.name} of ${input.what} has the type <${property.type}>, which Toolpack cannot describe, so the tool has no output schema.`,
        property.line,
        'Use string, int, double, bool, datetime, hashtable, object, a class of this file, or an array of one (string[]).',
      );
      continue;
    }
    if (property.description !== '') schema.description = property.description;
    properties[property.name] = schema;
    if (!property.optional) required.push(property.name);
  }
  if (reader.diagnostics.length > 0) return { diagnostics: reader.diagnostics };
  const outputSchema: ObjectJsonSchema = { type: 'object', properties };
  if (required.length > 0) outputSchema.required = required;
  return { outputSchema, diagnostics: [] };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
