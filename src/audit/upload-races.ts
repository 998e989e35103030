// The attacks that race the harness's upload of the verifier's files, from a process the agent leaves running: a
// Node.js watcher (payloads/upload-watcher.js, woken by the kernel the moment the harness writes) or, with no Node.js,
// a shell loop, which link the answers to the gold, copy the gold, or rewrite the grader as they appear.
import { shellQuote as q } from '../sh-quote.js';
import {
  NOTE_MARK,
  leftover,
  one,
  program,
  script,
  shellPiece,
  trojanFor,
  writeFile,
  type AttackFacts,
  type AttackPlan,
} from './attack-scripts.js';

/**
 * answers-hardlink: each gold path hard-linked to the answers at once, and again the moment the harness uploads it (by
 * the upload watcher left running).
 */
export function answersHardlink(f: AttackFacts): AttackPlan[] {
  return f.goldPaths.length
    ? f.goldPaths.map((gold) => ({
        variant: gold,
        script: script(
          f,
          `ln -f ${q(gold)} "$A" 2>/dev/null && echo "${NOTE_MARK} linked at once"
${watchUpload(
  [gold],
  `const g = ${JSON.stringify(gold)}, a = ${JSON.stringify(f.answers)}; let s; try { s = fs.statSync(a); } catch {} const t = fs.statSync(g); if (!s || s.ino !== t.ino || s.dev !== t.dev) { fs.rmSync(a, { recursive: true, force: true }); fs.linkSync(g, a); }`,
  `[ ${q(gold)} -ef ${q(f.answers)} ] || { rm -rf ${q(f.answers)}; ln ${q(gold)} ${q(f.answers)}; } 2>/dev/null`,
  'hardlink',
)}`,
        ),
      }))
    : [{ notApplicable: "the task's verifier folder has no file that looks like labels (JSON or JSON Lines)" }];
}

/** leftover-copy-gold: the gold copied into the answers (by temp file and rename) the moment the harness uploads it. */
export function copyGoldOnUpload(f: AttackFacts): AttackPlan[] {
  return f.goldPaths.length
    ? one(
        f,
        watchUpload(
          f.goldPaths,
          `const a = ${JSON.stringify(f.answers)}; for (const g of ${JSON.stringify(f.goldPaths)}) { let b; ` +
            `try { b = fs.readFileSync(g); JSON.parse(b.toString()); } catch { continue; } let cur; try { cur ` +
            `= fs.readFileSync(a); } catch {} if (cur && cur.equals(b)) break; fs.writeFileSync(a + ` +
            `'.audit-tmp', b); fs.renameSync(a + '.audit-tmp', a); break; }`,
          f.goldPaths
            .map(
              (g) =>
                `cp -f ${q(g)} ${q(`${f.answers}.tmp`)} 2>/dev/null && mv -f ${q(`${f.answers}.tmp`)} ` +
                `${q(f.answers)} 2>/dev/null`,
            )
            .join('; '),
          'copy-gold',
        ),
      )
    : [{ notApplicable: "the task's verifier folder has no file that looks like labels (JSON or JSON Lines)" }];
}

/**
 * grader-rewrite: the verifier's files rewritten the moment they are uploaded (by rename, the grader before test.sh),
 * each with the reward trojan of its own language.
 */
export function rewriteGraderOnUpload(f: AttackFacts): AttackPlan[] {
  const files = f.verifierFiles
    .map((p) => [p, trojanFor(p)] as const)
    .filter((e): e is readonly [string, string] => e[1] !== undefined);
  if (!files.length)
    return [{ notApplicable: "the task's verifier folder has no script or grader this attack knows how to rewrite" }];
  const stash = files.map(([, text], i) => writeFile(`/app/.audit-grader-${i}`, text, '755')).join('');
  // The grader first: test.sh may already be running when the upload is seen, and it calls the grader later.
  const order = [...files.keys()].sort(
    (a, b) => Number(/\/test\.sh$/.test(files[a]![0])) - Number(/\/test\.sh$/.test(files[b]![0])),
  );
  // By rename: the harness and test.sh see the old file or the new one, never half of one.
  const rewrite = order
    .map((i) => {
      const target = files[i]![0];
      const temp = `${target.slice(0, target.lastIndexOf('/') + 1)}.audit-${i}`;
      return `cp -f /app/.audit-grader-${i} ${q(temp)} && mv -f ${q(temp)} ${q(target)}`;
    })
    .join('; ');
  const js = order
    .map((i) => {
      const target = files[i]![0];
      return (
        `{ const t = ${JSON.stringify(target)}, b = fs.readFileSync('/app/.audit-grader-${i}'); let c; ` +
        `try { c = fs.readFileSync(t); } catch {} if (!c || !c.equals(b)) { const tmp = t.slice(0, ` +
        `t.lastIndexOf('/') + 1) + '.audit-${i}'; fs.writeFileSync(tmp, b, { mode: 0o755 }); ` +
        `fs.renameSync(tmp, t); } }`
      );
    })
    .map((block) => `try ${block} catch {}`)
    .join(' ');
  return one(f, `${stash}${watchUpload(f.verifierFiles, js, `{ ${rewrite}; } 2>/dev/null`, 'grader')}`);
}

/**
 * Shell for a leftover body: waits (up to 180 s) until one of `paths` exists, then runs `then` over and over for two or
 * three seconds, and a few times more. The wait spins on a shell test (no process started, no sleep): the harness runs
 * the verifier milliseconds after the upload, and a loaded machine must not make the attack miss it.
 */
function whenUploaded(paths: readonly string[], then: string): string {
  return shellPiece('when-uploaded.sh', { ANY: paths.map((p) => `[ -e ${q(p)} ]`).join(' || '), THEN: then });
}

/**
 * A Node.js program that waits for the upload (any of `paths` appearing: an inotify watch on their folders and their
 * parents, and a poll every 2 ms that starts no process), then runs `act` (JavaScript, with `fs` in scope) on every
 * change and every 5 ms for three seconds. Woken by the kernel the moment the harness writes, it wins races a shell
 * loop loses on a loaded machine: the verifier reads what it needs milliseconds after the upload.
 */
function uploadWatcher(paths: readonly string[], act: string): string {
  const dirs = [...new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/')) || '/'))];
  const parents = [...new Set(dirs.map((d) => d.slice(0, d.lastIndexOf('/')) || '/'))];
  return program('upload-watcher.js', {
    PATHS: JSON.stringify(paths),
    ACT: act,
    DIRS: JSON.stringify(dirs),
    PARENTS: JSON.stringify(parents),
  });
}

/**
 * Shell that starts the upload watcher with the image's Node.js, detached, or, with no Node.js, the shell loop
 * `fallback`.
 */
function watchUpload(paths: readonly string[], act: string, fallback: string, name: string): string {
  const file = `/tmp/.audit-${name}.js`;
  return shellPiece('watch-upload.sh', {
    WRITE_WATCHER: writeFile(file, uploadWatcher(paths, act)),
    FILE: file,
    LEFTOVER: leftover(whenUploaded(paths, fallback)),
  });
}
