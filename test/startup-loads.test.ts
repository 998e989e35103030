// Start-up: a command loads what it uses, when it uses it (Issue 27). `run` sends its first request before it has
// loaded the extract stage, the cookie jar, the progress bar or anything of the MCP server or the archive, and
// `run --baseline`, which fetches nothing, loads no HTTP client at all. Every module the process resolves is logged
// by resolution hooks (test/fixtures/load-log/), read at the moment the loopback source sees the first request.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, FIXTURES, ROOT, serve, tempDir } from './support/helpers.js';

const REGISTER = join(FIXTURES, 'load-log', 'register.mjs');
const QUOTE = 'a sentence the page holds';

/** The modules logged so far, as paths under the project (node_modules/<package>/... or dist/src/...). */
function loaded(log: string): string[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((url) => decodeURIComponent(new URL(url).pathname).replace(`${ROOT}/`, ''));
}

/** The CLI (bin/quotecheck.js over dist/src/) with the hooks, to completion. */
function runLogged(args: string[], log: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER, CLI, ...args], {
      stdio: 'ignore',
      env: { ...process.env, QUOTECHECK_LOAD_LOG: log },
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

/** What no command needs before its first request: the stages that read bodies, the optional features, the other commands. */
const NOT_BEFORE_THE_FIRST_REQUEST = [
  /^dist\/src\/extract\/(index|html|decode|markup|pdf\/pdftotext)\.js$/,
  /^dist\/src\/extract\/lightdom\//,
  /node_modules\/(htmlparser2|@mozilla\/readability|chardet|jsdom|tough-cookie|cli-progress|@modelcontextprotocol)\//,
  /^dist\/src\/(mcp|archive)\//,
  // The rooms of tasks, datasets, evaluation and the audit; but the verifier modes (export --verifier's choices, a
  // module of constants).
  /^dist\/src\/(results|evaluate|dataset|audit)\//,
  /^dist\/src\/task\/(?!verifier-mode\.js$)/,
];

describe("start-up: what a command loads before it does its work (the installed CLI's modules, as the bundle's chunks split them)", () => {
  test('run: the first request goes out before the extract stage, the cookie jar, the progress bar, the MCP server or the archive are loaded', async () => {
    const dir = tempDir();
    const log = join(dir, 'loaded.log');
    let atFirstRequest: string[] | undefined;
    const server = await serve([
      {
        path: '/page',
        handler: (_req, res) => {
          atFirstRequest ??= loaded(log);
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<!doctype html><title>t</title><p>Before it, ${QUOTE}, and after.</p>`);
        },
      },
    ]);
    const claims = join(dir, 'claims.json');
    writeFileSync(claims, JSON.stringify([{ id: 'a', quote: QUOTE, url: `${server.origin}/page` }]));
    const out = join(dir, 'answers.json');
    expect(
      await runLogged(['run', '--quiet', '--allow-private', '--wayback', 'off', '--claims', claims, '--out', out], log),
    ).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ a: 'verbatim' });
    expect(atFirstRequest).toBeDefined();
    // The log works: the HTTP client was loaded by then, and the extract stage by the end.
    expect(atFirstRequest!.some((p) => p.includes('node_modules/undici/'))).toBe(true);
    expect(loaded(log)).toContain('dist/src/extract/html.js');
    expect(atFirstRequest!.filter((p) => NOT_BEFORE_THE_FIRST_REQUEST.some((re) => re.test(p)))).toEqual([]);
  });

  test('run --baseline fetches nothing and loads no HTTP client, no network rule and no stage', async () => {
    const dir = tempDir();
    const log = join(dir, 'loaded.log');
    const claims = join(dir, 'claims.json');
    writeFileSync(claims, JSON.stringify([{ id: 'a', quote: QUOTE, url: 'http://127.0.0.1:9/a' }]));
    const out = join(dir, 'answers.json');
    expect(await runLogged(['run', '--baseline', '--quiet', '--claims', claims, '--out', out], log)).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ a: 'no_match' });
    const all = loaded(log);
    expect(all).toContain('dist/src/cli/actions/run.js');
    // (fetch/policy.js, the retry statuses `--help` names, is constants only.)
    const needless = [
      /node_modules\/(undici|ipaddr\.js)\//,
      /^dist\/src\/(fetch\/(?!policy\.js)|extract|run\/loop|match|diagnose|wayback)/,
      ...NOT_BEFORE_THE_FIRST_REQUEST,
    ];
    expect(all.filter((p) => needless.some((re) => re.test(p)))).toEqual([]);
  });
});
