// Helper of bench/start.bench.ts, run in a fresh process; prints one JSON line of timings (ms).
//
//   node bench/start-phases.mjs startup        time to a run's first case: tsx, the CLI and harness
//                                              modules, the reference adapter, tests.yaml loaded
//   node bench/start-phases.mjs run <args...>  the CLI itself (bin/cantrip-conformance.mjs) with <args>,
//                                              its output discarded
//
// Times count from the process's start (performance.now()), so they include Node's own boot.
import { performance } from 'node:perf_hooks';

const [mode, ...rest] = process.argv.slice(2);
const report = (fields) => {
  const cpu = process.cpuUsage();
  process.stdout.write(`\n${JSON.stringify({ ...fields, wallMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
};

if (mode === 'startup') {
  const { register } = await import('tsx/esm/api');
  register();
  const tsx = performance.now();
  const cli = await import('../harness/cli/main.ts');
  const cliDone = performance.now();
  await cli.adapterFactory('reference', cli.PACKAGE_ROOT);
  const adapterDone = performance.now();
  const { loadCaseFile } = await import('../harness/case-file/load.ts');
  loadCaseFile(new URL('../tests.yaml', import.meta.url).pathname);
  const casesDone = performance.now();
  report({ tsxMs: tsx, cliMs: cliDone - tsx, adapterMs: adapterDone - cliDone, casesMs: casesDone - adapterDone });
} else if (mode === 'run') {
  // The CLI prints its summary; keep this process's stdout to the one JSON line.
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = () => true;
  process.stderr.write = () => true;
  process.argv = [process.argv[0], new URL('../bin/cantrip-conformance.mjs', import.meta.url).pathname, ...rest];
  process.on('exit', (code) => {
    process.stdout.write = write;
    report({ exitCode: code });
  });
  await import('../bin/cantrip-conformance.mjs');
} else {
  throw new Error('usage: start-phases.mjs startup | run <cli args...>');
}
