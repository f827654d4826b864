import { describe, expect, test } from "bun:test";
import { BatonError } from "../../src/shared/errors.ts";
import { describeFsError } from "../../src/app/fs-errors.ts";

const errno = (code: string, syscall: string, file: string) => Object.assign(new Error(`${code}: ${syscall} '${file}'`), { code, syscall, path: file });

describe("file-system errors at the CLI", () => {
  test("EROFS on a temp file names its directory and says what to do", () => {
    const described = describeFsError(errno("EROFS", "open", "/h/projects/p/sessions/bs_1/lock.tmp-12-ab"), "/h");
    expect(described?.message).toBe("cannot write /h/projects/p/sessions/bs_1: the file system is read-only");
    expect(described?.hint).toContain("set BATON_HOME to a writable directory");
  });

  test("EACCES names the file and the permission to fix", () => {
    const described = describeFsError(errno("EACCES", "mkdir", "/h/projects/p"), "/h");
    expect(described?.message).toBe("cannot mkdir /h/projects/p: permission denied");
    expect(described?.hint).toContain("chmod 700");
  });

  test("found through a BatonError's cause; anything else is not a file-system error", () => {
    const wrapped = new BatonError("ledger_io", "could not open session bs_1", { cause: errno("EROFS", "open", "/h/x/session.jsonl") });
    expect(describeFsError(wrapped, "/h")?.message).toBe("cannot write /h/x/session.jsonl: the file system is read-only");
    expect(describeFsError(new BatonError("usage", "no"), "/h")).toBeUndefined();
    expect(describeFsError(new Error("plain"), "/h")).toBeUndefined();
  });
});
