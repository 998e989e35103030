const fs = require('fs');
const ids = new Set(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).map(String));
const LABELS = new Set(['verbatim', 'no_match']);
const found = {}; const from = {};
const label = (x) => (typeof x === 'string' ? x.trim().toLowerCase() : '');
const take = (id, x, file) => {
  const k = String(id); const l = label(x);
  if (!ids.has(k) || !LABELS.has(l) || k in found) return;
  found[k] = l; from[file] = (from[file] || 0) + 1;
};
const walk = (v, file, depth) => {
  if (depth > 40 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) { for (const x of v) walk(x, file, depth + 1); return; }
  const entries = Object.entries(v);
  for (const [k, x] of entries) take(k, x, file);
  const id = v.id ?? v.claim_id ?? v.claimId;
  if (typeof id === 'string' || typeof id === 'number') for (const [, x] of entries) take(id, x, file);
  for (const [, x] of entries) walk(x, file, depth + 1);
};
for (const file of fs.readFileSync(0, 'utf8').split('\n').filter(Boolean)) {
  let text;
  try { const st = fs.statSync(file); if (!st.isFile() || st.size > 67108864) continue; text = fs.readFileSync(file, 'utf8'); } catch { continue; }
  try { walk(JSON.parse(text), file, 0); continue; } catch {}
  for (const line of text.split('\n')) {
    const l = line.trim(); if (!l) continue;
    try { walk(JSON.parse(l), file, 0); continue; } catch {}
    const cells = l.split(/[,\t;|]/).map((c) => c.trim().replace(/^"|"$/g, ''));
    const id = cells.find((c) => ids.has(c)); const lab = cells.find((c) => LABELS.has(label(c)));
    if (id !== undefined && lab !== undefined) take(id, lab, file);
  }
}
fs.writeFileSync(process.argv[3], JSON.stringify(found));
for (const [file, n] of Object.entries(from)) console.log(file + ': ' + n);
