// Test helpers for the Harbor side: a task built from quotecheck's own templates, and headless Chromium for the HTML reports.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { solveScript, taskToml, testScript } from '../src/harbor/templates.js';
import { fileTempDir } from './helpers.js';

/** Debian's Chromium (CI installs it); tests that need it are skipped, saying so, when it is missing. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Headless Chromium in a fresh profile (Playwright takes it as the persistent context's folder, not as --user-data-dir), off the network. */
export function launchChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
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
  return elements.evaluateAll((els) => els.map((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return range.getBoundingClientRect().right;
  }));
}

/** A Harbor task built from quotecheck's own templates; the oracle does not retry, so a dead source fails at once. */
export function makeTask(root: string, name: string, claims: { id: string; quote: string; url: string; gold: string }[]): void {
  const dir = join(root, name);
  for (const d of ['environment', 'solution', 'tests']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'task.toml'), taskToml({ agentTimeoutSec: 60, verifierTimeoutSec: 30 }));
  writeFileSync(join(dir, 'environment', 'claims.json'), JSON.stringify(claims.map(({ gold: _g, ...c }) => c)));
  writeFileSync(join(dir, 'solution', 'solve.sh'), solveScript({ runArgs: ['--retries', '0', '--timeout', '5'] }));
  writeFileSync(join(dir, 'tests', 'test.sh'), testScript());
  writeFileSync(join(dir, 'tests', 'gold.json'), JSON.stringify(Object.fromEntries(claims.map((c) => [c.id, c.gold]))));
  for (const f of ['solution/solve.sh', 'tests/test.sh']) chmodSync(join(dir, f), 0o755);
}
