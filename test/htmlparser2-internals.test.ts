// A canary for the htmlparser2 internals the light DOM and the streaming pass rely on (src/extract/stream.ts,
// lightdom/tokenizer.ts): TypeScript-private fields read and set at run time, guarded only by the exact version pin.
// A version that renames or retypes one fails here, naming the field, instead of as wrong text somewhere downstream.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, Tokenizer } from 'htmlparser2';
import { describe, expect, test } from 'vitest';

// htmlparser2's exports map leaves out package.json: read it where npm put it.
const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'node_modules', 'htmlparser2', 'package.json'), 'utf8')) as { version: string }).version;

const noop = () => undefined;
const callbacks = new Proxy({}, { get: () => noop }) as ConstructorParameters<typeof Tokenizer>[1];

function field(owner: object, name: string, type: string): void {
  const value = (owner as Record<string, unknown>)[name];
  const actual = value instanceof Uint8Array ? 'Uint8Array' : Array.isArray(value) ? 'array' : typeof value;
  expect(actual, `htmlparser2 ${VERSION}: ${owner.constructor.name}.${name} should be ${type} (src/extract/stream.ts relies on it)`).toBe(type);
}

describe(`htmlparser2 ${VERSION}: the internals quotecheck uses are where it expects them`, () => {
  test('the tokenizer: buffer, offset, index, sectionStart, sequenceIndex, currentSequence, isSpecial, stateInSpecialTag', () => {
    const t = new Tokenizer({}, callbacks);
    t.write('<p>a');
    for (const [name, type] of [['buffer', 'string'], ['offset', 'number'], ['index', 'number'], ['sectionStart', 'number'], ['sequenceIndex', 'number'], ['currentSequence', 'Uint8Array'], ['isSpecial', 'boolean']] as const) field(t, name, type);
    expect(typeof (Tokenizer.prototype as unknown as Record<string, unknown>).stateInSpecialTag, `htmlparser2 ${VERSION}: Tokenizer.prototype.stateInSpecialTag is overridden by ScriptAwareTokenizer`).toBe('function');
  });

  test('after <script> the tokenizer holds the `</script` sequence and is in special-tag state', () => {
    const t = new Tokenizer({}, callbacks);
    t.write('<script>');
    const seq = (t as unknown as { currentSequence: Uint8Array }).currentSequence;
    expect(Buffer.from(seq).toString('latin1'), `htmlparser2 ${VERSION}: currentSequence after <script>`).toBe('</script');
  });

  test('the parser: stack, foreignContext and onend, swapped by the linear parser', () => {
    const p = new Parser({});
    field(p, 'stack', 'array');
    field(p, 'foreignContext', 'array');
    field(p, 'onend', 'function');
  });
});
