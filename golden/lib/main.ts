import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * True when the module whose `import.meta.url` is given is the script node was started
 * with (`node dist/golden/build.js`), false when it is imported. The golden scripts run
 * their main() only then, so that they can import each other's exports.
 */
export function isMain(metaUrl: string): boolean {
  const arg = process.argv[1];
  if (!arg) return false;
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  };
  const self = real(fileURLToPath(metaUrl));
  const given = path.resolve(arg);
  // `node dist/golden/build` (no extension) runs build.js as well
  return real(given) === self || real(`${given}.js`) === self;
}
