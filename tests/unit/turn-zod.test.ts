/**
 * A turn that carries history to its agent loads no zod (issue #18: no main-thread stall over 8 ms while
 * streaming). zod loads on first use (src/shared/lazy-schema.ts); the context snapshot and its receipt had no
 * hand check, so the first such turn of an opened session loaded zod and built the schemas on the main thread
 * as it started — a 30–60 ms gap in bench/stall.ts's first turn. In a process of its own, since other tests load zod.
 */
import { expect, test } from "bun:test";
import path from "node:path";

test("the snapshot and receipt of a turn that sends history are checked without zod", () => {
  const probe = path.join(import.meta.dir, "../support/turn-zod-probe.ts");
  const result = Bun.spawnSync([process.execPath, probe], { stdout: "pipe", stderr: "pipe" });
  expect({ code: result.exitCode, stderr: result.stderr.toString() }).toMatchObject({ code: 0 });
  const { before, after, kinds } = JSON.parse(result.stdout.toString()) as { before: boolean; after: boolean; kinds: string[] };
  // The turn did send the history, receipted: what the hand checks are for.
  expect(kinds).toContain("_baton_context_snapshot");
  expect(kinds).toContain("_baton_context_delivery_receipt");
  expect({ before, after }).toEqual({ before: false, after: false });
}, 30_000);
