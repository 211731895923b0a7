/** Entry point of the `cantrip-conformance` command (see cli-main.ts for the options). */
import { main } from './cli-main.ts';

const tty = process.stderr.isTTY;
process.exitCode = await main(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  ...(tty && { progress: (text: string) => process.stderr.write(`\r\x1b[2K${text}`) }),
  cwd: process.cwd(),
});
