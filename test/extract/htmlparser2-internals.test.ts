// A canary for the htmlparser2 internals the light DOM and the streaming pass rely on, all of them used in one module
// (src/extract/htmlparser2-internals.ts): TypeScript-private fields read and set at run time, guarded only by the exact
// version pin. A version that renames or retypes one fails here, naming the field, instead of as wrong text somewhere
// downstream. The fields checked are the module's own lists (TOKENIZER_FIELDS, PARSER_FIELDS), and the lists are
// checked against what the module's internals interfaces declare, so a field the module starts using is checked too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, Tokenizer } from 'htmlparser2';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import {
  htmlTokenizer,
  keepReadingMarkup,
  linearParser,
  PARSER_FIELDS,
  ScriptAwareTokenizer,
  TOKENIZER_FIELDS,
  TOKENIZER_STATES,
} from '../../src/extract/htmlparser2-internals.js';

// htmlparser2's exports map leaves out package.json: read it where npm put it.
const VERSION = (
  JSON.parse(
    readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', 'htmlparser2', 'package.json'), 'utf8'),
  ) as {
    version: string;
  }
).version;
const MODULE = join(import.meta.dirname, '..', '..', 'src', 'extract', 'htmlparser2-internals.ts');

const noop = () => undefined;
/** The tokenizer's callbacks (htmlparser2 does not export their type). */
type TokenizerCallbacks = ConstructorParameters<typeof Tokenizer>[1];
const callbacks = new Proxy({}, { get: () => noop }) as TokenizerCallbacks;

function field(owner: object, name: string, type: string): void {
  const value = (owner as Record<string, unknown>)[name];
  const actual = value instanceof Uint8Array ? 'Uint8Array' : Array.isArray(value) ? 'array' : typeof value;
  expect(
    actual,
    `htmlparser2 ${VERSION}: ${owner.constructor.name}.${name} should be ${type} (src/extract/htmlparser2-internals.ts relies on it)`,
  ).toBe(type);
}

/** The members of an interface declared in the internals module. */
function interfaceMembers(name: string): string[] {
  const source = ts.createSourceFile(MODULE, readFileSync(MODULE, 'utf8'), ts.ScriptTarget.Latest);
  const decl = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name,
  );
  if (!decl) throw new Error(`${MODULE} declares no interface ${name}`);
  return decl.members.map((m) => (m.name as ts.Identifier).text);
}

describe(`htmlparser2 ${VERSION}: the internals quotecheck uses are where it expects them`, () => {
  test('the tokenizer: buffer, offset, index, sectionStart, sequenceIndex, currentSequence, isSpecial, stateInSpecialTag', () => {
    const t = new Tokenizer({}, callbacks);
    t.write('<p>a');
    for (const [name, type] of [
      ['buffer', 'string'],
      ['offset', 'number'],
      ['index', 'number'],
      ['sectionStart', 'number'],
      ['sequenceIndex', 'number'],
      ['currentSequence', 'Uint8Array'],
      ['isSpecial', 'boolean'],
    ] as const)
      field(t, name, type);
    expect(
      typeof (Tokenizer.prototype as unknown as Record<string, unknown>).stateInSpecialTag,
      `htmlparser2 ${VERSION}: Tokenizer.prototype.stateInSpecialTag is overridden by ScriptAwareTokenizer`,
    ).toBe('function');
  });

  test('after <script> the tokenizer holds the `</script` sequence and is in special-tag state', () => {
    const t = new Tokenizer({}, callbacks);
    t.write('<script>');
    const seq = (t as unknown as { currentSequence: Uint8Array }).currentSequence;
    expect(Buffer.from(seq).toString('latin1'), `htmlparser2 ${VERSION}: currentSequence after <script>`).toBe(
      '</script',
    );
  });

  test('the parser: stack, foreignContext and onend, swapped by the linear parser', () => {
    const p = new Parser({});
    field(p, 'stack', 'array');
    field(p, 'foreignContext', 'array');
    field(p, 'onend', 'function');
  });

  test('every field the internals module lists has its type (a fresh tokenizer mid-tag, a fresh parser)', () => {
    const t = new Tokenizer({}, callbacks);
    t.write('<p>a');
    // (Methods are checked on the prototype, where a subclass overrides them.)
    for (const [name, type] of Object.entries(TOKENIZER_FIELDS))
      field(type === 'function' ? Tokenizer.prototype : t, name, type);
    const p = new Parser({});
    for (const [name, type] of Object.entries(PARSER_FIELDS)) field(p, name, type);
    // isSpecial is set at a raw text element's name, before its `>`: the moment keepReadingMarkup reads it.
    const special = new Tokenizer({}, callbacks);
    special.write('<style');
    expect(
      (special as unknown as { isSpecial: unknown }).isSpecial,
      `htmlparser2 ${VERSION}: Tokenizer.isSpecial after "<style"`,
    ).toBe(true);
  });

  test('the tokenizer states the overrides compare, read off probes, are told apart', () => {
    const values = Object.values(TOKENIZER_STATES);
    for (const [name, value] of Object.entries(TOKENIZER_STATES))
      expect(typeof value, `htmlparser2 ${VERSION}: the tokenizer's state after the probe for ${name}`).toBe('number');
    expect(
      new Set(values).size,
      `htmlparser2 ${VERSION}: the probed states ${JSON.stringify(TOKENIZER_STATES)} should differ`,
    ).toBe(values.length);
  });

  test("the module's internals interfaces name only listed fields", () => {
    expect(interfaceMembers('TokenizerInternals').sort()).toEqual(Object.keys(TOKENIZER_FIELDS).sort());
    expect(interfaceMembers('ParserInternals').sort()).toEqual(Object.keys(PARSER_FIELDS).sort());
  });
});

