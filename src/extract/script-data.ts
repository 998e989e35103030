// The HTML standard's script data states (§13.2.5.4 ff.) reduced to what decides where a script ends: the one scanner
// for the tokenizer (htmlparser2-internals.ts, on the decoded page) and the charset scan (decode.ts, on the bytes).
import { isAsciiWhitespace } from './ascii-whitespace.js';

/**
 * Markup as a string (the decoded page) or as bytes (before decoding, in an ASCII-compatible encoding): everything
 * the scanner looks for is ASCII, the same code in both, and its answers are indices into what it is given.
 */
type Markup = string | Uint8Array;

/** The code unit or byte at `i` (NaN past the end, in both). */
function codeAt(s: Markup, i: number): number {
  return typeof s === 'string' ? s.charCodeAt(i) : (s[i] ?? NaN);
}

const LT = 0x3c;
const BANG = 0x21;
const DASH = 0x2d;
const SLASH = 0x2f;
const GT = 0x3e;

/**
 * Whitespace, `/` or `>`: what may follow a tag name (CR counts: the standard's input stream has none, it is LF by
 * then).
 */
function endsTagName(c: number): boolean {
  return isAsciiWhitespace(c) || c === SLASH || c === GT;
}

/** Whether `s` has "script" (any case) at `at`, followed by whitespace, `/` or `>`. */
function scriptNameAt(s: Markup, at: number): boolean {
  return (
    (codeAt(s, at) | 0x20) === 0x73 && // s
    (codeAt(s, at + 1) | 0x20) === 0x63 && // c
    (codeAt(s, at + 2) | 0x20) === 0x72 && // r
    (codeAt(s, at + 3) | 0x20) === 0x69 && // i
    (codeAt(s, at + 4) | 0x20) === 0x70 && // p
    (codeAt(s, at + 5) | 0x20) === 0x74 && // t
    endsTagName(codeAt(s, at + 6))
  );
}

const enum ScriptState {
  Data,
  Escaped,
  EscapedDash,
  EscapedDashDash,
  DoubleEscaped,
  DoubleEscapedDash,
  DoubleEscapedDashDash,
}

/**
 * Where a script element's content ends: the index of the `<` of the `</script` that closes it, or -1 when
 * it runs to the end of the input. This is the HTML standard's tokenizer from the script data state
 * (§13.2.5.4) through the script data escaped and double escaped states (§13.2.5.15–13.2.5.31), reduced to
 * what decides the end; everything before it is the script's text.
 *
 * - script data: `</script` followed by whitespace, `/` or `>` ends the script; `<!--` enters the escaped
 *   states (script data escape start, escape start dash, escaped dash dash);
 * - escaped (`<!--` seen): `-->` returns to script data; `</script` still ends the script; `<script` followed
 *   by whitespace, `/` or `>` enters the double escaped states (script data double escape start);
 * - double escaped: `</script` does NOT end the script, it returns to escaped (script data double escape
 *   end); `-->` returns to script data.
 *
 * So in `<script><!-- document.write("<script src=x></script>") --></script>` the first `</script>` is
 * script text and the second ends the element, as in every browser (and jsdom, through parse5). One pass
 * over the content, jumping from `<` to `<` in script data: linear, and as fast as htmlparser2's own scan. The
 * charset scan (decode.ts) runs it on the bytes, where a script's content is not markup either.
 */
export function scriptDataEnd(s: Markup, from: number): number {
  const n = s.length;
  let state = ScriptState.Data;
  let i = from;
  while (i < n) {
    if (state === ScriptState.Data) {
      // script data state: only `<` matters.
      const lt = typeof s === 'string' ? s.indexOf('<', i) : s.indexOf(LT, i);
      if (lt === -1) return -1;
      i = lt + 1;
      const c = codeAt(s, i);
      if (c === SLASH) {
        // script data end tag open / end tag name: the appropriate end tag ends the script.
        if (scriptNameAt(s, i + 1)) return lt;
      } else if (c === BANG && codeAt(s, i + 1) === DASH && codeAt(s, i + 2) === DASH) {
        // script data escape start, escape start dash: `<!--` puts us in script data escaped dash dash.
        i += 3;
        state = ScriptState.EscapedDashDash;
      }
      continue;
    }
    const c = codeAt(s, i);
    if (state <= ScriptState.EscapedDashDash) {
      if (c === DASH) {
        state = state === ScriptState.Escaped ? ScriptState.EscapedDash : ScriptState.EscapedDashDash;
        i++;
      } else if (c === LT) {
        // script data escaped less-than sign state.
        const next = codeAt(s, i + 1);
        if (next === SLASH && scriptNameAt(s, i + 2)) return i; // escaped end tag name: appropriate, so the script ends
        state = ScriptState.Escaped;
        if ((next | 0x20) >= 0x61 && (next | 0x20) <= 0x7a && scriptNameAt(s, i + 1)) {
          // script data double escape start: `<script` + whitespace, `/` or `>` (that character is consumed).
          state = ScriptState.DoubleEscaped;
          i += 8;
        } else {
          i++; // `<`, `</` and tag names are text here; the next character is reconsumed in script data escaped.
        }
      } else if (c === GT && state === ScriptState.EscapedDashDash) {
        state = ScriptState.Data; // `-->`
        i++;
      } else {
        state = ScriptState.Escaped;
        i++;
      }
      continue;
    }
    // script data double escaped, double escaped dash, double escaped dash dash.
    if (c === DASH) {
      state = state === ScriptState.DoubleEscaped ? ScriptState.DoubleEscapedDash : ScriptState.DoubleEscapedDashDash;
      i++;
    } else if (c === LT) {
      // script data double escaped less-than sign; `</script` + whitespace, `/` or `>` is the double escape end.
      if (codeAt(s, i + 1) === SLASH && scriptNameAt(s, i + 2)) {
        state = ScriptState.Escaped;
        i += 9;
      } else {
        state = ScriptState.DoubleEscaped;
        i++;
      }
    } else if (c === GT && state === ScriptState.DoubleEscapedDashDash) {
      state = ScriptState.Data;
      i++;
    } else {
      state = ScriptState.DoubleEscaped;
      i++;
    }
  }
  return -1;
}
