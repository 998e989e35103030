// Every task.toml quotecheck writes (export and the golden builder, plain, --with-skill, --with-mcp, both) against Harbor's TaskConfig.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildGolden } from '../golden/build.js';
import { planTasks, readLabelled, writeDataset } from '../src/harbor/export.js';
import { GOLDEN_WAYBACK_URL } from '../golden/server.js';
import { ROOT, runCliInProcess, tempDir } from './support/helpers.js';
import { checkTaskFolder } from './support/harbor-helpers.js';
import { shippedDir } from '../src/harbor/ship.js';

/*
 * Harbor's TaskConfig (src/harbor/models/task/config.py of laude-institute/harbor, as of commit
 * 73fd120e731217b38f31667932ea26a28cdd4fff in the fork LegoX/harbor), written strictly: pydantic would ignore an
 * unknown key, so a misspelt one (skill_dir, mcpServers) would silently do nothing; here it fails.
 */
const McpServer = z
  .strictObject({
    name: z.string().min(1),
    transport: z.enum(['sse', 'streamable-http', 'stdio']),
    url: z.string().optional(),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
  })
  .refine((s) => s.transport !== 'stdio' || !!s.command, { message: "'command' is required for transport 'stdio'" })
  .refine((s) => s.transport === 'stdio' || !!s.url, { message: "'url' is required for sse and streamable-http" });

const TaskConfig = z
  .strictObject({
    schema_version: z.string().optional(),
    version: z.string().optional(),
    task: z.record(z.string(), z.unknown()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    verifier: z
      .strictObject({
        timeout_sec: z.number().positive(),
        env: z.record(z.string(), z.string()).optional(),
        user: z.union([z.string(), z.number().int()]).optional(),
      })
      .optional(),
    agent: z.strictObject({ timeout_sec: z.number().positive().optional(), user: z.union([z.string(), z.number().int()]).optional() }).optional(),
    environment: z
      .strictObject({
        build_timeout_sec: z.number().positive().optional(),
        docker_image: z.string().optional(),
        cpus: z.number().int().positive().optional(),
        memory_mb: z.number().int().positive().optional(),
        storage_mb: z.number().int().positive().optional(),
        gpus: z.number().int().nonnegative().optional(),
        allow_internet: z.boolean().optional(),
        skills_dir: z.string().startsWith('/').optional(),
        mcp_servers: z.array(McpServer).optional(),
      })
      .optional(),
    solution: z.record(z.string(), z.unknown()).optional(),
    source: z.string().optional(),
  })
  .refine((c) => c.schema_version !== undefined || c.version !== undefined, { message: 'schema_version (or version) is required' });

type Variant = 'plain' | 'skill' | 'mcp' | 'both';
const VARIANTS: Record<Variant, string[]> = { plain: [], skill: ['--with-skill'], mcp: ['--with-mcp'], both: ['--with-skill', '--with-mcp'] };
const SKILL_MD = readFileSync(join(ROOT, 'skills', 'quote-verification', 'SKILL.md'), 'utf8');

function taskDirs(dataset: string): string[] {
  return readdirSync(dataset)
    .map((d) => join(dataset, d))
    .filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'task.toml')));
}

