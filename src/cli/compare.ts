// `quotecheck compare RUN_DIR...`: finished bench runs side by side, split by the oracle's diagnosis of each claim; stdout, and report.json/report.html with --out.
import { existsSync, statSync } from 'node:fs';
import { checkSameClaims, compareRuns, comparisonTable, readRunFolder, relocate, shownPath, type BenchRun } from '../harbor/compare.js';
import { writeComparisonReports } from '../harbor/reports.js';
import { errorLine, messageLine, outputLine, refuseInput } from './progress.js';

export interface CompareCommandOptions {
  runs: string[];
  /** The oracle's run folder, when none of the runs is the oracle's. */
  oracle?: string;
  /** Folder for report.json and report.html. */
  out?: string;
}

/** A run with its folder as this command prints it (shownPath: relative to the working folder inside it, else absolute). */
function shown(run: BenchRun): BenchRun {
  return run.dir === undefined ? run : { ...run, dir: shownPath(run.dir) };
}

export async function compareCommand(opts: CompareCommandOptions): Promise<number> {
  if (opts.out !== undefined && existsSync(opts.out) && !statSync(opts.out).isDirectory()) {
    errorLine(`--out ${opts.out}: not a folder`);
    return 2;
  }
  let runs: BenchRun[];
  let oracle: BenchRun | undefined;
  try {
    const folders = opts.runs.map((d) => readRunFolder(d));
    runs = folders.flatMap((f) => f.runs);
    if (opts.oracle !== undefined) {
      const given = readRunFolder(opts.oracle);
      oracle = given.oracle ?? given.runs[0];
      if (oracle?.report.agent !== 'oracle')
        messageLine(`warning: --oracle ${opts.oracle}: its agent is ${oracle?.report.agent}, not the oracle; its diagnoses are used as given`);
    } else {
      oracle = folders.find((f) => f.oracle)?.oracle;
    }
  } catch (err) {
    return refuseInput(err);
  }
  if (!oracle) {
    errorLine(
      `no oracle run among ${opts.runs.join(', ')}: the comparison is split by the oracle's diagnoses; add an oracle run's folder or pass --oracle DIR`,
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
    const written = writeComparisonReports(relocate(comparison, opts.out), opts.out);
    outputLine(`\nwrote ${shownPath(written.json)} and ${shownPath(written.html)}`);
  }
  return 0;
}
