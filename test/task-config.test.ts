// Every task.toml quotecheck writes (export and the golden builder, plain, --with-skill, --with-mcp, both) against Harbor's TaskConfig.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildGolden } from '../golden/build.js';
import { planTasks, writeDataset } from '../src/dataset/export.js';
import { readLabelled } from '../src/dataset/labelled.js';
import { GOLDEN_WAYBACK_URL } from '../golden/server.js';
import { ROOT, runCliInProcess, taskFolders, tempDir } from './support/helpers.js';
import { checkTaskFolder, dockerInstructions } from './support/harbor-helpers.js';
import { ORACLE_PACK, TASK_BUILDS, shippedDir } from '../src/task/ship.js';
import type { VerifierMode } from '../src/task/verifier-mode.js';
import { taskVerifierMode } from '../src/task/task-dir.js';

/*
 * Harbor's TaskConfig (src/harbor/models/task/config.py, as of the copy in AlienKevin/sprint at commit
 * 49e3cd773739875a1ff87e4533d652d5659ffc14; datacurve-ai/pier's src/pier/models/task/config.py mirrors its [task]
 * rules), its rules ported to zod and written strictly: pydantic would ignore an unknown key, so a misspelt one
 * (skill_dir, mcpServers, author_name in [task]) would silently do nothing; here it fails.
 */

/** Harbor's ORG_NAME_PATTERN: `<org>/<name>`, each a letter or digit and then letters, digits, '.', '_' or '-'. */
const ORG_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

const NetworkMode = z.enum(['no-network', 'public', 'allowlist']);

/** allowed_hosts belongs to network_mode = "allowlist" only (Harbor's NetworkPolicy validator). */
const networkPolicy = {
  network_mode: NetworkMode.nullable().optional(),
  allowed_hosts: z.array(z.string()).nullable().optional(),
};
const allowlistOnly = (c: { network_mode?: string | null; allowed_hosts?: string[] | null }): boolean =>
  c.allowed_hosts === undefined || c.allowed_hosts === null || c.network_mode === 'allowlist';
const ALLOWLIST_ONLY = { message: "allowed_hosts is only valid when network_mode='allowlist'" };

/** Harbor's Author: a name, and an email when given. */
const Author = z.strictObject({ name: z.string(), email: z.string().nullable().optional() });

/** Harbor's PackageInfo, the [task] table: its name validator is the registry's rule. */
const PackageInfo = z.strictObject({
  name: z.string().refine((v) => ORG_NAME_PATTERN.test(v) && !v.includes('..'), {
    message:
      "Package name must be in 'org/name' format with alphanumeric characters, hyphens, underscores, and dots; no leading dot, no '..'",
  }),
  version: z.string().min(1).nullable().optional(),
  description: z.string().default(''),
  authors: z.array(Author).default([]),
  keywords: z.array(z.string()).default([]),
});

const McpServer = z
  .strictObject({
    name: z.string().min(1),
    transport: z
      .preprocess((t) => (t === 'http' ? 'streamable-http' : t), z.enum(['sse', 'streamable-http', 'stdio']))
      .default('sse'),
    url: z.string().nullable().optional(),
    command: z.string().nullable().optional(),
    args: z.array(z.string()).default([]),
  })
  .refine((s) => s.transport !== 'stdio' || !!s.command, { message: "'command' is required for transport 'stdio'" })
  .refine((s) => s.transport === 'stdio' || !!s.url, { message: "'url' is required for sse and streamable-http" });

const Healthcheck = z.strictObject({
  command: z.string(),
  interval_sec: z.number().optional(),
  timeout_sec: z.number().optional(),
  start_period_sec: z.number().optional(),
  start_interval_sec: z.number().optional(),
  retries: z.number().int().optional(),
});

