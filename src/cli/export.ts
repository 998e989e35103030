// `quotecheck export`: labelled claims (JSON Lines) to a Harbor dataset.
import { ExportError, defaultPrefix, planTasks, readLabelled, writeDataset } from '../harbor/export.js';

export interface ExportCommandOptions {
  labelled: string;
  out: string;
  perTask: number;
  name?: string;
}

export async function exportCommand(opts: ExportCommandOptions): Promise<number> {
  try {
    const claims = readLabelled(opts.labelled);
    const tasks = planTasks(claims, opts.perTask);
    const result = writeDataset(opts.out, tasks, opts.name ?? defaultPrefix(opts.labelled));
    const sources = result.tasks.reduce((n, t) => n + t.sources, 0);
    process.stdout.write(`wrote ${result.tasks.length} tasks (${claims.length} claims, ${sources} sources) to ${opts.out}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ExportError)) throw err;
    process.stderr.write(`quotecheck export: error: ${err.message}\n`);
    return 2;
  }
}
