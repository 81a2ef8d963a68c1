/** Self time of a V8 .cpuprofile summed by package (or project file) and by function, in percent of samples. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** `skipMs`: samples of the first milliseconds (start-up, compilation) are left out. */
export function summarizeCpuProfile(file: string, top = 40, skipMs = 0): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  // Inclusive time by project file: a sample counts once for every file of ours on its stack.
  const inclusive = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  let at = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] / 1000;
    if (at < skipMs) return;
    total++;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const u = nodes.get(at)!.callFrame.url.replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
      if (u.startsWith('src/') && !seen.has(u)) {
        seen.add(u);
        add(inclusive, u);
      }
    }
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const where = url.replace(/^.*node_modules\//, 'npm:').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    add(byFunction, `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`);
    const pkg = where.startsWith('npm:') ? where.split('/').slice(0, where.startsWith('npm:@') ? 2 : 1).join('/') : where || functionName;
    add(byPlace, pkg);
  });
  const list = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
  return `${total} samples\n-- self time by package / file --\n${list(byPlace)}\n-- self time by function --\n${list(byFunction)}\n-- total time (self and callees) by project file --\n${list(inclusive)}\n`;
}
