// Reading the builders' spec files (golden/spec/*.json, golden/diagnosis/spec/*.json): JSON checked
// against a zod schema at the boundary, so a mistake in the data is reported with its file and path
// before anything is derived. Builder code: the checkers never read the spec.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { goldenDir } from '../server.js';

/**
 * The JSON file at `rel` (relative to golden/), validated by `schema`. What is returned is the file's
 * value as parsed, not zod's copy of it: the schemas are strict (an unknown key is an error), and the
 * parsed value keeps the file's key order, which the generated route tables keep in turn.
 */
export function readSpec<S extends z.ZodType>(rel: string, schema: S): z.infer<S> {
  const file = path.join(goldenDir(), rel);
  const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  const res = schema.safeParse(data);
  if (!res.success) throw new Error(`golden/${rel} does not fit its schema:\n${z.prettifyError(res.error)}`);
  return data as z.infer<S>;
}

/** One of `keys`, as a zod enum (the keys of a table the data refers to). */
export const keyOf = <K extends string>(keys: readonly K[]): z.ZodType<K> =>
  z.enum(keys as [K, ...K[]]) as unknown as z.ZodType<K>;

/** The route fields a spec may set besides those it adds itself (see golden/server.ts `Route`). */
export const routeFields = {
  path: z.string().startsWith('/'),
  status: z.number().int().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  gzip: z.boolean().optional(),
  delayMs: z.number().int().optional(),
  failFirst: z
    .strictObject({
      count: z.number().int(),
      status: z.number().int(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.string().optional(),
    })
    .optional(),
  redirect: z.strictObject({ location: z.string(), status: z.number().int().optional() }).optional(),
  cookieGate: z.strictObject({ name: z.string(), value: z.string() }).optional(),
  hang: z.boolean().optional(),
  /** words for the rule text, e.g. "3 redirects" (not served) */
  note: z.string().optional(),
};
