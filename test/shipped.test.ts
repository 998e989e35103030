// The self-contained build a task ships (dist/bundle/quotecheck/, scripts/bundle.ts), run by itself from a folder of
// its own with no package around it: every command a task uses works from it (run with its HTML worker threads and
// pdftotext shells, verify, mcp, grade, export), and its grader needs nothing but Node.js; and the builds a task ships
// (the oracle, `run` alone, packed with its loader; the agent's tool, run, verify and mcp).
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, test } from 'vitest';
import { BUNDLE_FILES, ORACLE_PACK, TASK_BUILDS, shippedDir } from '../src/task/ship.js';
import { makeTask } from './support/harbor-helpers.js';
import { ROOT, serve, tempDir, writeJson } from './support/helpers.js';
import { GRADER_SOURCE, graderImports } from '../scripts/bundle.js';

const execFileAsync = promisify(execFile);

/**
 * A copy of the builds alone in a temp folder (dist/bundle/ as it is: the whole command line's folder, the task builds
 * beside it): no node_modules, no dist/, no package.json above it. Returns the command line's folder.
 */
function isolatedCopy(): string {
  const bundle = join(tempDir('quotecheck-shipped-'), 'bundle');
  cpSync(dirname(shippedDir()), bundle, { recursive: true });
  return join(bundle, 'quotecheck');
}

const entry = (dir: string, file: string): string => join(dir, basename(file));

const PAGE =
  '<html><head><title>Harbour</title></head><body><article><p>The harbour master counted forty-two ships before the storm.</p><p>Nobody left the pier.</p></article></body></html>';

