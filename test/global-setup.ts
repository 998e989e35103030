// Before the suite: the self-contained builds a task ships (scripts/bundle.ts), made from src/ itself, so that tests
// of the oracle, the grader and the WARC reader never run a stale build; the golden tasks get theirs.
import { buildBundles } from '../scripts/bundle.js';
import { installGoldenShipped } from '../golden/lib/tasks.js';

export default async function setup(): Promise<void> {
  await buildBundles();
  installGoldenShipped();
}
