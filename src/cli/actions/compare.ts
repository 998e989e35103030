// `quotecheck compare RUN_DIR...`: finished evaluate runs side by side, split by the oracle's diagnosis of each claim;
// stdout, and report.json/report.html with --out.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  checkSameClaims,
  compareRuns,
  relocate,
  cwdRelativePath,
  withOracleEvidence,
  type EvaluationRun,
  type Comparison,
} from '../../results/compare.js';
import { readRunFolder } from '../../results/run-folders.js';
import { comparisonTable } from '../../results/compare-table.js';
import { renderHtmlReport } from '../../results/html-report.js';
import { writeComparisonReports } from '../../results/report-files.js';
import { errorLine, messageLine, outputLine, refuseInput } from '../progress.js';

interface CompareCommandOptions {
  runs: string[];
  /** The oracle's run folder, when none of the runs is the oracle's. */
  oracle?: string;
  /** Folder for report.json and report.html. */
  out?: string;
}

/**
 * A run with its folder as this command prints it (cwdRelativePath: relative to the working folder inside it, else
 * absolute).
 */
function shown(run: EvaluationRun): EvaluationRun {
  return run.dir === undefined ? run : { ...run, dir: cwdRelativePath(run.dir) };
}

/**
 * Where an agent's page with the oracle's evidence goes under --out: evidence/<its name as a folder name>/report.html.
 */
function evidenceFolders(c: Comparison): string[] {
  const used = new Set<string>();
  return c.agents.map((a, i) => {
    let name = a.label.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '') || `agent-${i + 1}`;
    if (used.has(name.toLowerCase())) name = `${name}-${i + 1}`;
    used.add(name.toLowerCase());
    return join('evidence', name);
  });
}

/**
 * Each agent's report page (not the oracle's) again, with the oracle's evidence on its claims, under --out; the
 * comparison then links to it (`evidence_report`, relative to --out). The runs' own folders are left as they are.
 */
function writeEvidenceReports(
  c: Comparison,
  runs: readonly EvaluationRun[],
  oracle: EvaluationRun,
  out: string,
): Comparison {
  const folders = evidenceFolders(c);
  const agents = c.agents.map((a, i) => {
    const run = runs[i]!;
    if (run.report === oracle.report) return a;
    const dir = join(out, folders[i]!);
    mkdirSync(dir, { recursive: true });
    const oracleRun = relative(resolve(dir), resolve(oracle.dir ?? '.'));
    writeFileSync(join(dir, 'report.html'), renderHtmlReport(withOracleEvidence(run.report, oracle.report, oracleRun)));
    return { ...a, evidence_report: `${folders[i]!}/report.html` };
  });
  return { ...c, agents };
}

export async function compareCommand(opts: CompareCommandOptions): Promise<number> {
  if (opts.out !== undefined && existsSync(opts.out) && !statSync(opts.out).isDirectory()) {
    errorLine(`--out ${opts.out}: not a folder`);
    return 2;
  }
  let runs: EvaluationRun[];
  let oracle: EvaluationRun | undefined;
  try {
    const folders = opts.runs.map((d) => readRunFolder(d));
    runs = folders.flatMap((f) => f.runs);
    if (opts.oracle !== undefined) {
      const given = readRunFolder(opts.oracle);
      oracle = given.oracle ?? given.runs[0];
      if (oracle?.report.agent !== 'oracle')
        messageLine(
          `warning: --oracle ${opts.oracle}: its agent is ${oracle?.report.agent}, not the oracle; its diagnoses ` +
            `are used as given`,
        );
    } else {
      oracle = folders.find((f) => f.oracle)?.oracle;
    }
  } catch (err) {
    return refuseInput(err);
  }
  if (!oracle) {
    errorLine(
      `no oracle run among ${opts.runs.join(', ')}: the comparison is split by the oracle's diagnoses; add an ` +
        `oracle run's folder or pass --oracle DIR`,
    );
    return 2;
  }
  // Each agent keeps the name its run's report.json gives; the folders are printed as seen from here, and written
  // relative to --out, where the page's links start.
  const seen = runs.map(shown);
  try {
    // Runs of different datasets (or of different versions of one) are refused, never compared claim by missing claim.
    checkSameClaims(seen, shown(oracle));
  } catch (err) {
    return refuseInput(err);
  }
  const comparison = compareRuns(seen, shown(oracle));
  outputLine(comparisonTable(comparison));
  if (opts.out !== undefined) {
    const withEvidence = writeEvidenceReports(relocate(comparison, opts.out), seen, shown(oracle), opts.out);
    const written = writeComparisonReports(withEvidence, opts.out);
    outputLine(`\nwrote ${cwdRelativePath(written.json)} and ${cwdRelativePath(written.html)}`);
    if (withEvidence.agents.some((a) => a.evidence_report))
      outputLine(
        `each agent's claims with the oracle's evidence: ` +
          `${cwdRelativePath(join(opts.out, 'evidence'))}/NAME/report.html`,
      );
  }
  return 0;
}