describe('the shipped build, alone', () => {
  test('run: an HTML page through the worker threads and a PDF through pdftotext, as the installed CLI answers them', async () => {
    const server = await serve([
      { path: '/page', body: PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } },
      { path: '/paper.pdf', file: 'tracemonkey-p1.pdf', headers: { 'content-type': 'application/pdf' } },
    ]);
    const dir = isolatedCopy();
    const work = tempDir();
    const claims = writeJson(join(work, 'claims.json'), [
      { id: 'h1', quote: 'counted forty-two ships', url: `${server.origin}/page` },
      { id: 'h2', quote: 'counted forty-three ships', url: `${server.origin}/page` },
      { id: 'p1', quote: 'Trace-based Just-in-Time Type Specialization', url: `${server.origin}/paper.pdf` },
    ]);
    const out = join(work, 'answers.json');
    const report = join(work, 'report.jsonl');
    // Asynchronously: the loopback server answers from this very process. Its own folder as the working folder.
    await execFileAsync(
      process.execPath,
      [
        entry(dir, BUNDLE_FILES.quotecheck),
        'run',
        '--allow-private',
        '--quiet',
        '--claims',
        claims,
        '--out',
        out,
        '--report',
        report,
      ],
      { cwd: dir },
    );
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ h1: 'verbatim', h2: 'no_match', p1: 'verbatim' });
    const rows = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; extractor: string; diagnosis: string });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.extractor]))).toEqual({
      h1: 'readability',
      h2: 'readability',
      p1: 'pdftotext',
    });
    expect(rows.find((r) => r.id === 'h2')!.diagnosis).toBe('near_miss');
  });

  test("verify, grade and export; the MCP server lists its tools to the SDK's own client", async () => {
    const server = await serve([
      { path: '/page', body: PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } },
    ]);
    const dir = isolatedCopy();
    const cli = entry(dir, BUNDLE_FILES.quotecheck);
    const verify = await execFileAsync(process.execPath, [
      cli,
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/page`,
      '--quote',
      'Nobody left the pier',
      '--json',
    ]);
    expect(JSON.parse(verify.stdout)).toMatchObject({ label: 'verbatim', diagnosis: 'verbatim' });

    const work = tempDir();
    writeJson(join(work, 'gold.json'), { a: 'verbatim', b: 'no_match' });
    writeJson(join(work, 'answers.json'), { a: 'verbatim', b: 'verbatim' });
    const graded = spawnSync(
      process.execPath,
      [
        cli,
        'grade',
        '--answers',
        join(work, 'answers.json'),
        '--gold',
        join(work, 'gold.json'),
        '--reward',
        join(work, 'reward.txt'),
      ],
      { encoding: 'utf8' },
    );
    expect(graded.status, graded.stderr).toBe(0);
    expect(readFileSync(join(work, 'reward.txt'), 'utf8')).toBe('0.5\n');
    expect(graded.stdout).toContain('accuracy 0.500 (1/2 correct)\nanswered 1.000, overclaim 1.000, missed 0.000\n');

    // export from the build itself ships the build itself, byte for byte.
    writeFileSync(
      join(work, 'l.jsonl'),
      `${JSON.stringify({ id: 'a', quote: 'q', url: 'https://example.org/a', label: 'verbatim' })}\n`,
    );
    const exported = spawnSync(
      process.execPath,
      [cli, 'export', '--labelled', join(work, 'l.jsonl'), '--out', join(work, 'ds'), '--name', 'x'],
      {
        encoding: 'utf8',
      },
    );
    expect(exported.status, exported.stderr).toBe(0);
    expect(
      readFileSync(join(work, 'ds', 'x-001', 'solution', ORACLE_PACK)).equals(
        readFileSync(join(dir, '..', TASK_BUILDS.oraclePack)),
      ),
    ).toBe(true);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', '--allow-private'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'quotecheck-shipped-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['check_claims', 'read_source', 'search_source', 'verify_quote']);
      const r = await client.callTool({
        name: 'verify_quote',
        arguments: { url: `${server.origin}/page`, quote: 'counted forty-two ships' },
      });
      expect(JSON.stringify(r.content)).toContain('verbatim');
    } finally {
      await client.close();
    }
  }, 60_000);

  test("solve.sh writes the answers even where the agent's log folder cannot be written (it says so, and skips the report)", async () => {
    const server = await serve([
      { path: '/page', body: PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } },
    ]);
    const dir = tempDir();
    const task = makeTask(dir, 't', [
      { id: 'h1', quote: 'counted forty-two ships', url: `${server.origin}/page`, gold: 'verbatim' },
    ]);
    const app = join(dir, 'app');
    cpSync(join(task, 'environment', 'claims.json'), join(app, 'claims.json'));
    const r = await execFileAsync('bash', [join(task, 'solution', 'solve.sh')], {
      env: { ...process.env, QUOTECHECK_APP_DIR: app, QUOTECHECK_AGENT_LOGS: '/dev/null/logs' },
    });
    expect(r.stderr).toContain('solve.sh: /dev/null/logs cannot be written: no evidence report');
    expect(JSON.parse(readFileSync(join(app, 'answers.json'), 'utf8'))).toEqual({ h1: 'verbatim' });
  });

  test("the grader is its source, byte for byte: readable (commented, not minified), type-checked, Node's own modules only", () => {
    const grader = readFileSync(join(shippedDir(), basename(BUNDLE_FILES.grader)), 'utf8');
    expect(grader).toBe(readFileSync(join(ROOT, 'src', GRADER_SOURCE), 'utf8'));
    const imports = graderImports(grader);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((m) => !m.startsWith('node:'))).toEqual([]);
    expect(grader).not.toMatch(/\brequire\(/);
    // What a reader finds: TypeScript's check switched on in the file, lines of the project's width (120 columns), a
    // comment for about every three lines of code, and a size one reads in a sitting (at that width).
    const lines = grader.split('\n');
    expect(lines[0]).toBe('// @ts-check');
    expect(lines.filter((l) => l.length > 120)).toEqual([]);
    const comments = lines.filter((l) => /^\s*(\/\/|\/\*|\*)/.test(l)).length;
    expect(comments / lines.length).toBeGreaterThan(0.25);
    expect(lines.length).toBeLessThan(850);
  });

  test('the grader run alone (node grade.mjs): both reward files, and the grade with the failure shape on stdout', () => {
    const dir = isolatedCopy();
    const work = tempDir();
    writeJson(join(work, 'gold.json'), { a: 'verbatim', b: 'no_match', c: 'verbatim' });
    writeJson(join(work, 'answers.json'), { a: 'verbatim', b: 'verbatim', c: 'no_match' });
    const logs = join(work, 'logs');
    const r = spawnSync(
      process.execPath,
      [
        entry(dir, BUNDLE_FILES.grader),
        '--answers',
        join(work, 'answers.json'),
        '--gold',
        join(work, 'gold.json'),
        '--logs',
        logs,
      ],
      {
        encoding: 'utf8',
        env: {},
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^accuracy 0\.333 \(1\/3 correct\)\nanswered 1\.000, overclaim 1\.000, missed 0\.500\n/);
    expect(readFileSync(join(logs, 'reward.txt'), 'utf8')).toBe('0.333333\n');
    expect(JSON.parse(readFileSync(join(logs, 'reward.json'), 'utf8'))).toEqual({
      reward: 0.333333,
      answered: 1,
      overclaim: 1,
      missed: 0.5,
    });
    const usage = spawnSync(process.execPath, [entry(dir, BUNDLE_FILES.grader), '--answers', 'x'], {
      encoding: 'utf8',
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toBe('usage: grade.mjs --answers FILE --gold FILE --logs DIR\n');
  });
});

describe('the builds a task ships: the oracle (run alone, packed, and its loader) and the agent tool', () => {
  const bundle = (): string => dirname(shippedDir());

  test("the oracle's build is `run` alone: help lists no other command, and nothing of the MCP server or the task writer is in it", () => {
    const dir = tempDir();
    execFileSync('tar', ['-xzf', join(bundle(), TASK_BUILDS.oraclePack), '-C', dir]);
    const cli = join(dir, 'quotecheck.mjs');
    const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout;
    expect(help.match(/^ {2}(\w[\w-]*) /gm)?.map((l) => l.trim())).toEqual(['run', 'help']);
    expect(spawnSync(process.execPath, [cli, 'label'], { encoding: 'utf8' }).stderr).toMatch(/unknown command 'label'/);
    const code = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    for (const absent of ['tools/list', 'instruction.md', 'harness_only']) expect(code).not.toContain(absent);
    // Minified whole: the pack is a third of the folder it unpacks to, and the folder holds the worker beside the CLI.
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(['quotecheck.mjs', 'html-worker.mjs']));
  });

  test('the loader runs the unpacked oracle once solve.sh has unpacked it, and says why when it cannot', () => {
    const loader = join(bundle(), TASK_BUILDS.oracleLoader);
    const none = spawnSync(process.execPath, [loader, '--version'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/QUOTECHECK_UNPACKED is not set: run the oracle by its solve\.sh/);
    const dir = tempDir();
    writeFileSync(join(dir, '.unpacked'), '2\n');
    const failed = spawnSync(process.execPath, [loader, '--version'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, QUOTECHECK_UNPACKED: dir },
    });
    expect(failed.status).toBe(2);
    expect(failed.stderr).toMatch(/unpacking the oracle into .* failed \(tar exit status 2\)/);
    execFileSync('tar', ['-xzf', join(bundle(), TASK_BUILDS.oraclePack), '-C', dir]);
    writeFileSync(join(dir, '.unpacked'), '0\n');
    const ok = spawnSync(process.execPath, [loader, '--version'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, QUOTECHECK_UNPACKED: dir },
    });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("the agent's tool is run, verify and mcp, and its MCP server serves the four tools", async () => {
    const cli = join(bundle(), TASK_BUILDS.tool, 'quotecheck.mjs');
    const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout;
    expect(help.match(/^ {2}(\w[\w-]*) /gm)?.map((l) => l.trim())).toEqual(['run', 'verify', 'mcp', 'help']);
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], stderr: 'pipe' });
    const client = new Client({ name: 'quotecheck-tool-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['check_claims', 'read_source', 'search_source', 'verify_quote']);
    } finally {
      await client.close();
    }
  }, 60_000);
});
