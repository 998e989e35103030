// `npm run bench`: speed numbers, printed as a table and written to bench/results.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { goldenDir, projectRoot } from '../golden/server.js';
import { alignBenchmark } from './align.js';

async function main(): Promise<void> {
  const align = alignBenchmark(join(goldenDir(), 'sources', 'pdf'));
  const rows: [string, string][] = [
    ['alignment: text size', `${align.text_mb} MB`],
    ['alignment: quote length', `${align.quote_chars} chars`],
    ['alignment: nearest span, median', `${align.align_ms_p50} ms`],
    ['alignment: nearest span, slowest', `${align.align_ms_max} ms`],
    ['alignment: similarity of the planted misquote', String(align.found_similarity)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
  const out = join(projectRoot(), 'bench', 'results.json');
  mkdirSync(join(projectRoot(), 'bench'), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ align }, null, 2)}\n`);
  process.stdout.write(`\nwrote ${out}\n`);
}

await main();
