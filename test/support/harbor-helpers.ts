// Test helpers for the Harbor side: a task built from quotecheck's own templates, and headless Chromium for the HTML reports.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Label } from '../../src/output/answers.js';
import { LAYOUTS, type Layout } from '../../src/task/layout.js';
import { writeTaskFolder } from '../../src/task/task-writer.js';
import { fileTempDir } from './helpers.js';
import { instruction } from '../../src/task/instruction.js';

/** Debian's Chromium (CI installs it); tests that need it are skipped, saying so, when it is missing. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Headless Chromium in a fresh profile (Playwright takes it as the persistent context's folder, not as --user-data-dir), off the network. */
export function launchChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * For a describe block of page tests: before them, `write` writes the page (and what it links to) into a temp folder
 * and returns the page's file, and headless Chromium starts in a fresh profile; after them it is closed (the folders go
 * with the file's). Returns `open(hash)`: the page in a new tab.
 */
export function pageInChromium(name: string, write: (dir: string) => string): (hash?: string) => Promise<Page> {
  let browser: BrowserContext | undefined;
  let url = '';
  beforeAll(async () => {
    url = pathToFileURL(write(fileTempDir(`quotecheck-${name}-`))).href;
    browser = await launchChromium(fileTempDir('quotecheck-chromium-'));
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  return async (hash = '') => {
    const page = await browser!.newPage();
    await page.goto(url + hash);
    return page;
  };
}

/** Sub-pixel rounding of text boxes: anything within this is the same edge. */
export const EDGE_PX = 1;

/** The right edge of the text inside each element (not of its box: a cell is as wide as its column whatever its alignment). */
export function textRights(elements: Locator): Promise<number[]> {
  return elements.evaluateAll((els) =>
    els.map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return range.getBoundingClientRect().right;
    }),
  );
}

/** A Harbor task written by quotecheck's own task writer (oracle and grader shipped in it); the oracle does not retry, so a dead source fails at once. */
export function makeTask(
  root: string,
  name: string,
  claims: { id: string; quote: string; url: string; gold: string }[],
  layout: Layout = 'harbor',
): string {
  const dir = join(root, name);
  writeTaskFolder(dir, {
    name,
    layout,
    claims: claims.map(({ gold: _g, ...c }) => c),
    gold: Object.fromEntries(claims.map((c) => [c.id, c.gold as Label])),
    instruction: instruction(
      claims.length,
      claims.map((c) => c.id),
    ),
    config: { agentTimeoutSec: 60, verifierTimeoutSec: 30 },
    variant: {},
    solve: { runArgs: ['--allow-private', '--retries', '0', '--timeout', '5'] },
  });
  return dir;
}

/**
 * Docker's official images (public, built by any harness without a registry login). A task's agent image must start
 * from one of them: never from an image someone has to build first (quotecheck:latest was one).
 */
const OFFICIAL_IMAGES = new Set(['node', 'debian', 'ubuntu', 'python', 'alpine', 'buildpack-deps']);

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
export function dockerInstructions(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((d) => {
    const rel = prefix ? `${prefix}/${d.name}` : d.name;
    return d.isDirectory() ? filesUnder(dir, rel) : [rel];
  });
}

/**
 * What docs/security.md#what-each-side-gets promises of a task's folder, checked file by file: the agent's image starts from public images
 * only and copies nothing its build context lacks; a task that does not give the tool has no quotecheck anywhere in
 * it (Dockerfile, instruction, every file of the environment but the recorded archive, whose WARC headers name the
 * recording software), and one that gives it has the shipped build where its Dockerfile or skill expects it; the
 * oracle ships its own quotecheck and the verifier its own grader. Returns the Dockerfile's instructions.
 */
