// Where quotecheck's own package is: the nearest folder at or above a module that holds its package.json (a checkout,
// an installed copy in node_modules, a Docker build stage). Its dist/, skills/ and golden/ are found from there.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Whether `dir` holds quotecheck's own package.json (not some other package's, on the way up from node_modules). */
function holdsPackage(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'quotecheck';
  } catch {
    return false;
  }
}

/** The package's folder at or above `start`, or undefined when there is none (a lone self-contained build). */
export function packageRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (holdsPackage(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
