/**
 * test-watch's question, through its reconcile with an in-memory resource client: no command anywhere → one
 * question after the first editing turn, the run waits; the answer is kept and the waiting run starts with it;
 * declining (or a cancelled question) keeps it quiet, and the Board says why. The real host path (the question in
 * the ledger, answered in `baton repl`, kill -9, another session) is tests/e2e/cli-test-watch-question.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createExec, ResourceError, type ActivationContext, type JsonValue, type Resource, type ResourceClient, type ResourceRef } from "baton-plugin";
import { readSettings } from "../../bundled-plugins/test-watch/src/settings.ts";
import { asWatchStatus, DECLINE_OPTION, presentWatch, QUESTION_KEY, WATCH_REF } from "../../bundled-plugins/test-watch/src/watch-state.ts";
import { TestWatcher } from "../../bundled-plugins/test-watch/src/watcher.ts";

type Json = { [key: string]: JsonValue };

function merge(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (typeof value === "object" && !Array.isArray(value) && typeof out[key] === "object" && out[key] !== null && !Array.isArray(out[key])) out[key] = merge(out[key] as Json, value as Json);
    else out[key] = value;
  }
  return out;
}

/** Just enough of the host's store for one plugin: objects by kind/name, RFC 7386 status patches. */
function memoryResources(): ResourceClient {
  const objects = new Map<string, Resource>();
  let version = 0;
  const key = (ref: ResourceRef) => `${ref.kind}/${ref.name}`;
  const client: ResourceClient = {
    get: async (ref) => objects.get(key(ref)),
    list: async (type) => [...objects.values()].filter((o) => o.kind === type.kind),
    create: async (r) => {
      if (objects.has(key({ ...r, name: r.metadata.name }))) throw new ResourceError("exists", "exists");
      const object = { apiVersion: r.apiVersion, kind: r.kind, metadata: { ...r.metadata, namespace: "pi_test", uid: `pr_${++version}`, generation: 1, resourceVersion: String(version), creationTimestamp: new Date().toISOString() }, spec: r.spec ?? {}, status: r.status ?? {} } as Resource;
      objects.set(key({ ...r, name: r.metadata.name }), object);
      return object;
    },
    replaceSpec: async () => {
      throw new Error("not used");
    },
    patchStatus: async (ref, patch) => {
      const old = objects.get(key(ref));
      if (old === undefined) throw new ResourceError("not_found", "missing");
      const next = { ...old, status: merge(old.status as Json, patch as Json), metadata: { ...old.metadata, resourceVersion: String(++version) } } as Resource;
      objects.set(key(ref), next);
      return next;
    },
    patchMetadata: async () => {
      throw new Error("not used");
    },
    delete: async (ref) => {
      const old = objects.get(key(ref));
      objects.delete(key(ref));
      return old;
    },
  };
  return client;
}

function context(cwd: string): ActivationContext {
  const abort = new AbortController();
  const quiet = () => undefined;
  return {
    instance: { pluginInstanceId: "pi_test", key: "baton/test-watch@baton", config: {} },
    session: { batonSessionId: "bs_test", cwd },
    dataDirs: { global: cwd, project: cwd, session: path.join(cwd, ".session"), instance: cwd },
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    toast: { show: quiet },
    exec: createExec(["sh"], { PATH: process.env["PATH"] ?? "/usr/bin:/bin" }, cwd),
    resources: memoryResources(),
    signal: abort.signal,
    registerCommand: quiet,
    registerController: quiet,
    registerContextProvider: quiet,
    onClose: quiet,
  } as ActivationContext;
}

const snapshot = (turns: { revision: number; edit: boolean }[]) => ({
  session: { batonSessionId: "bs_test", cwd: "", runState: "idle", revision: 0 },
  activeTurns: [],
  harnessTargets: [],
  pendingInteractions: [],
  turns: turns.map((t) => ({ turnId: `t_${t.revision}`, harnessTargetId: "codex", toolCalls: t.edit ? [{ toolCallId: "c", title: "edit a.txt", kind: "edit", status: "completed" }] : [], revision: t.revision })),
});
const answered = (values: string[]) => ({ interactionId: "ix_1", decisionKey: QUESTION_KEY, resource: { ...WATCH_REF, uid: "pr_1" }, outcome: { type: "answered" as const, values } });

