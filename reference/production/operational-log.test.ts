import { describe, it, expect } from 'vitest';
import { OperationalLog } from './operational-log.ts';
import { REDACTED, secretRedactor } from './redaction.ts';

describe('the operational log (PROD-8)', () => {
  it('keeps each line scrubbed by its writer’s redactor, and a read takes the lines written since the last', () => {
    const log = new OperationalLog();
    const scrubbed = log.writer(secretRedactor(['tok-0123456789abcdef']));
    const plain = log.writer(undefined);
    scrubbed('gate billing failed: 401: token tok-0123456789abcdef refused');
    plain('a query of parent failed with status 503: busy');
    expect(log.read()).toBe(`gate billing failed: 401: token ${REDACTED} refused\na query of parent failed with status 503: busy\n`);
    expect(log.read()).toBe('');
  });
});
