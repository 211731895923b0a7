/** report.md and the console summary: the same facts as report.json, for people. */
import type { Report } from './report.ts';

const clip = (value: unknown, max = 300): string => {
  const text = value === undefined ? '(nothing)' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/** Lines printed at the end of a run: one per chapter, one per level, then failures in short. */
export function summaryLines(report: Report): string[] {
  const lines: string[] = [];
  const impl = report.implementation;
  lines.push(`${impl.name} ${impl.version} (spec ${impl.spec_version}; features: ${impl.features.join(', ') || 'none'})`);
  for (const ch of report.chapters) {
    if (ch.total === 0) continue;
    lines.push(`  ${String(ch.chapter)}. ${ch.title.padEnd(12)} ${ch.pass} pass, ${ch.fail} fail, ${ch.errored} errored, ${ch.skipped} skipped, ${ch.xfail} xfail`);
  }
  for (const level of ['MUST', 'SHOULD', 'MAY'] as const) {
    const v = report.verdict[level];
    lines.push(`${level.padEnd(6)} ${v.status.toUpperCase()}  (${v.pass}/${v.applicable} applicable pass${v.xfail ? `, ${v.xfail} expected failures` : ''})`);
  }
  for (const c of report.cases.filter((x) => x.status === 'fail' || x.status === 'errored')) {
    lines.push(`  ${c.status.toUpperCase()} ${c.id} [${c.rules.join(', ')}] ${c.source}`);
    if (c.reason) lines.push(`      ${c.reason}`);
    for (const f of c.failures) lines.push(`      ${f.path}: expected ${clip(f.expected, 120)}, got ${clip(f.actual, 120)}`);
    for (const i of c.invariants.filter((x) => x.status === 'fail')) lines.push(`      invariant ${i.id} (${i.rules.join(', ')}): ${i.detail ?? ''}`);
    for (const p of c.problems) lines.push(`      ${p}`);
  }
  for (const id of report.stale) lines.push(`  STALE ${id}: listed as an expected failure but passes; remove it from the list`);
  return lines;
}

export function renderMarkdown(report: Report): string {
  const impl = report.implementation;
  const out: string[] = [];
  out.push(`# Cantrip conformance report: ${impl.name} ${impl.version}`, '');
  out.push(`Spec ${report.spec_version}, case format ${report.format_version}, features: ${impl.features.join(', ') || 'none'}.`);
  out.push(`Run at ${report.environment.started_at} on Node ${report.environment.node} (${report.environment.platform}/${report.environment.arch}), ${Math.round(report.environment.duration_ms)} ms.`, '');
  out.push('## Verdict', '', '| level | verdict | applicable | pass | fail | errored | xfail | skipped |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const level of ['MUST', 'SHOULD', 'MAY'] as const) {
    const v = report.verdict[level];
    out.push(`| ${level} | **${v.status}** | ${v.applicable} | ${v.pass} | ${v.fail} | ${v.errored} | ${v.xfail} | ${v.skipped} |`);
  }
  out.push('', '## Chapters', '', '| chapter | cases | pass | fail | errored | xfail | skipped |', '| --- | --- | --- | --- | --- | --- | --- |');
  for (const ch of report.chapters) out.push(`| ${ch.chapter}. ${ch.title} | ${ch.total} | ${ch.pass} | ${ch.fail} | ${ch.errored} | ${ch.xfail} | ${ch.skipped} |`);
  const broken = report.cases.filter((c) => c.status === 'fail' || c.status === 'errored' || c.stale);
  out.push('', '## Failures', '');
  if (broken.length === 0) out.push('None.');
  for (const c of broken) {
    out.push(`### ${c.id} (${c.status}${c.stale ? ', stale expected failure' : ''})`, '', `Rules ${c.rules.join(', ')} · ${c.level} · ${c.source}`, '', c.description, '');
    if (c.reason) out.push(`Reason: ${c.reason}`, '');
    for (const f of c.failures) out.push(`- \`${f.path}\`: expected \`${clip(f.expected)}\`, got \`${clip(f.actual)}\`${f.why ? ` (${f.why.split('\n')[0]})` : ''}`);
    for (const i of c.invariants.filter((x) => x.status === 'fail')) out.push(`- invariant \`${i.id}\` (${i.rules.join(', ')}): ${(i.detail ?? '').split('\n')[0]}`);
    for (const p of c.problems) out.push(`- ${p}`);
    out.push('');
  }
  out.push('', '## Rules', '', '| rule | level | status | cases |', '| --- | --- | --- | --- |');
  for (const r of report.rules) out.push(`| ${r.id} ${r.title} | ${r.level} | ${r.status} | ${r.cases.join(', ') || '—'} |`);
  out.push('', '## Cases', '', '| case | rules | level | status | ms | note |', '| --- | --- | --- | --- | --- | --- |');
  for (const c of report.cases) out.push(`| ${c.id} | ${c.rules.join(', ')} | ${c.level} | ${c.status}${c.stale ? ' (stale)' : ''} | ${c.duration_ms} | ${c.reason ?? ''} |`);
  return `${out.join('\n')}\n`;
}
