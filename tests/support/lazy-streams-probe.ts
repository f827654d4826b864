/**
 * tests/unit/process-io-lazy.test.ts runs this in a fresh Bun (createProcessIo registers signal handlers on the
 * process it runs in): process-io over streams that record which were made, the io derived as a command derives
 * it, then stderr and stdin used (stdout never) and the exit. Prints what was made, when, and what was written, as JSON on fd 1.
 */
import { writeSync } from "node:fs";
import { createAppContext, withResolvedHome } from "../../src/app/app-context.ts";
import { terminalIo, withIo } from "../../src/app/io.ts";
import { createProcessIo, type ProcessStreams } from "../../src/app/process-io.ts";
import { fakeDefinition } from "./fake-adapter.ts";

const made: string[] = [];
const written: string[] = [];
const ended: string[] = [];
const out = (name: string) => ({
  isTTY: false,
  writableFinished: false,
  write(text: string) {
    written.push(`${name}:${text}`);
    return true;
  },
  on() {
    return this;
  },
  once() {
    return this;
  },
  end(done: () => void) {
    ended.push(name);
    this.writableFinished = true;
    done();
  },
});
const streams = {
  get stdout() {
    made.push("stdout");
    return out("stdout");
  },
  get stderr() {
    made.push("stderr");
    return out("stderr");
  },
  get stdin() {
    made.push("stdin");
    return { isTTY: true, [Symbol.asyncIterator]: async function* () {} };
  },
} as unknown as ProcessStreams;

const [home, cwd] = process.argv.slice(2) as [string, string];
const { io, exit } = createProcessIo(streams);
const derived = withResolvedHome(terminalIo(withIo(io, { env: { ...io.env, BATON_HOME: home } })));
createAppContext(withIo(derived, { definitions: [fakeDefinition({ turns: [] })] }), { cwd });
const steps: Record<string, string[]> = { derived: [...made] };
derived.stderr.write("a\u001b[2Jb\n");
steps["stderr.write"] = [...made];
const stdinIsTTY = derived.stdinIsTTY;
steps["stdinIsTTY"] = [...made];
const stderrIsTTY = derived.stderr.isTTY;
let code: number | undefined;
process.exit = ((value?: number) => {
  code = value;
}) as typeof process.exit;
await exit(3);
writeSync(1, JSON.stringify({ steps, written, ended, stdinIsTTY, stderrIsTTY, code }));