const Environment = z
  .strictObject({
    ...networkPolicy,
    network_mode: NetworkMode.default('public'),
    build_timeout_sec: z.number().positive().optional(),
    docker_image: z.string().nullable().optional(),
    os: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['linux', 'windows'])).optional(),
    cpus: z.number().int().positive().nullable().optional(),
    memory_mb: z.number().int().positive().nullable().optional(),
    storage_mb: z.number().int().positive().nullable().optional(),
    gpus: z.number().int().nonnegative().nullable().optional(),
    gpu_types: z.array(z.string()).nullable().optional(),
    tpu: z
      .strictObject({ type: z.string().min(1), topology: z.string().regex(/^[1-9]\d*(x[1-9]\d*)+$/) })
      .nullable()
      .optional(),
    mcp_servers: z.array(McpServer).optional(),
    env: z.record(z.string(), z.string()).optional(),
    skills_dir: z.string().startsWith('/').nullable().optional(),
    healthcheck: Healthcheck.nullable().optional(),
    workdir: z.string().nullable().optional(),
    /** Deprecated: network_mode replaces it. Read, never written by quotecheck (checked below). */
    allow_internet: z.boolean().nullable().optional(),
    memory: z.string().optional(),
    storage: z.string().optional(),
  })
  .refine(allowlistOnly, ALLOWLIST_ONLY);

const Verifier = z
  .strictObject({
    ...networkPolicy,
    timeout_sec: z.number().positive().default(600),
    env: z.record(z.string(), z.string()).optional(),
    user: z.union([z.string(), z.number().int()]).nullable().optional(),
    environment_mode: z.enum(['shared', 'separate']).nullable().optional(),
    environment: Environment.nullable().optional(),
    continuous: z.record(z.string(), z.unknown()).optional(),
    collect: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .refine(allowlistOnly, ALLOWLIST_ONLY)
  .refine((v) => !(v.environment_mode === 'shared' && v.environment), {
    message: "[verifier].environment_mode='shared' is incompatible with [verifier.environment]",
  });

const Agent = z
  .strictObject({
    ...networkPolicy,
    timeout_sec: z.number().positive().nullable().optional(),
    user: z.union([z.string(), z.number().int()]).nullable().optional(),
  })
  .refine(allowlistOnly, ALLOWLIST_ONLY);

const TaskConfig = z.preprocess(
  // Harbor renames a legacy top-level `version` to schema_version (when schema_version is not there already).
  (data) => {
    if (typeof data !== 'object' || data === null || !('version' in data)) return data;
    const { version, ...rest } = data as Record<string, unknown>;
    return { schema_version: version, ...rest };
  },
  z.strictObject({
    schema_version: z.string().default('1.4'),
    task: PackageInfo.nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    verifier: Verifier.optional(),
    agent: Agent.optional(),
    environment: Environment.optional(),
    solution: z.strictObject({ env: z.record(z.string(), z.string()).optional() }).optional(),
    source: z.string().nullable().optional(),
    multi_step_reward_strategy: z.enum(['mean', 'final']).nullable().optional(),
    steps: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
    artifacts: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).optional(),
  }),
);

/** The org every export here names its tasks under. */
const ORG = 'qc-test.lab';

type Variant = 'plain' | 'skill' | 'mcp' | 'both';
const VARIANTS: Record<Variant, string[]> = {
  plain: [],
  skill: ['--with-skill'],
  mcp: ['--with-mcp'],
  both: ['--with-skill', '--with-mcp'],
};
const SKILL_MD = readFileSync(join(ROOT, 'skills', 'quote-verification', 'SKILL.md'), 'utf8');

function taskDirs(dataset: string): string[] {
  return readdirSync(dataset)
    .map((d) => join(dataset, d))
    .filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'task.toml')));
}

/** A task.toml's text parsed as Harbor's TaskConfig; every issue named by its path. */
function parseTaskToml(text: string, where: string): z.infer<typeof TaskConfig> {
  const parsed = TaskConfig.safeParse(parseToml(text));
  if (!parsed.success)
    throw new Error(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * Where the task's verifier runs, checked against what the mode promises. `separate`: the top-level artifacts (the
 * answers, and nothing else), [verifier] environment_mode and a [verifier.environment] with no network and a small
 * machine, and tests/Dockerfile, which builds the verifier's image from a public base and COPYs test.sh (with the
 * grader and the gold) to /tests. `shared`: none of them. Either way, taskVerifierMode reads the mode back, and the
 * gold is its owner's alone.
 */
