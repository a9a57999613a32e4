/**
 * `node --import tsx bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [rows]`: what
 * grew between two heap snapshots (the soak row writes two with BENCH_SOAK_HEAP_DIR), by
 * constructor: the change in objects and in their own (shallow) size, largest growth first, with
 * the totals. A snapshot is taken after a full collection, so both sides count live objects only:
 * a flat total with a growing RSS says the growth is outside V8's live heap (garbage the collector
 * has not reached yet, the young generation, native memory).
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Tally {
  count: number;
  bytes: number;
}

/** Objects of a named kind are counted by constructor; strings, arrays, code and the like by type. */
const NAMED_TYPES = new Set(['object', 'closure', 'native', 'hidden']);

function tally(path: string): { byKind: Map<string, Tally>; total: Tally } {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = parsed.snapshot.meta.node_fields;
  const types = parsed.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const byKind = new Map<string, Tally>();
  const total: Tally = { count: 0, bytes: 0 };
  for (let offset = 0; offset < parsed.nodes.length; offset += width) {
    const type = types[parsed.nodes[offset + typeAt] ?? 0] ?? 'unknown';
    const name = parsed.strings[parsed.nodes[offset + nameAt] ?? 0] ?? '';
    const kind = NAMED_TYPES.has(type) ? `${type} ${name.slice(0, 80)}` : `(${type})`;
    const bytes = parsed.nodes[offset + sizeAt] ?? 0;
    const entry = byKind.get(kind) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += bytes;
    byKind.set(kind, entry);
    total.count += 1;
    total.bytes += bytes;
  }
  return { byKind, total };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const signed = (value: number, text: string) => (value > 0 ? `+${text}` : text);

const [beforePath, afterPath, rowsText] = process.argv.slice(2);
if (beforePath === undefined || afterPath === undefined) {
  console.error('usage: node --import tsx bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [rows]');
  process.exit(2);
}
const before = tally(beforePath);
const after = tally(afterPath);
console.log(
  `live objects ${before.total.count} -> ${after.total.count}, own size ${mb(before.total.bytes)} -> ${mb(after.total.bytes)} MB`,
);
const kinds = [...new Set([...before.byKind.keys(), ...after.byKind.keys()])].map((kind) => {
  const was = before.byKind.get(kind) ?? { count: 0, bytes: 0 };
  const now = after.byKind.get(kind) ?? { count: 0, bytes: 0 };
  return { kind, count: now.count - was.count, bytes: now.bytes - was.bytes, now };
});
kinds.sort((a, b) => b.bytes - a.bytes);
for (const { kind, count, bytes, now } of kinds.slice(0, Number(rowsText ?? 30))) {
  const kb = signed(bytes, `${(bytes / 1024).toFixed(0)} KB`).padStart(10);
  console.log(`${kb} ${signed(count, String(count)).padStart(9)} objects  (now ${now.count}, ${mb(now.bytes)} MB)  ${kind}`);
}
