// What a task's agent reads is written once and rendered in many variants: each one reads cleanly, with no word said
// twice in a row (the frozen instruction once read "at its date).date).") and every bracket closed.
import { describe, expect, test } from 'vitest';
import { instruction } from '../../src/task/instruction.js';

/** Every variant `export` can write: dated claims or not, a frozen edition or not, the skill, the MCP server. */
function variants(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const asOf of [false, true])
    for (const archive of [false, true])
      for (const skill of [false, true])
        for (const mcp of [false, true]) {
          const name = `asOf=${asOf} archive=${archive} skill=${skill} mcp=${mcp}`;
          const opts = { asOf, archive, variant: { skill, mcp }, waybackUrl: 'http://127.0.0.4:8080' };
          out.push({ name, text: instruction(3, ['a', 'b', 'c'], 'a test set', opts) });
        }
  return out;
}

/** A word said twice with only spaces or punctuation between (case ignored): "the the", "date).date)". */
function doubledWords(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\b([A-Za-z]{2,})\b[\s.,;:)(]+\1\b/gi)) found.push(m[0]);
  return found;
}

/** Brackets that do not pair up, in the order they are met: an opener left open or a closer with none. */
function unbalanced(text: string): string[] {
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const stack: string[] = [];
  const bad: string[] = [];
  for (const [i, ch] of [...text].entries()) {
    if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
    else if (ch in pairs) {
      if (stack.at(-1) === pairs[ch]) stack.pop();
      else bad.push(`${ch} at ${i}: ${text.slice(Math.max(0, i - 40), i + 1)}`);
    }
  }
  return [...bad, ...stack.map((ch) => `${ch} never closed`)];
}

describe('task instructions read cleanly in every variant', () => {
  test('the checks catch what they are for', () => {
    expect(doubledWords('filed under URL at its date).date).')).toEqual(['date).date']);
    expect(doubledWords('fetch the the source')).toEqual(['the the']);
    expect(doubledWords('the source, then the text')).toEqual([]);
    expect(unbalanced('(a (b) c')).toEqual(['( never closed']);
    expect(unbalanced('a) b')).toHaveLength(1);
    expect(unbalanced('date).date).')).toHaveLength(2);
  });

  test.each(variants())('$name: no word said twice, every bracket closed', ({ text }) => {
    expect(doubledWords(text)).toEqual([]);
    expect(unbalanced(text)).toEqual([]);
    expect(text.split('`').length % 2, 'backticks in pairs').toBe(1);
  });
});