function checkVerifierMode(
  dir: string,
  raw: Record<string, unknown>,
  config: z.infer<typeof TaskConfig>,
  mode: VerifierMode,
): void {
  expect(taskVerifierMode(dir)).toBe(mode);
  expect(statSync(join(dir, 'tests', 'gold.json')).mode & 0o777).toBe(0o600);
  const dockerfile = join(dir, 'tests', 'Dockerfile');
  if (mode === 'shared') {
    expect(raw.artifacts).toBeUndefined();
    expect(config.verifier?.environment_mode).toBeUndefined();
    expect(config.verifier?.environment).toBeUndefined();
    expect(existsSync(dockerfile)).toBe(false);
    return;
  }
  // Top level, before the first table: smol-toml read it so only if it came before any [table] header.
  expect(raw.artifacts).toEqual(['/app/answers.json']);
  const text = readFileSync(join(dir, 'task.toml'), 'utf8');
  expect(text.indexOf('\nartifacts = ')).toBeLessThan(text.indexOf('\n['));
  expect(config.verifier).toMatchObject({ environment_mode: 'separate', user: 'root' });
  // Public: the grader opens no connection, so no-network would gain it nothing and cost the providers without one.
  expect(config.verifier?.environment).toMatchObject({
    network_mode: 'public',
    cpus: 1,
    memory_mb: 1024,
    storage_mb: 2048,
    build_timeout_sec: 600,
  });
  const steps = dockerInstructions(readFileSync(dockerfile, 'utf8'));
  expect(steps[0]).toBe('FROM node:20-bookworm-slim');
  const copies = steps.filter((st) => /^COPY\s/.test(st)).map((st) => st.split(' ').slice(1));
  expect(copies).toEqual([['test.sh', 'grade.mjs', 'gold.json', '/tests/']]);
  for (const source of copies[0]!.slice(0, -1)) expect(existsSync(join(dir, 'tests', source)), source).toBe(true);
  expect(steps).toContain('WORKDIR /app');
  // Every line of the Dockerfile says why: a comment above each instruction.
  const lines = readFileSync(dockerfile, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (/^[A-Z]+\s/.test(line)) expect(lines[i - 1], `the line above ${line}`).toMatch(/^#/);
  });
}

/**
 * Checks one task folder against the schema and against what its variant promises; returns the parsed config. `org`:
 * the task.toml must have [task] with the name `<org>/<folder>`; without it, no [task] at all. `mode`: where its
 * verifier runs (checkVerifierMode).
 */
