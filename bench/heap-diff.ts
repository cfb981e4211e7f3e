/**
 * Compares two V8 heap snapshots (.heapsnapshot, as v8.writeHeapSnapshot writes them): live objects
 * grouped by constructor (node type and name), with the change in count and in self size between
 * the two, largest growth first. Enough to tell "the same heap after more of the same work" from a
 * heap that keeps something per request.
 */
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface Group {
  key: string;
  count: number;
  size: number;
}

/** Live objects by `type:name` (strings and code collapse into one group each). */
export function groupsOf(file: string): Map<string, Group> {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const at = (name: string) => fields.indexOf(name);
  const [iType, iName, iSize] = [at('type'), at('name'), at('self_size')];
  const out = new Map<string, Group>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]!] ?? '?';
    const name =
      type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'code'
        ? ''
        : (snap.strings[snap.nodes[i + iName]!] ?? '');
    const key = `${type}:${name.slice(0, 80)}`;
    const g = out.get(key) ?? { key, count: 0, size: 0 };
    g.count++;
    g.size += snap.nodes[i + iSize]!;
    out.set(key, g);
  }
  return out;
}

export interface HeapDiff {
  totalBefore: number;
  totalAfter: number;
  top: { key: string; countDelta: number; sizeDelta: number; sizeAfter: number }[];
}

export function diffSnapshots(before: string, after: string, top = 15): HeapDiff {
  const a = groupsOf(before);
  const b = groupsOf(after);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys].map((key) => {
    const x = a.get(key) ?? { count: 0, size: 0 };
    const y = b.get(key) ?? { count: 0, size: 0 };
    return { key, countDelta: y.count - x.count, sizeDelta: y.size - x.size, sizeAfter: y.size };
  });
  const sum = (m: Map<string, Group>) => [...m.values()].reduce((n, g) => n + g.size, 0);
  return {
    totalBefore: sum(a),
    totalAfter: sum(b),
    top: rows.sort((p, q) => Math.abs(q.sizeDelta) - Math.abs(p.sizeDelta)).slice(0, top),
  };
}
