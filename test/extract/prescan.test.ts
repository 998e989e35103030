// The encoding prescan (HTML §13.2.3.2) over the first 1024 bytes, step by step: a byte scan that skips comments and
// reads tags as names and attributes, knowing nothing of scripts or styles; then, past it, the tree builder's rule that
// only a real <meta> element changes the encoding.
import { describe, expect, test } from 'vitest';
import { decodeHtml } from '../../src/extract/decode.js';

/** "ą" in ISO-8859-2 (0xB1); in windows-1252 it is "±". */
const LATIN2_BYTE = Buffer.from([0xb1]);

/** A page whose head is `head` (ASCII), with a body holding one ISO-8859-2 byte. */
function page(head: string): Buffer {
  return Buffer.concat([
    Buffer.from(`<!doctype html><html><head>${head}</head><body><p>wi`),
    LATIN2_BYTE,
    Buffer.from('cej</p></body></html>'),
  ]);
}

const charsetOf = (head: string): string => decodeHtml(page(head)).charset;
/** The encoding the page's markup declares, as the decoder took it; null when no declaration was taken (detection decided). */
function declared(head: string): string | null {
  const d = decodeHtml(page(head));
  return d.charsetSource === 'meta' ? d.charset : null;
}
const LATIN2 = 'ISO-8859-2';

describe('the prescan: what it takes in the first 1024 bytes', () => {
  test.each([
    ['a <meta> written by a script (document.write)', `<script>document.write('<meta charset="iso8859-2">')</script>`],
    ['a <meta> in a style the tokenizer reads as text', '<style type="text/plain"><meta charset="iso8859-2"></style>'],
    ['a <meta> in a title', '<title><meta charset="iso-8859-2"></title>'],
    ['"<meta/" (a slash separates the name)', '<style><meta/charset=iso-8859-2></style>'],
    [
      'http-equiv after content (the pragma may come later)',
      '<script>x="<meta content=\'text/html; charset=iso-8859-2\' http-equiv=Content-Type>"</script>',
    ],
    ['the first of two charset attributes', '<script>x="<meta charset=iso-8859-2 charset=utf-8>"</script>'],
    ['a comment that "<!-->" closes at once', '<!--><meta charset="iso-8859-2">'],
    ['upper case', '<STYLE><META CHARSET="ISO-8859-2"></STYLE>'],
  ])('%s', (_what, head) => {
    const d = decodeHtml(page(head));
    expect(d.charset).toBe(LATIN2);
    expect(d.charsetSource).toBe('meta');
    expect(d.text).toContain('wiącej');
  });

  test('a declared UTF-16 means UTF-8, x-user-defined windows-1252 (step 11, 12)', () => {
    expect(charsetOf('<style><meta charset="utf-16le"></style>')).toBe('UTF-8');
    expect(charsetOf('<style><meta charset="x-user-defined"></style>')).toBe('windows-1252');
  });
});

describe('the prescan: what it leaves', () => {
  test.each([
    ['a <meta> inside a comment', '<!-- <meta charset="iso-8859-2"> -->'],
    ['content without http-equiv (need pragma, no pragma)', '<meta content="text/html; charset=iso-8859-2">'],
    ["a <meta> inside another tag's quoted attribute", '<link title="<meta charset=iso-8859-2>">'],
    ['a name that only starts with meta', '<style><metadata charset="iso-8859-2"></style>'],
    ['"<meta>" with no space or slash after it', '<style><meta>charset=iso-8859-2</style>'],
    // A bad charset attribute sets need pragma to false and charset to failure: the content is not read (step 6).
    [
      'a bad charset beside a good content, in a script',
      '<script>x="<meta charset=bogus http-equiv=content-type content=\'text/html; charset=iso-8859-2\'>"</script>',
    ],
  ])('%s', (_what, head) => {
    expect(declared(head)).toBeNull();
  });

  test('a tag cut off by the 1024th byte ends the scan; past 1024 bytes, a <meta> in a script declares nothing', () => {
    const pad = `<style>${' '.repeat(1100)}</style>`;
    expect(declared(`${pad}<script>document.write('<meta charset="iso-8859-2">')</script>`)).toBeNull();
    const straddling = `<style>${' '.repeat(960)}</style><script>x="<meta charset='iso-8859-2' data-x='${'y'.repeat(80)}'>"</script>`;
    expect(Buffer.byteLength(`<!doctype html><html><head>${straddling.slice(0, 990)}`)).toBeLessThan(1024);
    expect(declared(straddling)).toBeNull();
  });

  test('after the prescan, the tree builder reads a real <meta> element, later or with what the prescan refused', () => {
    // Past 1024 bytes: only a real element (in the head) changes the encoding.
    expect(charsetOf(`<style>${' '.repeat(1100)}</style><meta charset="iso-8859-2">`)).toBe(LATIN2);
    // A bad charset attribute beside a good content: the prescan takes nothing; the tree builder takes the content.
    expect(charsetOf('<meta charset=bogus http-equiv=content-type content="text/html; charset=iso-8859-2">')).toBe(
      LATIN2,
    );
  });
});
