// The version of the pdftotext a process would run (`pdftotext -v`): what a label's evidence records beside its
// extractor (src/dataset/label.ts), and what a frozen edition's check compares with the labels' (frozen-check.ts).
import { spawnSync } from 'node:child_process';

/** Versions already asked for, by command and PATH: a label run asks once. */
const known = new Map<string, string | undefined>();

/**
 * The version `command -v` prints (`pdftotext version 22.12.0`, on stderr), found on `path` (default: this process's
 * PATH); undefined when it cannot be run or prints none.
 */
export function pdftotextVersion(command = 'pdftotext', path = process.env.PATH ?? ''): string | undefined {
  const key = `${command}\0${path}`;
  if (known.has(key)) return known.get(key);
  const r = spawnSync(command, ['-v'], { encoding: 'utf8', timeout: 10_000, env: { PATH: path } });
  const version = /\bpdftotext version ([0-9][0-9A-Za-z.+~-]*)/.exec(`${r.stderr ?? ''}\n${r.stdout ?? ''}`)?.[1];
  known.set(key, version);
  return version;
}
