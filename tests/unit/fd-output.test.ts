/**
 * src/app/fd-output.ts: the process's stdout/stderr written straight to their descriptors. A file is written off
 * the thread, in order, with backpressure; a character device synchronously; a failed write is reported once, a
 * turn later, and never thrown at the writer. (Pipes and EPIPE through the real process: tests/e2e/cli-output.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fdOutput } from "../../src/app/fd-output.ts";

function tempFile(): { file: string; fd: number; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-fd-output-"));
  const file = path.join(dir, "out");
  const fd = fs.openSync(file, "w");
  return { file, fd, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const ended = (sink: ReturnType<typeof fdOutput>): Promise<void> => new Promise((resolve) => sink.end(resolve));

describe("fd output", () => {
  test("a file gets every write in order; write says when 64 KiB wait, drain follows; end waits for the last byte", async () => {
    const { file, fd, cleanup } = tempFile();
    try {
      const sink = fdOutput(fd);
      let drains = 0;
      sink.on("drain", () => drains++);
      const parts = Array.from({ length: 2000 }, (_, i) => `line ${i} ${"é".repeat(i % 50)}\n`);
      const answers = parts.map((part) => sink.write(part));
      // Queued behind the write in flight: past the high-water mark write says so.
      expect(answers.indexOf(false)).toBeGreaterThan(0);
      expect(sink.writableFinished).toBe(false);
      await ended(sink);
      expect(sink.writableFinished).toBe(true);
      expect(fs.readFileSync(file, "utf8")).toBe(parts.join(""));
      expect(drains).toBeGreaterThanOrEqual(1);
      expect(sink.isTTY).toBe(false);
    } finally {
      fs.closeSync(fd);
      cleanup();
    }
  });

  test("a character device is written at once", async () => {
    const fd = fs.openSync("/dev/null", "w");
    try {
      const sink = fdOutput(fd);
      expect(sink.write("x".repeat(200_000))).toBe(true);
      await ended(sink);
      expect(sink.writableFinished).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
  });

  test("a write that fails is reported once, a turn later, and what follows is dropped; end still ends", async () => {
    for (const device of [false, true]) {
      const { fd, cleanup } = device ? { fd: fs.openSync("/dev/null", "r"), cleanup: () => undefined } : tempFile();
      const readOnly = device ? fd : fs.openSync(fs.readlinkSync(`/proc/self/fd/${fd}`), "r");
      try {
        const sink = fdOutput(readOnly);
        const errors: unknown[] = [];
        sink.on("error", (error) => errors.push(error));
        sink.write("first\n");
        expect(errors).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(errors.length).toBe(1);
        expect((errors[0] as { code?: string }).code).toBe("EBADF");
        expect(sink.write("second\n")).toBe(false);
        await ended(sink);
        expect(errors.length).toBe(1);
      } finally {
        if (readOnly !== fd) fs.closeSync(readOnly);
        fs.closeSync(fd);
        cleanup();
      }
    }
  });
});
