/**
 * The kit's command line run in process, for the CLI's own tests: the exit code and what it printed to
 * stdout and stderr (each joined into one text).
 */
import { main, PACKAGE_ROOT } from '../cli/main.ts';

export async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