describe('what the internals module does with them', () => {
  /** The text events of a tokenizer over `html`. */
  function texts(html: string, onStartTag?: (t: ReturnType<typeof htmlTokenizer>) => void): string[] {
    const out: string[] = [];
    const cbs = new Proxy(
      { ontext: (s: number, e: number) => void out.push(html.slice(s, e)) },
      {
        get: (target, key) =>
          key === 'onopentagend' && onStartTag
            ? () => onStartTag(tokenizer)
            : ((target as Record<string | symbol, unknown>)[key] ?? noop),
      },
    ) as ConstructorParameters<typeof Tokenizer>[1];
    const tokenizer = htmlTokenizer(cbs);
    tokenizer.write(html);
    tokenizer.end();
    return out;
  }

  test('ScriptAwareTokenizer overrides stateInSpecialTag and ends a script where the standard does', () => {
    expect(Object.hasOwn(ScriptAwareTokenizer.prototype, 'stateInSpecialTag')).toBe(true);
    const script = '<!-- document.write("<script src=x></script>") -->';
    expect(texts(`<script>${script}</script>after`)).toEqual([script, 'after']);
    expect(texts('<script>a</script>b')).toEqual(['a', 'b']);
    expect(texts('<script>runs to the end')).toEqual(['runs to the end']);
  });

  /** Every tokenizer event over `html` but attribute data, as text; `foreign` answers isInForeignContext. */
  function events(html: string, foreign = false): string[] {
    const out: string[] = [];
    const slice = (s: number, e: number) => html.slice(s, e);
    const cbs = {
      onopentagname: (s: number, e: number) => void out.push(`<${slice(s, e)}`),
      onattribname: (s: number, e: number) => void out.push(`@${slice(s, e)}`),
      onopentagend: () => void out.push('>'),
      onselfclosingtag: () => void out.push('/>'),
      onclosetag: (s: number, e: number) => void out.push(`</${slice(s, e)}>`),
      ontext: (s: number, e: number) => void out.push(JSON.stringify(slice(s, e))),
      ontextentity: (cp: number) => void out.push(`&#${cp};`),
      oncomment: (s: number, e: number, offset: number) => void out.push(`<!--${slice(s, e - offset)}-->`),
      oncdata: (s: number, e: number, offset: number) => void out.push(`CDATA ${slice(s, e - offset)}`),
      onend: () => void out.push('end'),
      isInForeignContext: () => foreign,
    };
    // The callbacks left out (attribute data, declarations...) are the Proxy's no-op: every one is there.
    const tokenizer = htmlTokenizer(
      new Proxy<Partial<TokenizerCallbacks>>(cbs, {
        get: (t, key) => (t as Record<string | symbol, unknown>)[key] ?? noop,
      }) as TokenizerCallbacks,
    );
    tokenizer.write(html);
    tokenizer.end();
    return out;
  }

  test('ScriptAwareTokenizer overrides the end tag name state: the end tag at its `>`, its attributes read and dropped', () => {
    expect(Object.hasOwn(ScriptAwareTokenizer.prototype, 'stateInClosingTagName')).toBe(true);
    expect(events('a</p x=">" y>b')).toEqual(['"a"', '</p>', '"b"', 'end']);
    expect(events('a</p/>b')).toEqual(['"a"', '</p>', '"b"', 'end']);
    expect(events('<title>a</title x=">">b')).toEqual(['<title', '>', '"a"', '</title>', '"b"', 'end']);
    // Start tags after an end tag report their attributes again.
    expect(events('</p x><i y>')).toEqual(['</p>', '<i', '@y', '>', 'end']);
  });

  test('ScriptAwareTokenizer overrides the end of input: an unfinished tag is dropped, an unfinished CDATA section is text', () => {
    expect(Object.hasOwn(ScriptAwareTokenizer.prototype, 'handleTrailingData')).toBe(true);
    expect(events('a</p x="y')).toEqual(['"a"', 'end']);
    expect(events('a<b /')).toEqual(['"a"', '<b', 'end']);
    expect(events('a<scr')).toEqual(['"a"', 'end']);
    expect(events('<![CDATA[x]', true)).toEqual(['CDATA x]', 'end']);
  });

  test('ScriptAwareTokenizer overrides the CDATA start: a section in foreign content, a bogus comment elsewhere', () => {
    expect(Object.hasOwn(ScriptAwareTokenizer.prototype, 'stateCDATASequence')).toBe(true);
    expect(events('<![CDATA[a>b]]>c', true)).toEqual(['CDATA a>b', '"c"', 'end']);
    expect(events('<![CDATA[a>b]]>c', false)).toEqual(['<!--[CDATA[a-->', '"b]]>c"', 'end']);
  });

  test('ScriptAwareTokenizer starts a character reference at a `&` that breaks off a partial RCDATA end tag', () => {
    expect(events('<textarea></&amp;</textarea>')).toEqual(['<textarea', '>', '"</"', '&#38;', '</textarea>', 'end']);
  });

  test('keepReadingMarkup leaves the content of a raw text element as markup', () => {
    const events: string[] = [];
    const html = '<style><b>bold</b></style>';
    const cbs = new Proxy(
      {},
      {
        get: (_t, key) =>
          key === 'onopentagname'
            ? (s: number, e: number) => void events.push(html.slice(s, e))
            : key === 'onopentagend'
              ? () => keepReadingMarkup(tokenizer)
              : noop,
      },
    ) as ConstructorParameters<typeof Tokenizer>[1];
    const tokenizer = htmlTokenizer(cbs);
    tokenizer.write(html);
    tokenizer.end();
    expect(events).toEqual(['style', 'b']);
    expect(texts(html)).toEqual(['<b>bold</b>']);
  });

  test('the linear parser reports the events of htmlparser2 Parser, and closes what is open at the end, top first', () => {
    const record = (
      make: (cbs: { onopentagname(n: string): void; onclosetag(n: string): void; ontext(t: string): void }) => {
        write(s: string): void;
        end(): void;
      },
    ) => {
      const events: string[] = [];
      const p = make({
        onopentagname: (n) => events.push(`<${n}>`),
        onclosetag: (n) => events.push(`</${n}>`),
        ontext: (t) => events.push(t),
      });
      p.write('<div><p>a<b>b<svg><title>t</title></svg></p><i>c');
      p.end();
      return events;
    };
    const plain = record(
      (cbs) =>
        new Parser(cbs, {
          decodeEntities: true,
          lowerCaseTags: true,
          lowerCaseAttributeNames: true,
          recognizeSelfClosing: false,
          Tokenizer: ScriptAwareTokenizer,
        }),
    );
    expect(record(linearParser)).toEqual(plain);
  });
});
