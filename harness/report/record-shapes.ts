/**
 * Record-shape findings, once per run. Each case notes how its loom's records differ from the shapes
 * the spec shows (harness/judge/record-shapes.ts); here each kind of difference becomes one finding of
 * the run: what differs, in how many cases and records, and the first example. The spec shows those
 * shapes but no rule requires them, so a finding is informational: it never fails a case, a rule or a
 * level (docs/reports.md, "Record shapes"; docs/OPEN-CHOICES.md, "Record shapes").
 */
import { RECORD_SHAPE_KINDS, type RecordShapeKind, type RecordShapeObservation } from '../judge/index.ts';

/** What a case result must carry for its record shapes to be read. */
export interface RecordShapeSource {
  id: string;
  status: string;
  record_shapes?: RecordShapeObservation[];
}

/** One kind of difference from the spec's record shapes, over the whole run. */
export interface RecordShapeFinding {
  kind: RecordShapeKind;
  /** The record and field, e.g. `gate record: tool_call_id`. */
  field: string;
  difference: string;
  spec_shows: string;
  section: string;
  /** Always informational: the spec shows the shape, no rule requires it; never counted in a verdict. */
  level: 'informational';
  /** How many cases and records show it. */
  cases: number;
  records: number;
  /** The cases that show it, in run order. */
  case_ids: string[];
  /** The first case that shows it and the run-record path of its first such record. */
  example: { case: string; path: string };
}

/** The level every record-shape finding has, and why, in one sentence the outputs share. */
export const RECORD_SHAPE_LEVEL_NOTE = 'informational: the spec shows this shape, no rule requires it; never counted in a verdict';

/** Cases whose looms are read: every case that ran to a verdict. */
const RAN: ReadonlySet<string> = new Set(['pass', 'fail', 'xfail']);

/** One finding per kind of difference the cases that ran show, in the kinds' order. */
export function recordShapeFindings(cases: readonly RecordShapeSource[]): RecordShapeFinding[] {
  const by = new Map<RecordShapeKind, RecordShapeFinding>();
  for (const c of cases) {
    if (!RAN.has(c.status)) continue;
    for (const o of c.record_shapes ?? []) {
      let finding = by.get(o.kind);
      if (!finding) {
        finding = { kind: o.kind, ...RECORD_SHAPE_KINDS[o.kind], level: 'informational', cases: 0, records: 0, case_ids: [], example: { case: c.id, path: o.first } };
        by.set(o.kind, finding);
      }
      if (!finding.case_ids.includes(c.id)) {
        finding.case_ids.push(c.id);
        finding.cases++;
      }
      finding.records += o.records;
    }
  }
  return (Object.keys(RECORD_SHAPE_KINDS) as RecordShapeKind[]).flatMap((kind) => by.get(kind) ?? []);
}