describe("test-watch asks once for the test command", () => {
  test("no command → a question after the first edit; the answer starts the waiting run and is kept", async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), "tw-q-"));
    try {
      writeFileSync(path.join(cwd, "Makefile"), "test:\n\tfalse\n");
      const ctx = context(cwd);
      const watcher = new TestWatcher(ctx, readSettings({}).settings, []);
      const watch = () => ctx.resources.get(WATCH_REF) as Promise<Resource>;
      await watcher.ensureWatch();
      const signal = new AbortController().signal;
      expect(await watcher.reconcileWatch({ snapshot: snapshot([]), pluginInteractions: [], signal } as never, await watch())).toBeUndefined();

      const asked = await watcher.reconcileWatch({ snapshot: snapshot([{ revision: 1, edit: true }]), pluginInteractions: [], signal } as never, await watch());
      expect(asked?.output).toMatchObject({ kind: "interaction", decisionKey: QUESTION_KEY, allowOther: true, options: [{ optionId: "make test", label: "make test" }, { optionId: DECLINE_OPTION, role: "reject" }] });
      expect(asWatchStatus((await watch()).status)).toMatchObject({ pending: { reason: "edit", turnId: "t_1", targetId: "codex" } });
      expect(presentWatch(asWatchStatus((await watch()).status), undefined, [])).toMatchObject({ status: "no test command" });

      writeFileSync(path.join(cwd, "check.sh"), 'echo "FAIL a.txt"; exit 1\n');
      const ran = await watcher.reconcileWatch({ snapshot: snapshot([{ revision: 1, edit: true }]), pluginInteractions: [answered(["sh ./check.sh"])], signal } as never, await watch());
      expect(ran).toBeUndefined();
      const status = asWatchStatus((await watch()).status);
      expect(status.answer).toEqual({ command: "sh ./check.sh" });
      expect(status.pending).toBeUndefined();
      expect(status.run).toMatchObject({ state: "running", command: "sh ./check.sh", trigger: { turnId: "t_1", targetId: "codex" } });
      await watcher.stop().then(() => undefined);
      expect((await watcher.command(asWatchStatus((await watch()).status)))?.source).toBe("answer");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test.each([
    ["declined", answered([DECLINE_OPTION])],
    ["cancelled", { interactionId: "ix_1", decisionKey: QUESTION_KEY, resource: { ...WATCH_REF, uid: "pr_1" }, outcome: { type: "cancelled" as const, reason: "dismissed" } }],
  ])("%s → no run, no second question, the Board says why", async (_name, answer) => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), "tw-q-"));
    try {
      const ctx = context(cwd);
      const watcher = new TestWatcher(ctx, readSettings({}).settings, []);
      const watch = () => ctx.resources.get(WATCH_REF) as Promise<Resource>;
      await watcher.ensureWatch();
      const signal = new AbortController().signal;
      await watcher.reconcileWatch({ snapshot: snapshot([]), pluginInteractions: [], signal } as never, await watch());
      await watcher.reconcileWatch({ snapshot: snapshot([{ revision: 1, edit: true }]), pluginInteractions: [], signal } as never, await watch());
      expect(await watcher.reconcileWatch({ snapshot: snapshot([{ revision: 1, edit: true }]), pluginInteractions: [answer], signal } as never, await watch())).toBeUndefined();
      expect(await watcher.reconcileWatch({ snapshot: snapshot([{ revision: 1, edit: true }, { revision: 2, edit: true }]), pluginInteractions: [answer], signal } as never, await watch())).toBeUndefined();
      const status = asWatchStatus((await watch()).status);
      expect(status.answer).toEqual({ declined: true });
      expect(status.run).toBeUndefined();
      expect(presentWatch(status, undefined, []).detail).toBe("You chose not to run tests here; set `command` in plugin.yaml to start.");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
