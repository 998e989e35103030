// What a task's images hold, read from their Dockerfiles as evaluate plays them without building: the files copied in,
// the ENV lines, the agent's user, the working folder.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ContainerUser } from './namespace-root.js';

/** A Dockerfile's instructions, continuation lines joined, comments and blank lines dropped: [instruction, rest]. */
export type Dockerfile = readonly (readonly [string, string])[];

/** A Dockerfile's text as its instructions (the instruction upper-cased). */
export function parseDockerfile(text: string): Dockerfile {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s*(.*)$/.exec(l)!;
      return [m[1]!.toUpperCase(), m[2]!] as const;
    });
}

/**
 * The Dockerfile at `path`, read once for everything a trial asks of it (its copies, ENV, WORKDIR, users); no
 * instructions when there is none.
 */
export function readDockerfile(path: string): Dockerfile {
  try {
    return parseDockerfile(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
}

/**
 * The files a Dockerfile copies into `dest` (COPY and ADD from the build context), as [context path, path under
 * `dest`]: `COPY a b /tests/` gives [a, a] and [b, b]; `COPY . /tests/` gives ['', '.'] (the whole context, to the
 * folder itself); `COPY x /tests/y` gives [x, y].
 */
export function copiesInto(dockerfile: Dockerfile, dest: string): [string, string][] {
  const copies: [string, string][] = [];
  for (const [op, rest] of dockerfile) {
    if (op !== 'COPY' && op !== 'ADD') continue;
    const args = rest.split(/\s+/).filter((w) => !w.startsWith('--'));
    const to = args.pop();
    if (!to || (to !== dest && !to.startsWith(`${dest}/`))) continue;
    const under = to.slice(dest.length).replace(/^\/+/, '');
    for (const src of args) {
      const rel = src === '.' ? '' : src.replace(/^\.\//, '');
      const into =
        to.endsWith('/') || args.length > 1 || rel === '' ? join(under, rel === '' ? '' : basename(rel)) : under;
      copies.push([rel, into]);
    }
  }
  return copies;
}

/**
 * Every entry of a folder but those named, each as [name, name]: what an image would hold without a Dockerfile to say.
 */
export function everyFile(dir: string, except: ReadonlySet<string>): [string, string][] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => !except.has(f))
        .map((f) => [f, f])
    : [];
}

/** The image's ENV lines, as variables (`ENV K=V` and the old `ENV K V` form; quotes around a value dropped). */
export function imageEnv(dockerfile: Dockerfile): Record<string, string> {
  const env: Record<string, string> = {};
  const unquote = (v: string): string => v.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  for (const [op, rest] of dockerfile) {
    if (op !== 'ENV') continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest)) {
      for (const m of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S*)/g)) env[m[1]!] = unquote(m[2]!);
    } else {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/.exec(rest);
      if (m) env[m[1]!] = unquote(m[2]!.trim());
    }
  }
  return env;
}

/** The image's last WORKDIR, or `fallback`. */
export function workdir(dockerfile: Dockerfile, fallback: string): string {
  const dirs = dockerfile.filter(([op]) => op === 'WORKDIR');
  return dirs.length ? dirs[dirs.length - 1]![1] : fallback;
}

/** The uid Debian's useradd gives the first user it makes (UID_MIN in /etc/login.defs). */
const FIRST_USER_UID = 1000;

/**
 * The task's agent user as its image makes it: a uid given as such, else the `useradd` (or `adduser`) line that
 * makes that name (its `--uid`/`-u`, else the first user uid); a name the Dockerfile never makes gets the first
 * user uid, as a harness's `useradd` would. The group has the same number (useradd's user private group).
 */
export function agentUser(dockerfile: Dockerfile, user: string): ContainerUser {
  if (/^\d+$/.test(user)) {
    const uid = Number(user);
    return { name: `user${uid}`, uid, gid: uid, home: `/home/user${uid}` };
  }
  for (const [op, rest] of dockerfile) {
    if (op !== 'RUN') continue;
    for (const command of rest.split(/&&|;/)) {
      const words = command.trim().split(/\s+/);
      if (words[0] !== 'useradd' && words[0] !== 'adduser') continue;
      if (words[words.length - 1] !== user) continue;
      const at = words.findIndex((w) => w === '--uid' || w === '-u');
      const uid = at >= 0 ? Number(words[at + 1]) : Number.NaN;
      const id = Number.isInteger(uid) ? uid : FIRST_USER_UID;
      return { name: user, uid: id, gid: id, home: `/home/${user}` };
    }
  }
  return { name: user, uid: FIRST_USER_UID, gid: FIRST_USER_UID, home: `/home/${user}` };
}
