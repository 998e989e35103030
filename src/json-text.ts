// JSON text read with a reason for every mistake: where a syntax error is (RFC 8259 scanner) and how deep the nesting goes.
// Node's own modules only, so that the verifier's standalone grader (scripts/bundle.ts) can use it.

/** Where the nesting of `text` first exceeds `max` levels (outside strings), or -1. One linear pass. */
export function tooDeepAt(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** `line 3, column 7` of a 0-based offset (columns count UTF-16 units from 1, as editors near enough do). */
export function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

const JSON_WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Thrown inside the scanner to unwind to jsonSyntaxErrorAt with the first mistake. */
class JsonStop {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

/**
 * A scanner of the JSON grammar (RFC 8259) that checks and keeps nothing: each method reads one
 * production from `i` on, or stops at the first character that cannot belong to it.
 */
class JsonScanner {
  #i = 0;

  constructor(private readonly text: string) {}

  /** The character at `at` as an error quotes it, or the end of the file. */
  #what(at: number): string {
    return at >= this.text.length ? 'the end of the file' : JSON.stringify(String.fromCodePoint(this.text.codePointAt(at)!));
  }

  #stop(reason: string): never {
    throw new JsonStop(this.#i, `${reason}, found ${this.#what(this.#i)}`);
  }

  #ws(): void {
    while (this.#i < this.text.length && JSON_WS.has(this.text.charCodeAt(this.#i))) this.#i++;
  }

  /** Consumes `c` when it is next: the closing bracket of an empty or finished container, or a separator. */
  #eat(c: string): boolean {
    if (this.text[this.#i] !== c) return false;
    this.#i++;
    return true;
  }

  #value(): void {
    this.#ws();
    const c = this.text[this.#i];
    if (c === '{') return this.#object();
    if (c === '[') return this.#array();
    if (c === '"') return this.#string();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.#i)) {
        this.#i += word.length;
        return;
      }
    }
    this.#number();
  }

  #object(): void {
    this.#sequence('}', () => this.#member(), "expected ',' or '}' after a property value");
  }

  /** `"name": value`. */
  #member(): void {
    this.#ws();
    if (this.text[this.#i] !== '"') this.#stop('expected a property name in double quotes');
    this.#string();
    this.#ws();
    if (!this.#eat(':')) this.#stop("expected ':' after a property name");
    this.#value();
  }

  #array(): void {
    this.#sequence(']', () => this.#value(), "expected ',' or ']' after an array element");
  }

  /** An object's members or an array's elements: from the opening bracket, items separated by ',' up to `close`. */
  #sequence(close: '}' | ']', item: () => void, expected: string): void {
    this.#i++; // the opening bracket
    this.#ws();
    if (this.#eat(close)) return;
    for (;;) {
      item();
      this.#ws();
      if (this.#eat(',')) continue;
      if (this.#eat(close)) return;
      this.#stop(expected);
    }
  }

  #string(): void {
    this.#i++; // opening quote
    for (;;) {
      if (this.#i >= this.text.length) this.#stop("expected the string's closing '\"'");
      const c = this.text.charCodeAt(this.#i);
      if (c === 0x22) {
        this.#i++;
        return;
      }
      if (c < 0x20) this.#stop('a line break or control character inside a string must be escaped');
      if (c === 0x5c) this.#escape();
      else this.#i++;
    }
  }

  /** A backslash escape: one of `"\/bfnrt`, or `u` and four hex digits; the error points at what is wrong. */
  #escape(): void {
    const e = this.text[this.#i + 1];
    if (e === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.#i + 2, this.#i + 6))) {
        this.#i += 2;
        this.#stop('expected four hex digits after \\u');
      }
      this.#i += 6;
    } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.#i += 2;
    else {
      this.#i++;
      this.#stop('invalid escape in a string');
    }
  }

  #number(): void {
    JSON_NUMBER.lastIndex = this.#i;
    if (!JSON_NUMBER.test(this.text)) this.#stop('expected a value');
    this.#i = JSON_NUMBER.lastIndex;
  }

  /** The whole text: one value, with whitespace (and a BOM) around it. */
  document(): void {
    if (this.text.charCodeAt(0) === 0xfeff) this.#i = 1; // a BOM: TextDecoder drops it, a hand-read file may not
    this.#value();
    this.#ws();
    if (this.#i < this.text.length) this.#stop('expected the end of the file after the JSON value');
  }
}

/**
 * Where JSON `text` first goes wrong and why: V8's JSON.parse errors give no position for some
 * mistakes ("Unexpected token 'a', "abc" is not valid JSON"), so a small scanner of the JSON grammar
 * (RFC 8259) finds it. Undefined when the scanner finds nothing wrong. (VS Code's jsonc-parser, tried
 * for this, reports where the bad token starts: the opening quote of a string with a raw line break
 * in it, not the line break; this scanner names the character itself.)
 */
export function jsonSyntaxErrorAt(text: string): { offset: number; reason: string } | undefined {
  try {
    new JsonScanner(text).document();
    return undefined;
  } catch (err) {
    if (err instanceof JsonStop) return { offset: err.offset, reason: err.reason };
    throw err;
  }
}

/**
 * Parses JSON; a syntax error becomes one line with the line and column of the mistake, e.g.
 * `line 3, column 12: expected ',' or '}' after a property value, found "\""`.
 * Throws `new make(message)` so each caller keeps its own error class.
 */
export function parseJsonText<E extends Error>(text: string, make: new (message: string) => E, prefix: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const at = jsonSyntaxErrorAt(text);
    if (at) throw new make(`${prefix}: ${lineAndColumn(text, at.offset)}: ${at.reason}`);
    throw new make(`${prefix}: ${(err as Error).message}`);
  }
}
