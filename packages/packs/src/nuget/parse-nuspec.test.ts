import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { parseNuGetXml, parseNuspec } from './parse-nuspec.ts';

const plain = (id: string) =>
  `<?xml version="1.0"?><package><metadata><id>${id}</id><version>1.0.0</version><description>d</description><tags>a b,c</tags></metadata></package>`;
const withEntity = plain('&boom;').replace(
  '<package>',
  '<!DOCTYPE package [<!ENTITY boom "Clocks-injected">]><package>',
);

describe('parseNuspec', () => {
  it('reads id, version, description and tags (spaces or commas between them)', () => {
    expect(parseNuspec(plain('Clocks'))).toMatchObject({
      id: 'Clocks',
      version: '1.0.0',
      description: 'd',
      tags: ['a', 'b', 'c'],
    });
  });

  it('refuses a DOCTYPE, whose entities the XML parser would otherwise expand', () => {
    // Without the check: the same parser, as configured by default, puts the entity's text in.
    const unchecked = new XMLParser().parse(withEntity) as {
      package: { metadata: { id: string } };
    };
    expect(unchecked.package.metadata.id).toBe('Clocks-injected');
    expect(parseNuspec(withEntity)).toBeUndefined();
    expect(parseNuspec(plain('Clocks').replace('<package>', '<!doctype package><package>'))).toBe(
      undefined,
    );
  });
});

describe('parseNuGetXml', () => {
  it("refuses a v2 feed's Atom answer that declares entities, and reads one that does not", () => {
    const atom = '<feed><entry><title>Clocks</title></entry></feed>';
    expect(parseNuGetXml(atom, ['entry'])).toEqual({ feed: { entry: [{ title: 'Clocks' }] } });
    const hostile = `<!DOCTYPE feed [<!ENTITY x "y">]>${atom.replace('Clocks', '&x;')}`;
    expect(new XMLParser().parse(hostile)).toEqual({ feed: { entry: { title: 'y' } } });
    expect(parseNuGetXml(hostile, ['entry'])).toBeUndefined();
  });
});
