// The User-Agent: by default the product, its version and what it does, with no URL (quotecheck has no public page); a contact given with --user-agent is sent as given.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_OPTIONS, DEFAULT_USER_AGENT, VERSION } from '../../src/config/defaults.js';
import { claimsRun, ROOT, runCliInProcess, serve } from '../support/helpers.js';

/** RFC 9110 §10.1.5: User-Agent = product *( RWS ( product / comment ) ); product = token ["/" token]; comment = "(" *( ctext / quoted-pair / comment ) ")". */
function userAgentParts(value: string): string[] | null {
  const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
  const parts: string[] = [];
  let rest = value;
  while (rest !== '') {
    if (parts.length > 0) {
      const space = /^[ \t]+/.exec(rest);
      if (!space) return null;
      rest = rest.slice(space[0].length);
    }
    if (rest.startsWith('(')) {
      let depth = 0;
      let i = 0;
      for (; i < rest.length; i++) {
        const c = rest[i]!;
        if (c === '\\') i++;
        else if (c === '(') depth++;
        else if (c === ')' && --depth === 0) break;
        else if (!/[\t \x21-\x7E\x80-\xFF]/.test(c)) return null;
      }
      if (depth !== 0) return null;
      parts.push(rest.slice(0, i + 1));
      rest = rest.slice(i + 1);
      continue;
    }
    const product = TOKEN.exec(rest);
    if (!product) return null;
    let end = product[0].length;
    if (rest[end] === '/') {
      const version = TOKEN.exec(rest.slice(end + 1));
      if (!version) return null;
      end += 1 + version[0].length;
    }
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  return parts.length > 0 && !parts[0]!.startsWith('(') ? parts : null;
}

describe('the default User-Agent', () => {
  test('is quotecheck/VERSION and a comment saying what it does, by RFC 9110 grammar, and names no URL or address (there is no page to name)', () => {
    expect(DEFAULT_OPTIONS.userAgent).toBe(DEFAULT_USER_AGENT);
    expect(userAgentParts(DEFAULT_USER_AGENT)).toEqual([
      `quotecheck/${VERSION}`,
      '(automated quote verification for benchmarks)',
    ]);
    // No link of any kind: a scheme, a host-like word, a "+" link or an e-mail address.
    expect(DEFAULT_USER_AGENT).not.toMatch(/[a-z][a-z0-9+.-]*:|www\.|\+\S|@|\.(com|org|io|dev|net)\b/i);
    // The grammar check itself refuses what is not a User-Agent.
    expect(userAgentParts('(comment first)')).toBeNull();
    expect(userAgentParts('quotecheck/0.1.0 (unclosed')).toBeNull();
  });

  test('is what a run sends, and --user-agent with a contact is sent as given', async () => {
    const seen: string[] = [];
    const server = await serve([
      {
        path: '/p',
        handler: (req, res) => {
          seen.push(String(req.headers['user-agent']));
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('the words');
        },
      },
    ]);
    const { claims, out } = claimsRun([{ id: 'a', quote: 'the words', url: `${server.origin}/p` }]);
    const plain = await runCliInProcess(['run', '--allow-private', '--quiet', '--claims', claims, '--out', out]);
    expect(plain.code, plain.stderr).toBe(0);
    const contact = `quotecheck/${VERSION} (automated quote verification for benchmarks; +https://example.org/our-benchmark; bench@example.org)`;
    expect(userAgentParts(contact)).toHaveLength(2);
    const own = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      claims,
      '--out',
      out,
      '--user-agent',
      contact,
    ]);
    expect(own.code, own.stderr).toBe(0);
    const verify = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/p`,
      '--quote',
      'the words',
      '--user-agent',
      contact,
    ]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(seen).toEqual([DEFAULT_USER_AGENT, contact, contact]);
  });

  test('the command reference gives the default as it is and says how to add a contact', () => {
    const cli = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
    expect(cli).toContain(`| \`--user-agent STRING\` | \`${DEFAULT_USER_AGENT}\` |`);
    expect(cli).toContain('### A contact in the User-Agent');
    expect(cli).toMatch(
      /--user-agent 'quotecheck\/0\.1\.0 \(automated quote verification for benchmarks; \+https:\/\/example\.org\/[^ ]+; [^ ]+@example\.org\)'/,
    );
    expect(cli).not.toContain('npmjs.com/package/quotecheck');
  });
});
