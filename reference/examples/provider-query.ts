/**
 * Queries one real provider through the crystal contract and prints the normalized response.
 *
 *   npx tsx reference/examples/provider-query.ts --crystal openai:gpt-4o-mini "Say hello in five words."
 *   npx tsx reference/examples/provider-query.ts --crystal local:http://127.0.0.1:11434/v1#llama3.2 --stream
 *
 * Exit codes: 0 answered, 1 the query failed (the error code is printed), 2 usage error or missing
 * key (the line names the environment variable to set). See docs/providers.md.
 */
import { CantripError } from '../errors.ts';
import { resolveCrystal } from '../crystal/providers/index.ts';

const USAGE = 'usage: provider-query --crystal <family:model> [--stream] [prompt]';

function parse(argv: string[]): { spec: string; stream: boolean; prompt: string } | string {
  let spec: string | undefined;
  let stream = false;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--crystal') {
      spec = argv[++i];
      if (spec === undefined) return '--crystal needs a value, e.g. openai:gpt-4o-mini';
    } else if (arg.startsWith('--crystal=')) spec = arg.slice('--crystal='.length);
    else if (arg === '--stream') stream = true;
    else if (arg === '--help' || arg === '-h') return USAGE;
    else if (arg.startsWith('--')) return `unknown option ${arg}`;
    else words.push(arg);
  }
  if (!spec) return '--crystal is required, e.g. --crystal openai:gpt-4o-mini';
  return { spec, stream, prompt: words.join(' ') || 'Say hello in five words.' };
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  if (typeof args === 'string') {
    console.error(`provider-query: ${args}\n${USAGE}`);
    return 2;
  }
  let crystal;
  try {
    crystal = resolveCrystal(args.spec, { stream: args.stream });
  } catch (error) {
    if (error instanceof CantripError && error.code === 'missing_crystal') {
      console.error(`provider-query: ${error.message}`);
      return 2;
    }
    throw error;
  }
  try {
    const response = await crystal.query(
      { messages: [{ role: 'user', content: args.prompt }] },
      args.stream
        ? { onEvent: (e) => e.type === 'text' && process.stdout.write((e.data as { delta: string }).delta) }
        : {},
    );
    if (args.stream) process.stdout.write('\n');
    console.log(JSON.stringify(response, null, 2));
    return 0;
  } catch (error) {
    const code = error instanceof CantripError ? error.code : 'unexpected';
    console.error(`provider-query: ${code}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

process.exitCode = await main();