export function checkTaskFolder(dir: string, opts: { layout?: Layout; skill?: boolean; mcp?: boolean } = {}): string[] {
  const layout = opts.layout ?? 'harbor';
  const env = join(dir, 'environment');
  const steps = dockerInstructions(readFileSync(join(env, 'Dockerfile'), 'utf8'));
  const froms = steps.filter((s) => /^FROM\s/i.test(s));
  expect(froms.length, `${dir}: FROM lines`).toBeGreaterThan(0);
  for (const from of froms) {
    const image = from.split(/\s+/)[1]!;
    const m = /^(?:docker\.io\/library\/)?([a-z0-9-]+)(?::([\w.-]+))?(@sha256:[a-f0-9]{64})?$/.exec(image);
    expect(
      m && OFFICIAL_IMAGES.has(m[1]!) && (m[2] !== undefined || m[3] !== undefined),
      `${dir}: ${from} is not a public official image with a tag or a digest`,
    ).toBe(true);
  }
  for (const copy of steps.filter((s) => /^(COPY|ADD)\s/i.test(s))) {
    const args = copy
      .split(/\s+/)
      .slice(1)
      .filter((a) => !a.startsWith('--'));
    for (const source of args.slice(0, -1))
      expect(existsSync(join(env, source)), `${dir}: ${copy}: ${source} is not in the build context`).toBe(true);
  }
  // The agent's user owns /app (open to any user, sticky) and /logs/agent, not /logs/verifier (root's, sticky);
  // task.toml runs the agent as it.
  expect(
    steps.some(
      (st) =>
        /^RUN useradd .* agent /.test(st) &&
        st.includes('chown agent:agent /app /logs/agent ') &&
        st.endsWith('chmod 1777 /app /logs/verifier'),
    ),
    `${dir}: the agent's user`,
  ).toBe(true);
  const instructionText = readFileSync(join(dir, layout === 'harbor' ? 'instruction.md' : 'task.md'), 'utf8');
  const body = layout === 'harbor' ? instructionText : instructionText.split('\n---\n').slice(1).join('\n---\n');
  if (!opts.skill && !opts.mcp) {
    expect(steps.join('\n'), `${dir}: Dockerfile`).not.toMatch(/quotecheck/i);
    expect(body, `${dir}: instruction`).not.toMatch(/quotecheck/i);
    for (const file of filesUnder(env).filter((f) => !f.endsWith('.warc.gz'))) {
      expect(file, `${dir}: environment file name`).not.toMatch(/quotecheck/i);
      expect(readFileSync(join(env, file), 'latin1'), `${dir}: environment/${file}`).not.toMatch(/quotecheck/i);
    }
  } else {
    expect(body, `${dir}: the instruction says the tool is provided`).toMatch(/## A tool is provided/);
  }
  if (opts.skill)
    expect(
      existsSync(join(env, 'skills', 'quote-verification', 'quotecheck', 'quotecheck.mjs')),
      `${dir}: the skill carries the tool`,
    ).toBe(true);
  if (opts.mcp)
    expect(existsSync(join(env, 'quotecheck', 'quotecheck.mjs')), `${dir}: the MCP server's quotecheck`).toBe(true);
  const { oracle, verifier } = LAYOUTS[layout];
  for (const f of ['solve.sh', 'quotecheck.mjs', 'quotecheck.tgz'])
    expect(existsSync(join(dir, oracle.folder, f)), `${dir}: ${oracle.folder}/${f}`).toBe(true);
  // The packed oracle holds the command line and its HTML worker, side by side at its top.
  const packed = execFileSync('tar', ['-tzf', join(dir, oracle.folder, 'quotecheck.tgz')], { encoding: 'utf8' });
  expect(packed.split('\n'), `${dir}: ${oracle.folder}/quotecheck.tgz`).toEqual(
    expect.arrayContaining(['quotecheck.mjs', 'html-worker.mjs']),
  );
  for (const f of ['test.sh', 'grade.mjs', 'gold.json'])
    expect(existsSync(join(dir, verifier.folder, f)), `${dir}: ${verifier.folder}/${f}`).toBe(true);
  return steps;
}
