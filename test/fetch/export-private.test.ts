// Issue 33: export refuses labelled claims whose sources are on private networks unless told (--allow-private), before
// anything is written, naming the claims and the flag: the tasks' oracle would refuse them (the network rule).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refusedHost } from '../../src/fetch/address.js';
import { runCliInProcess, tempDir, writeJson } from '../support/helpers.js';

describe("the network rule by a URL's host alone", () => {
  it('refuses IP literals outside global unicast (IPv4 inside IPv6 as itself) and localhost names; names need a lookup', () => {
    const refused: [string, string][] = [
      ['http://127.0.0.1:8080/a', '127.0.0.1 is loopback (127.0.0.0/8)'],
      ['http://2130706433/', '127.0.0.1 is loopback (127.0.0.0/8)'],
      ['http://0x7f.1/', '127.0.0.1 is loopback (127.0.0.0/8)'],
      ['http://10.0.0.5/p', '10.0.0.5 is private (10.0.0.0/8)'],
      ['https://192.168.1.20/x', '192.168.1.20 is private (192.168.0.0/16)'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is link local (169.254.0.0/16)'],
      ['http://[::1]/', '::1 is loopback (::1/128)'],
      ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is IPv4-mapped, carrying 127.0.0.1: loopback (127.0.0.0/8)'],
      ['http://[fd00::5]/', 'fd00::5 is unique local (fc00::/7)'],
      ['http://localhost:3000/', 'localhost is a loopback name'],
      ['http://api.localhost/', 'api.localhost is a loopback name'],
      ['http://LOCALHOST./', 'localhost. is a loopback name'],
    ];
    for (const [url, why] of refused) expect(refusedHost(url), url).toBe(why);
    for (const url of [
      'https://example.org/a',
      'http://8.8.8.8/',
      'http://[2001:4860:4860::8888]/',
      'http://localhost.example.org/',
      'not a url',
    ])
      expect(refusedHost(url), url).toBeUndefined();
  });
});

describe('export and private networks', () => {
  const row = (id: string, url: string) => ({ id, quote: 'a quote', url, label: 'no_match' });

  it('refuses claims on private networks without --allow-private: the first three named, the rest counted, the flag named, nothing written', async () => {
    const dir = tempDir();
    const labelled = writeJson(join(dir, 'l.json'), [
      row('public', 'https://example.org/a'),
      row('loop', 'http://127.0.0.1:41733/news#p2'),
      row('mapped', 'http://[::ffff:7f00:1]/x'),
      row('lan', 'http://192.168.1.20/report.pdf'),
      row('local', 'http://localhost:8080/'),
      row('unique', 'http://[fd00::5]/'),
    ]);
    const out = join(dir, 'ds');
    const r = await runCliInProcess(['export', '--labelled', labelled, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'quotecheck: error: 5 claims cite sources on private networks, which the tasks\' oracle would refuse: "loop" (http://127.0.0.1:41733/news: ' +
        '127.0.0.1 is loopback (127.0.0.0/8)), "mapped" (http://[::ffff:7f00:1]/x: ::ffff:7f00:1 is IPv4-mapped, carrying 127.0.0.1: loopback ' +
        '(127.0.0.0/8)), "lan" (http://192.168.1.20/report.pdf: 192.168.1.20 is private (192.168.0.0/16)), and 2 more; if the tasks are meant to ' +
        "reach them (tests, an intranet), pass --allow-private (it goes into solve.sh's run and the MCP server's arguments)\n",
    );
    expect(existsSync(out)).toBe(false);
    // Told, the export writes them, and the oracle's run is told too.
    const allowed = await runCliInProcess([
      'export',
      '--labelled',
      labelled,
      '--out',
      out,
      '--allow-private',
      '--name',
      'p',
    ]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(readFileSync(join(out, 'p-001', 'solution', 'solve.sh'), 'utf8')).toContain('--allow-private');
  });

  it('one claim is named in the singular; public sources need nothing', async () => {
    const dir = tempDir();
    const one = await runCliInProcess([
      'export',
      '--labelled',
      writeJson(join(dir, 'one.json'), [row('a', 'http://10.0.0.5/p')]),
      '--out',
      join(dir, 'a'),
    ]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(
      /^quotecheck: error: 1 claim cites a source on a private network, which the tasks' oracle would refuse: "a" \(http:\/\/10\.0\.0\.5\/p: 10\.0\.0\.5 is private \(10\.0\.0\.0\/8\)\); if the tasks are meant to reach it/,
    );
    const pub = await runCliInProcess([
      'export',
      '--labelled',
      writeJson(join(dir, 'pub.json'), [row('b', 'https://example.org/')]),
      '--out',
      join(dir, 'b'),
    ]);
    expect(pub.code, pub.stderr).toBe(0);
  });
});
