// What a benchmark builder trips on, one small thing at a time: help that lists what applies, output on its lines.
import { describe, expect, test } from 'vitest';
import { checkInput, readInput, searchInput, verifyInput } from '../../src/mcp/tool-schemas.js';
import { join } from 'node:path';
import { runCliInProcess, serve, tempDir, writeJson } from '../support/helpers.js';

describe('help says what applies', () => {
  test('mcp --help lists every tool with exactly the inputs its schema takes', async () => {
    const help = (await runCliInProcess(['mcp', '--help'])).stdout;
    const schemas = {
      verify_quote: verifyInput,
      read_source: readInput,
      search_source: searchInput,
      check_claims: checkInput,
    };
    for (const [tool, shape] of Object.entries(schemas)) {
      const line = help.split('\n').find((l) => l.trim().startsWith(`${tool} `));
      expect(line, tool).toBeDefined();
      const listed = line!
        .trim()
        .slice(tool.length)
        .split(',')
        .map((x) => x.trim());
      const expected = Object.entries(shape).map(
        ([name, schema]) => `${name}${(schema as { isOptional(): boolean }).isOptional() ? '?' : ''}`,
      );
      expect(listed, tool).toEqual(expected);
    }
  });

  test('verify --help has every option that applies to one quote, and the modes run has', async () => {
    const help = (await runCliInProcess(['verify', '--help'])).stdout.replace(/\s+/g, ' ');
    for (const option of [
      '--source-budget',
      '--extract-timeout',
      '--wayback-rate',
      '--wayback-url',
      '--evidence',
      '--as-of',
      '--allow-private',
    ])
      expect(help, option).toContain(option);
    expect(help).toContain('one of off, auto, always, strict; default: auto');
  });
});

describe("verify prints the page's text on its lines", () => {
  test('the context and the nearest span keep no raw line breaks or blank lines (--json keeps them)', async () => {
    const text =
      'An introduction.\n\n\n   The harbour master counted forty-two ships\n\n\non the first day.   \n\n\nAnother paragraph follows here.';
    const server = await serve([
      { path: '/t.txt', body: text, headers: { 'content-type': 'text/plain; charset=utf-8' } },
    ]);
    const hit = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/t.txt`,
      '--quote',
      'counted forty-two ships on the first day',
      '--wayback',
      'off',
    ]);
    expect(hit.code).toBe(0);
    expect(hit.stdout).toContain(
      ' The harbour master [counted forty-two ships on the first day]. Another paragraph follows',
    );
    const near = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/t.txt`,
      '--quote',
      'counted forty-three ships on the first day',
      '--wayback',
      'off',
    ]);
    expect(near.code).toBe(1);
    for (const out of [hit.stdout, near.stdout])
      expect(
        out
          .trimEnd()
          .split('\n')
          .filter((l) => l.trim() === ''),
      ).toEqual([]);
    const json = await runCliInProcess([
      'verify',
      '--allow-private',
      '--json',
      '--url',
      `${server.origin}/t.txt`,
      '--quote',
      'counted forty-two ships on the first day',
      '--wayback',
      'off',
    ]);
    expect(JSON.parse(json.stdout).match.selector.exact).toContain('\n');
  });
});

describe('--html-view article', () => {
  test('a quote that is only in the full page says so, instead of "nothing close in the source"', async () => {
    const para = 'The council met on Tuesday and debated the budget for the coming year at great length. '.repeat(6);
    const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Council</title></head><body>
<nav><ul><li>Subscribe to the evening bulletin for daily council updates</li></ul></nav>
<article><h1>Council budget</h1><p>${para}</p><p>${para}</p><p>${para}</p></article></body></html>`;
    const server = await serve([{ path: '/p', body: html, headers: { 'content-type': 'text/html; charset=utf-8' } }]);
    const args = [
      'verify',
      '--allow-private',
      '--json',
      '--url',
      `${server.origin}/p`,
      '--quote',
      'Subscribe to the evening bulletin for daily council updates',
      '--wayback',
      'off',
    ];
    const article = JSON.parse((await runCliInProcess([...args, '--html-view', 'article'])).stdout);
    expect(article.label).toBe('no_match');
    expect(article.note).toMatch(/^the quote is in the full page text, which --html-view article leaves out/);
    expect(JSON.parse((await runCliInProcess(args)).stdout).label).toBe('verbatim');
  });
});

describe('export says what is missing', () => {
  test('a claim without a label is named with the field, never "got undefined"', async () => {
    const dir = tempDir();
    const labelled = writeJson(join(dir, 'l.json'), [
      { id: 'a', quote: 'q', url: 'http://example.org/p', label: 'no_match' },
      { id: 'b', quote: 'q', url: 'http://example.org/p' },
    ]);
    const r = await runCliInProcess(['export', '--labelled', labelled, '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /\(id "b"\): field "label" is missing: a labelled claim needs "label": "verbatim" or "no_match"/,
    );
    expect(r.stderr).not.toContain('undefined');
  });
});