/** Checks one task folder against the schema and against what its variant promises; returns the parsed config. */
function checkTask(dir: string, variant: Variant, mcpArgs: readonly string[] = ['mcp', '--root', '/app']): z.infer<typeof TaskConfig> {
  const parsed = TaskConfig.safeParse(parseToml(readFileSync(join(dir, 'task.toml'), 'utf8')));
  if (!parsed.success) throw new Error(`${dir}/task.toml: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const config = parsed.data;
  expect(config.verifier?.timeout_sec).toBeGreaterThan(0);
  expect(config.agent?.timeout_sec).toBeGreaterThan(0);
  expect(config.environment).toMatchObject({ cpus: 1, memory_mb: 2048, storage_mb: 4096, build_timeout_sec: 600 });
  const dockerfile = readFileSync(join(dir, 'environment', 'Dockerfile'), 'utf8');
  const skill = variant === 'skill' || variant === 'both';
  const mcp = variant === 'mcp' || variant === 'both';
  const steps = checkTaskFolder(dir, { skill, mcp });
  if (skill) {
    expect(config.environment?.skills_dir).toBe('/skills');
    // The folder skills_dir names is in the image: the Dockerfile copies the build context's skills/ there.
    expect(dockerfile.split('\n')).toContain('COPY skills /skills');
    expect(readFileSync(join(dir, 'environment', 'skills', 'quote-verification', 'SKILL.md'), 'utf8')).toBe(SKILL_MD);
  } else {
    expect(config.environment?.skills_dir).toBeUndefined();
    expect(existsSync(join(dir, 'environment', 'skills'))).toBe(false);
    expect(dockerfile).not.toContain('/skills');
  }
  if (mcp) {
    expect(config.environment?.mcp_servers).toEqual([{ name: 'quotecheck', transport: 'stdio', command: 'quotecheck', args: mcpArgs }]);
    // The shipped build is put on PATH, and the build fails unless the server's command runs and knows `mcp`.
    expect(steps).toContain('RUN ln -s /opt/quotecheck/quotecheck.mjs /usr/local/bin/quotecheck && quotecheck mcp --help > /dev/null');
  } else {
    expect(config.environment?.mcp_servers).toBeUndefined();
    expect(dockerfile).not.toContain('mcp');
  }
  const tags = (config.metadata?.tags ?? []) as string[];
  expect(tags.includes('with-skill')).toBe(skill);
  expect(tags.includes('with-mcp')).toBe(mcp);
  expect(tags.includes('quotecheck-provided')).toBe(skill || mcp);
  // The agent runs as the image's `agent`, the verifier as root.
  expect(config.agent?.user).toBe('agent');
  expect(config.verifier?.user).toBe('root');
  return config;
}

describe('the schema check itself', () => {
  it('rejects unknown keys, wrong types and a stdio server without a command', () => {
    const ok = { version: '1.0', verifier: { timeout_sec: 120 }, environment: { cpus: 1, skills_dir: '/skills' } };
    expect(TaskConfig.safeParse(ok).success).toBe(true);
    expect(TaskConfig.safeParse({ ...ok, mcpServers: [] }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, environment: { skill_dir: '/skills' } }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, environment: { cpus: 1.5 } }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, verifier: { timeout_sec: '120' } }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, environment: { mcp_servers: [{ name: 'q', transport: 'stdio', args: ['mcp'] }] } }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, environment: { mcp_servers: [{ name: 'q', transport: 'stdio', command: 'q', args: 'mcp' }] } }).success).toBe(false);
    expect(TaskConfig.safeParse({ verifier: { timeout_sec: 1 } }).success).toBe(false);
  });
});

describe('quotecheck export: every variant is a valid Harbor task', () => {
  function labelledFile(dir: string): string {
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ id: `c${i + 1}`, quote: `words number ${i}`, url: `https://example.org/doc-${i % 4}`, label: i % 2 ? 'verbatim' : 'no_match' }),
    );
    const file = join(dir, 'labelled.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  it.each(Object.keys(VARIANTS) as Variant[])('%s', async (variant) => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out, '--per-task', '6', ...VARIANTS[variant]]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const tasks = taskDirs(out);
    expect(tasks).toHaveLength(2);
    for (const t of tasks) checkTask(t, variant);
    // One image for the whole dataset (the Dockerfile is the same in every task), and the shipped files byte-identical
    // in every task and to the build: a dataset kept in git stores them once.
    const same = (rel: string) => expect(readFileSync(join(tasks[1]!, rel)).equals(readFileSync(join(tasks[0]!, rel))), rel).toBe(true);
    same('environment/Dockerfile');
    same('tests/grade.mjs');
    for (const f of readdirSync(shippedDir())) {
      same(`solution/quotecheck/${f}`);
      expect(readFileSync(join(tasks[0]!, 'solution', 'quotecheck', f)).equals(readFileSync(join(shippedDir(), f))), f).toBe(true);
    }
    if (variant !== 'plain') expect(r.stdout).toMatch(/every task ships/);
  });

  it('a dataset whose archive is a Wayback stand-in points the MCP server at it, as its solve.sh', () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const claims = readLabelled(labelledFile(dir));
    writeDataset(out, planTasks(claims, 6), 'edition', { waybackUrl: 'http://127.0.0.4:41733', variant: { mcp: true } });
    for (const t of taskDirs(out)) {
      checkTask(t, 'mcp', ['mcp', '--root', '/app', '--wayback-url', 'http://127.0.0.4:41733']);
      expect(readFileSync(join(t, 'solution', 'solve.sh'), 'utf8')).toContain('--wayback-url http://127.0.0.4:41733');
    }
  });

  it('--with-skill DIR ships that skill folder, all of it', async () => {
    const dir = tempDir();
    const skill = join(dir, 'my-skill');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(skill, 'references'), { recursive: true });
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: my-skill\ndescription: test\n---\n');
    writeFileSync(join(skill, 'references', 'notes.md'), 'notes\n');
    const out = join(dir, 'dataset');
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out, '--with-skill', skill]);
    expect(r.code).toBe(0);
    const [task] = taskDirs(out);
    expect(readFileSync(join(task!, 'environment', 'skills', 'my-skill', 'references', 'notes.md'), 'utf8')).toBe('notes\n');
    expect(parseToml(readFileSync(join(task!, 'task.toml'), 'utf8'))).toMatchObject({ environment: { skills_dir: '/skills' } });
  });

  it('a --with-skill folder without SKILL.md is one line, exit 2, and nothing is written', async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out, '--with-skill', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`quotecheck: error: skill folder ${dir}: has no SKILL.md\n`);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    const missing = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out, '--with-skill', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`quotecheck: error: skill folder ${join(dir, 'nope')}: no such folder\n`);
  });
});

