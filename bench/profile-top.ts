/**
 * Summarizes a V8 CPU profile (`.cpuprofile`, from `node --cpu-prof` or `bench/loop-round.ts`): the
 * functions with the most self time, then the most inclusive time, each with its share of all samples.
 *
 *   npx tsx bench/profile-top.ts <file.cpuprofile> [rows=30]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top.ts <file.cpuprofile> [rows]');
const rows = Number(rowsArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const label = ({ callFrame: frame }: ProfileNode): string => {
  const where = frame.url === '' ? '' : ` ${frame.url.split('/').slice(-2).join('/')}`;
  return `${frame.functionName || '(anonymous)'}${where}`;
};

const sampleTime = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  sampleTime.set(id, (sampleTime.get(id) ?? 0) + delta);
  total += delta;
});

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, time] of sampleTime) {
  const own = label(nodes.get(id)!);
  self.set(own, (self.get(own) ?? 0) + time);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const name = label(nodes.get(at)!);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + time);
  }
}

const show = (title: string, table: Map<string, number>, keep: (name: string) => boolean = () => true) => {
  console.log(title);
  for (const [name, time] of [...table].filter(([name]) => keep(name)).sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${(time / 1000).toFixed(1).padStart(8)} ms ${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
console.log(`${(total / 1000).toFixed(1)} ms sampled`);
show('self time', self);
show('inclusive time (named functions)', inclusive, (name) => !name.startsWith('('));