function checkTask(
  dir: string,
  variant: Variant,
  mcpArgs: readonly string[] = ['mcp', '--root', '/app'],
  org?: string,
  mode: VerifierMode = 'separate',
): z.infer<typeof TaskConfig> {
  const text = readFileSync(join(dir, 'task.toml'), 'utf8');
  const raw = parseToml(text) as Record<string, unknown>;
  const config = parseTaskToml(text, `${dir}/task.toml`);
  checkVerifierMode(dir, raw, config, mode);
  // The current schema, as written: schema_version (not the legacy version), network_mode (not allow_internet).
  expect(raw.schema_version).toBe('1.4');
  expect(raw.version).toBeUndefined();
  expect((raw.environment as Record<string, unknown>).network_mode).toBe('public');
  expect((raw.environment as Record<string, unknown>).allow_internet).toBeUndefined();
  // No placeholder author anywhere: [metadata] has none, and [task] only what the export was given.
  expect(Object.keys(config.metadata ?? {}).filter((k) => /author/.test(k))).toEqual([]);
  if (org === undefined) expect(config.task).toBeUndefined();
  else expect(config.task?.name).toBe(`${org}/${basename(dir)}`);
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
    expect(config.environment?.mcp_servers).toEqual([
      { name: 'quotecheck', transport: 'stdio', command: 'quotecheck', args: mcpArgs },
    ]);
    // The shipped build is put on PATH, and the build fails unless the server's command runs and knows `mcp`.
    expect(steps).toContain(
      'RUN ln -s /opt/quotecheck/quotecheck.mjs /usr/local/bin/quotecheck && quotecheck mcp --help > /dev/null',
    );
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
    const ok = {
      schema_version: '1.4',
      verifier: { timeout_sec: 120 },
      environment: { cpus: 1, skills_dir: '/skills' },
    };
    expect(TaskConfig.safeParse(ok).success).toBe(true);
    expect(TaskConfig.safeParse({ ...ok, mcpServers: [] }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, environment: { skill_dir: '/skills' } }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, environment: { cpus: 1.5 } }).success).toBe(false);
    expect(TaskConfig.safeParse({ ...ok, verifier: { timeout_sec: '120' } }).success).toBe(false);
    expect(
      TaskConfig.safeParse({ ...ok, environment: { mcp_servers: [{ name: 'q', transport: 'stdio', args: ['mcp'] }] } })
        .success,
    ).toBe(false);
    expect(
      TaskConfig.safeParse({
        ...ok,
        environment: { mcp_servers: [{ name: 'q', transport: 'stdio', command: 'q', args: 'mcp' }] },
      }).success,
    ).toBe(false);
    // A legacy top-level version is read as schema_version; without either, Harbor's default.
    expect(TaskConfig.parse({ version: '1.0' })).toMatchObject({ schema_version: '1.0' });
    expect(TaskConfig.parse({})).toMatchObject({ schema_version: '1.4' });
  });

  it('[verifier] environment_mode, [verifier.environment] and the top-level artifacts; artifacts written inside a table is refused', () => {
    const separate =
      'schema_version = "1.4"\nartifacts = ["/app/answers.json"]\n\n[verifier]\nenvironment_mode = "separate"\n\n[verifier.environment]\nnetwork_mode = "no-network"\ncpus = 1\n';
    expect(parseTaskToml(separate, 'separate')).toMatchObject({
      artifacts: ['/app/answers.json'],
      verifier: { environment_mode: 'separate' },
    });
    // After [verifier], TOML makes it verifier.artifacts: an unknown key of [verifier], which Harbor would ignore (and
    // then give the verifier no answers), refused here.
    const misplaced =
      'schema_version = "1.4"\n\n[verifier]\nenvironment_mode = "separate"\nartifacts = ["/app/answers.json"]\n';
    expect(parseToml(misplaced)).toMatchObject({ verifier: { artifacts: ['/app/answers.json'] } });
    expect(() => parseTaskToml(misplaced, 'misplaced')).toThrowError(
      /^misplaced: verifier: Unrecognized key: "artifacts"/,
    );
    // After [verifier.environment], an unknown key of [environment]'s model.
    expect(() => parseTaskToml(`${separate}artifacts = ["/app/answers.json"]\n`, 'nested')).toThrowError(
      /verifier\.environment: Unrecognized key: "artifacts"/,
    );
    expect(() => parseTaskToml('[verifier]\nenvironment_mode = "apart"\n', 'mode')).toThrowError(
      /verifier\.environment_mode/,
    );
    // Harbor refuses a shared verifier with an environment of its own.
    expect(() =>
      parseTaskToml('[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 1\n', 'both'),
    ).toThrowError(/incompatible/);
  });

  it("taskVerifierMode follows Harbor's rule: environment_mode when given, else separate with [verifier.environment], else shared; task.md is shared", () => {
    const dir = tempDir();
    const task = (name: string, file: string, text: string): string => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, file), text);
      return join(dir, name);
    };
    expect(taskVerifierMode(task('given', 'task.toml', '[verifier]\nenvironment_mode = "separate"\n'))).toBe(
      'separate',
    );
    expect(
      taskVerifierMode(
        task(
          'given-shared',
          'task.toml',
          '[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 1\n',
        ),
      ),
    ).toBe('shared');
    expect(taskVerifierMode(task('implied', 'task.toml', '[verifier.environment]\ncpus = 1\n'))).toBe('separate');
    expect(taskVerifierMode(task('plain', 'task.toml', '[verifier]\ntimeout_sec = 30.0\n'))).toBe('shared');
    expect(taskVerifierMode(task('empty', 'task.toml', ''))).toBe('shared');
    expect(taskVerifierMode(task('md', 'task.md', '---\nverifier:\n  environment_mode: separate\n---\nCheck.\n'))).toBe(
      'shared',
    );
    expect(() => taskVerifierMode(task('bad', 'task.toml', '[verifier]\nenvironment_mode = "apart"\n'))).toThrowError(
      `${join(dir, 'bad', 'task.toml')}: [verifier] environment_mode is "apart", not "separate" or "shared"`,
    );
    expect(() => taskVerifierMode(task('none', 'README.md', ''))).toThrowError(
      /not a task \(no task\.toml or task\.md\)/,
    );
  });

  it("[task]: Harbor's name rule, its Author, keywords; network_mode's values; allowed_hosts only with allowlist", () => {
    const task = (t: Record<string, unknown>) => TaskConfig.safeParse({ task: t }).success;
    for (const name of ['acme/news-01', 'a/b', 'Org_1.x/task.v2', '0rg/9']) expect(task({ name }), name).toBe(true);
    for (const name of [
      'acme',
      'acme/',
      '/x',
      'acme/x/y',
      '.acme/x',
      'acme/.x',
      'ac..me/x',
      'acme/x..y',
      '-acme/x',
      'acme/x y',
      'acme/é',
    ])
      expect(task({ name }), name).toBe(false);
    expect(
      task({
        name: 'a/b',
        authors: [{ name: 'Ada' }, { name: 'Bo', email: 'bo@x.org' }],
        keywords: ['q'],
        description: 'd',
      }),
    ).toBe(true);
    expect(task({ name: 'a/b', authors: [{ email: 'bo@x.org' }] })).toBe(false);
    expect(task({ name: 'a/b', authors: ['Ada'] })).toBe(false);
    expect(task({ name: 'a/b', authors: [{ name: 'Ada', affiliation: 'x' }] })).toBe(false);
    expect(task({ name: 'a/b', keywords: 'q' })).toBe(false);
    expect(task({ name: 'a/b', author_name: 'x' })).toBe(false);
    expect(task({ description: 'no name' })).toBe(false);
    for (const mode of ['public', 'no-network', 'allowlist'])
      expect(TaskConfig.safeParse({ environment: { network_mode: mode } }).success, mode).toBe(true);
    expect(TaskConfig.safeParse({ environment: { network_mode: 'none' } }).success).toBe(false);
    expect(
      TaskConfig.safeParse({ environment: { network_mode: 'allowlist', allowed_hosts: ['pypi.org'] } }).success,
    ).toBe(true);
    expect(TaskConfig.safeParse({ environment: { network_mode: 'public', allowed_hosts: ['pypi.org'] } }).success).toBe(
      false,
    );
    expect(TaskConfig.safeParse({ agent: { allowed_hosts: ['pypi.org'] } }).success).toBe(false);
  });
});