describe('the golden tasks in every variant', () => {
  // One derivation of the labels (the slow part, about 20 s on 2 cores) writes all four variants.
  it('build into a temp folder, pass the schema, and the plain variant is the committed golden/tasks', () => {
    const dir = tempDir();
    const variants: Record<Variant, { skill?: boolean; mcp?: boolean }> = {
      plain: {},
      skill: { skill: true },
      mcp: { mcp: true },
      both: { skill: true, mcp: true },
    };
    const log = console.log;
    console.log = () => {};
    try {
      buildGolden({ outputs: (Object.keys(variants) as Variant[]).map((v) => ({ tasksDir: join(dir, v), variant: variants[v] })) });
    } finally {
      console.log = log;
    }
    const committed = taskDirs(join(ROOT, 'golden', 'tasks'))
      .map((d) => d.split('/').pop())
      .sort();
    expect(committed).toHaveLength(11);
    for (const v of Object.keys(variants) as Variant[]) {
      const tasks = taskDirs(join(dir, v));
      expect(tasks.map((d) => d.split('/').pop()).sort()).toEqual(committed);
      // The golden sources are on loopback (the server refuses it unless told); the drift task's archive is a stand-in.
      for (const t of tasks)
        checkTask(t, v, ['mcp', '--root', '/app', '--allow-private', ...(t.endsWith('/drift') ? ['--wayback-url', GOLDEN_WAYBACK_URL] : [])]);
    }
    for (const name of committed) {
      for (const file of [
        'task.toml',
        'instruction.md',
        'environment/Dockerfile',
        'environment/claims.json',
        'solution/solve.sh',
        'tests/test.sh',
        'tests/gold.json',
      ]) {
        expect(readFileSync(join(dir, 'plain', name!, file), 'utf8'), `${name}/${file}`).toBe(readFileSync(join(ROOT, 'golden', 'tasks', name!, file), 'utf8'));
      }
    }
  }, 120_000);
});