describe('quotecheck export: every variant is a valid Harbor task', () => {
  function labelledFile(dir: string): string {
    const lines = Array.from({ length: 12 }, (_, i) =>
      // Each source's claims carry both labels, whichever sources share a task.
      JSON.stringify({
        id: `c${i + 1}`,
        quote: `words number ${i}`,
        url: `https://example.org/doc-${i % 4}`,
        label: i % 3 ? 'verbatim' : 'no_match',
      }),
    );
    const file = join(dir, 'labelled.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  it.each(Object.keys(VARIANTS) as Variant[])('%s', async (variant) => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--per-task',
      '6',
      '--org',
      ORG,
      ...VARIANTS[variant],
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const tasks = taskDirs(out);
    expect(tasks).toHaveLength(2);
    for (const t of tasks) checkTask(t, variant, undefined, ORG);
    // One image for the whole dataset (the Dockerfile is the same in every task), and the shipped files byte-identical
    // in every task and to the build: a dataset kept in git stores them once.
    const same = (rel: string) =>
      expect(readFileSync(join(tasks[1]!, rel)).equals(readFileSync(join(tasks[0]!, rel))), rel).toBe(true);
    same('environment/Dockerfile');
    same('tests/grade.mjs');
    same(`solution/${ORACLE_PACK}`);
    expect(
      readFileSync(join(tasks[0]!, 'solution', ORACLE_PACK)).equals(
        readFileSync(join(dirname(shippedDir()), TASK_BUILDS.oraclePack)),
      ),
    ).toBe(true);
    if (variant !== 'plain') expect(r.stdout).toMatch(/every task ships/);
  });

  it("--verifier shared: the verifier in the agent's container (no artifacts, no environment_mode, no tests/Dockerfile), still a valid task", async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--per-task',
      '6',
      '--verifier',
      'shared',
      '--with-mcp',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const tasks = taskDirs(out);
    expect(tasks).toHaveLength(2);
    for (const t of tasks) checkTask(t, 'mcp', undefined, undefined, 'shared');
    // The same tasks as the default but for the verifier's settings: --verifier separate is the default.
    const separate = join(dir, 'separate');
    expect(
      (
        await runCliInProcess([
          'export',
          '--labelled',
          labelledFile(dir),
          '--out',
          separate,
          '--per-task',
          '6',
          '--verifier',
          'separate',
        ])
      ).code,
    ).toBe(0);
    for (const t of taskDirs(separate)) checkTask(t, 'plain');
  });

  it("--verifier separate with --layout skillsbench is refused, saying why; SkillsBench 1.1's tasks are shared, their gold root-only too", async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--layout',
      'skillsbench',
      '--verifier',
      'separate',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^quotecheck: error: --verifier separate: SkillsBench 1\.1's layout \(--layout skillsbench\) has no separate verifier: its harnesses \(EvalScope, AgentCompass\) run verifier\/test\.sh in the agent's container/,
    );
    expect(existsSync(out)).toBe(false);
    for (const args of [[], ['--verifier', 'shared']]) {
      const ok = join(dir, `sb${args.length}`);
      const w = await runCliInProcess([
        'export',
        '--labelled',
        labelledFile(dir),
        '--out',
        ok,
        '--layout',
        'skillsbench',
        ...args,
      ]);
      expect(w.code, w.stderr).toBe(0);
      for (const t of taskFolders(ok).map((d) => join(ok, d))) {
        expect(taskVerifierMode(t)).toBe('shared');
        expect(existsSync(join(t, 'verifier', 'Dockerfile'))).toBe(false);
        expect(statSync(join(t, 'verifier', 'gold.json')).mode & 0o777).toBe(0o600);
      }
    }
    // The API refuses it too, before writing anything.
    expect(() =>
      writeDataset(join(dir, 'api'), planTasks(readLabelled(labelledFile(dir)), 6), 'x', {
        layout: 'skillsbench',
        verifierMode: 'separate',
      }),
    ).toThrowError(/has no separate verifier/);
    expect(existsSync(join(dir, 'api'))).toBe(false);
  });

  it('a dataset whose archive is the Wayback stub points the MCP server at it, as its solve.sh', () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const claims = readLabelled(labelledFile(dir));
    writeDataset(out, planTasks(claims, 6), 'edition', {
      waybackUrl: 'http://127.0.0.4:41733',
      variant: { mcp: true },
      org: ORG,
    });
    for (const t of taskDirs(out)) {
      checkTask(t, 'mcp', ['mcp', '--root', '/app', '--wayback-url', 'http://127.0.0.4:41733'], ORG);
      expect(readFileSync(join(t, 'solution', 'solve.sh'), 'utf8')).toContain('--wayback-url http://127.0.0.4:41733');
    }
  });

  it("where it runs: prebuilt images in both environments, the networks of the agent's run and of the verifier, a pinned base: the schema loads every task.toml", async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--org',
      ORG,
      '--image-repo',
      'ghcr.io/qc-test/quotes',
      '--verifier-image-repo',
      'registry.example.org/qc-test/quotes-verifier',
      '--verifier-network',
      'no-network',
      '--base-image',
      `node:20-bookworm-slim@sha256:${'ab'.repeat(32)}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const t of taskDirs(out)) {
      checkTaskFolder(t);
      const config = parseTaskToml(readFileSync(join(t, 'task.toml'), 'utf8'), t);
      expect(config.task?.name).toBe(`${ORG}/${basename(t)}`);
      expect(config.environment?.docker_image).toMatch(/^ghcr\.io\/qc-test\/quotes:/);
      expect(config.verifier?.environment).toMatchObject({ network_mode: 'no-network' });
      expect(config.verifier?.environment?.docker_image).toMatch(/^registry\.example\.org\/qc-test\/quotes-verifier:/);
      // Memory and disk in whole gigabytes: what the providers that size in GB and round down give as asked.
      for (const env of [config.environment!, config.verifier!.environment!]) {
        expect(env.memory_mb! % 1024, t).toBe(0);
        expect(env.storage_mb! % 1024, t).toBe(0);
      }
    }
    // The agent's run without the network (a frozen edition's): [agent] network_mode, a phase policy Harbor reads.
    const api = join(dir, 'api');
    writeDataset(api, planTasks(readLabelled(labelledFile(dir)), 6), 'x', { networks: { agent: 'no-network' } });
    for (const t of taskDirs(api)) {
      const config = parseTaskToml(readFileSync(join(t, 'task.toml'), 'utf8'), t);
      expect(config.agent).toMatchObject({ user: 'agent', network_mode: 'no-network' });
      expect(config.environment?.network_mode).toBe('public');
    }
  });

  it('--org, --author, --keyword, --description and --difficulty fill [task] and [metadata]; the schema loads them', async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--name',
      'skb',
      '--org',
      ORG,
      '--author',
      'Ada Lovelace <ada@example.org>',
      '--author',
      'Grace Hopper',
      '--keyword',
      'quotes',
      '--keyword',
      'grounding',
      '--keyword',
      'quotes',
      '--description',
      'Quote grounding, news desk split',
      '--difficulty',
      'hard',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/; named qc-test\.lab\/<task>\n/);
    const [task] = taskDirs(out);
    const config = checkTask(task!, 'plain', undefined, ORG);
    expect(config.task).toEqual({
      name: `${ORG}/skb-001`,
      description: 'Quote grounding, news desk split',
      authors: [{ name: 'Ada Lovelace', email: 'ada@example.org' }, { name: 'Grace Hopper' }],
      keywords: ['quotes', 'grounding'],
    });
    expect(config.metadata).toEqual({
      difficulty: 'hard',
      category: 'quote-verification',
      tags: ['quote-verification', 'skb'],
    });
    // Without --description, each task says what it checks.
    const plain = join(dir, 'plain');
    expect(
      (
        await runCliInProcess([
          'export',
          '--labelled',
          labelledFile(dir),
          '--out',
          plain,
          '--org',
          ORG,
          '--per-task',
          '6',
        ])
      ).code,
    ).toBe(0);
    for (const t of taskDirs(plain))
      expect(checkTask(t, 'plain', undefined, ORG).task?.description).toBe(
        'Check 6 quotes against their sources: verbatim or no_match',
      );
  });

  it('without --org: no [task] table, no difficulty, and the summary says the tasks cannot be published', async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /; no --org, so no \[task\] name: the tasks run, but Harbor's registry cannot publish them\n/,
    );
    const [task] = taskDirs(out);
    expect(checkTask(task!, 'plain').metadata).toEqual({
      category: 'quote-verification',
      tags: ['quote-verification', 'labelled'],
    });
  });

  it('a bad --org, an --author without --org, a bad author or a task name Harbor refuses: one line, exit 2, nothing written', async () => {
    const dir = tempDir();
    const labelled = labelledFile(dir);
    const out = join(dir, 'dataset');
    const refused = async (args: string[], message: string | RegExp) => {
      const r = await runCliInProcess(['export', '--labelled', labelled, '--out', out, ...args]);
      expect(r.code).toBe(2);
      if (typeof message === 'string') expect(r.stderr).toBe(`quotecheck: error: ${message}\n`);
      else expect(r.stderr).toMatch(message);
      expect(existsSync(out)).toBe(false);
    };
    const rule = "letters, digits, '.', '_' or '-', starting with a letter or digit, and no '..'";
    for (const org of ['my org', '-acme', 'acme/labs', 'ac..me', '.acme', ''])
      await refused(
        ['--org', org],
        `--org ${JSON.stringify(org)}: must be ${rule}: Harbor's registry names a task <org>/<task> by that rule (its ORG_NAME_PATTERN)`,
      );
    await refused(
      ['--author', 'Ada', '--keyword', 'q'],
      "--author, --keyword fill task.toml's [task] table, which Harbor reads only with a name: give --org <org> too (the tasks are then named <org>/<task>)",
    );
    await refused(['--description', 'x'], /^quotecheck: error: --description fills task\.toml's \[task\] table/);
    await refused(
      ['--org', 'acme', '--author', 'Ada <not an email>'],
      '--author "Ada <not an email>": "not an email" is not an email address (name@host)',
    );
    await refused(
      ['--org', 'acme', '--author', '<ada@example.org>'],
      '--author "<ada@example.org>": give "Name <email>" or "Name" (the email is optional)',
    );
    await refused(
      ['--org', 'acme', '--name', 'skb..v2'],
      `task name "skb..v2": with --org, must be ${rule}: it is the <task> of acme/<task>`,
    );
    await refused(
      ['--difficulty', 'extreme'],
      /argument 'extreme' is invalid\. Allowed choices are easy, medium, hard/,
    );
    // A task field whose value has '..' is a folder name, but not a Harbor name: refused with --org, before writing.
    const named = join(dir, 'named.jsonl');
    writeFileSync(
      named,
      `${JSON.stringify({ id: 'a', quote: 'q', url: 'https://example.org/a', label: 'verbatim', task: 'v1..2' })}\n`,
    );
    const r = await runCliInProcess([
      'export',
      '--labelled',
      named,
      '--out',
      out,
      '--task-field',
      'task',
      '--org',
      'acme',
    ]);
    expect(r.stderr).toBe(
      `quotecheck: error: task name "v1..2": with --org, must be ${rule}: it is the <task> of acme/<task>\n`,
    );
    expect(existsSync(out)).toBe(false);
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
    expect(readFileSync(join(task!, 'environment', 'skills', 'my-skill', 'references', 'notes.md'), 'utf8')).toBe(
      'notes\n',
    );
    expect(parseToml(readFileSync(join(task!, 'task.toml'), 'utf8'))).toMatchObject({
      environment: { skills_dir: '/skills' },
    });
  });

  it('a --with-skill folder without SKILL.md is one line, exit 2, and nothing is written', async () => {
    const dir = tempDir();
    const out = join(dir, 'dataset');
    const r = await runCliInProcess(['export', '--labelled', labelledFile(dir), '--out', out, '--with-skill', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`quotecheck: error: skill folder ${dir}: has no SKILL.md\n`);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    const missing = await runCliInProcess([
      'export',
      '--labelled',
      labelledFile(dir),
      '--out',
      out,
      '--with-skill',
      join(dir, 'nope'),
    ]);
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
      buildGolden({
        outputs: (Object.keys(variants) as Variant[]).map((v) => ({ tasksDir: join(dir, v), variant: variants[v] })),
      });
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
      // The golden sources are on loopback (the server refuses it unless told); the drift task's archive is the Wayback
      // stub.
      for (const t of tasks)
        checkTask(t, v, [
          'mcp',
          '--root',
          '/app',
          '--allow-private',
          ...(t.endsWith('/drift') ? ['--wayback-url', GOLDEN_WAYBACK_URL] : []),
        ]);
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
        'tests/Dockerfile',
      ]) {
        expect(readFileSync(join(dir, 'plain', name!, file), 'utf8'), `${name}/${file}`).toBe(
          readFileSync(join(ROOT, 'golden', 'tasks', name!, file), 'utf8'),
        );
      }
    }
  }, 120_000);
});
