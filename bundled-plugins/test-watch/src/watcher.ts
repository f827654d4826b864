/**
 * test-watch's loop. The TestWatch reconcile looks at the turns since it last looked; after one that edited
 * files it starts a run (in the background: a reconcile stays short, and a slow suite holds no reconcile
 * slot). The run's end is written to the TestWatch status, which wakes the reconcile again: a pass deletes
 * every TestFailure (withdrawing a pending proposal), a new failure signature becomes a TestFailure (its
 * reconcile proposes the fix to the agent that made the edit), a signature proposed before never again.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ResourceError, type ActivationContext, type JsonValue, type Resource } from "baton-plugin";
import type { ReconcileContext, ReconcileResult } from "./loop-api.ts";
import { readProjectAnswer, writeProjectAnswer, type Answer } from "./project-answer.ts";
import { runTests, type RunResult } from "./run-tests.ts";
import type { TestWatchSettings } from "./settings.ts";
import { resolveCommand, suggestions, type ResolvedCommand } from "./test-command.ts";
import {
  asWatchStatus,
  DECLINE_OPTION,
  FAILURE_TYPE,
  failureName,
  latestTarget,
  newTrigger,
  proposalText,
  QUESTION_KEY,
  REMEMBERED_SIGNATURES,
  runPatch,
  WATCH_REF,
  WATCH_TYPE,
  type FailureSpec,
  type RunStatus,
  type Trigger,
  type WatchStatus,
} from "./watch-state.ts";

/** The end of the output kept for the proposal's context and `/tests`. */
export const OUTPUT_TAIL_BYTES = 24 * 1024;

function tailOf(text: string, bytes: number): string {
  const buffer = Buffer.from(text);
  if (buffer.byteLength <= bytes) return text;
  const cut = buffer.subarray(buffer.byteLength - bytes).toString("utf8");
  const newline = cut.indexOf("\n");
  return `…\n${newline >= 0 ? cut.slice(newline + 1) : cut}`;
}

interface Current {
  readonly id: string;
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

export class TestWatcher {
  private current: Current | undefined;
  private last: { readonly id: string; readonly result: RunResult } | undefined;
  private runs = 0;

  constructor(
    private readonly ctx: ActivationContext,
    private readonly settings: TestWatchSettings,
    readonly problems: readonly string[],
  ) {}

  get outputFile(): string {
    return path.join(this.ctx.dataDirs.session, "test-watch-last-output.txt");
  }

  /** The TestWatch of this session, created on first use. */
  async ensureWatch(): Promise<Resource> {
    const existing = await this.ctx.resources.get(WATCH_REF);
    if (existing !== undefined) return existing;
    try {
      return await this.ctx.resources.create({ ...WATCH_TYPE, metadata: { name: WATCH_REF.name }, spec: {} });
    } catch (error) {
      if (error instanceof ResourceError && error.code === "exists") return (await this.ctx.resources.get(WATCH_REF)) as Resource;
      throw error;
    }
  }

  command(status: WatchStatus): Promise<ResolvedCommand | undefined> {
    const answer = status.answer !== undefined && "command" in status.answer ? status.answer.command : undefined;
    return resolveCommand(this.ctx.session.cwd, this.settings.command, answer);
  }

  /** Stop a run in progress (binding close, or a newer run). */
  async stop(): Promise<void> {
    const current = this.current;
    current?.abort.abort();
    await current?.done;
  }

  /** Start a run now (a newer edit supersedes a run in progress); resolves once it is recorded as running. */
  async start(command: string, trigger: Trigger): Promise<string> {
    await this.stop();
    this.runs += 1;
    const id = `run-${Date.now().toString(36)}-${this.runs}`;
    const abort = new AbortController();
    const onClose = (): void => abort.abort();
    this.ctx.signal.addEventListener("abort", onClose, { once: true });
    let begin!: () => void;
    const begun = new Promise<void>((resolve) => (begin = resolve));
    const running: RunStatus = { id, state: "running", command, startedAt: new Date().toISOString(), trigger };
    // Known as this process's run before the status says so: the reconcile that status wakes must not resume it.
    const done = begun
      .then(() => runTests(this.ctx.exec, { command, cwd: this.ctx.session.cwd, timeoutMs: this.settings.timeoutMs, maxOutputBytes: this.settings.maxOutputBytes, signal: abort.signal }))
      .then((result) => this.finish(running, result))
      .catch((error: unknown) => this.ctx.logger.error("recording a test run failed", { error }))
      .finally(() => {
        this.ctx.signal.removeEventListener("abort", onClose);
        if (this.current?.id === id) this.current = undefined;
      });
    this.current = { id, abort, done };
    try {
      await this.ctx.resources.patchStatus(WATCH_REF, { run: runPatch(running) });
    } catch (error) {
      abort.abort();
      throw error;
    } finally {
      begin();
    }
    this.ctx.logger.info("test run started", { attributes: { id, command, reason: trigger.reason } });
    return id;
  }

  private async finish(running: RunStatus, result: RunResult): Promise<void> {
    const { outcome } = result;
    if (outcome.state === "cancelled") return;
    this.last = { id: running.id, result };
    await mkdir(path.dirname(this.outputFile), { recursive: true });
    const header = `$ ${running.command}\n`;
    await writeFile(this.outputFile, header + result.output + (result.truncated ? "\n… (output capped)\n" : ""));
    const base = { ...running, durationMs: Math.round(result.durationMs), truncated: result.truncated };
    const finished: RunStatus =
      outcome.state === "passed"
        ? { ...base, state: "passed", ...(outcome.report.passed === undefined ? {} : { passed: outcome.report.passed }) }
        : outcome.state === "failed"
          ? {
              ...base,
              state: "failed",
              signature: outcome.report.signature,
              ...(outcome.exitCode === null ? {} : { exitCode: outcome.exitCode }),
              ...(outcome.report.failing === undefined ? {} : { failing: outcome.report.failing }),
              ...(outcome.report.passed === undefined ? {} : { passed: outcome.report.passed }),
              ...(outcome.report.failureLines[0] === undefined ? {} : { firstFailure: outcome.report.failureLines[0].trim().slice(0, 200) }),
            }
          : { ...base, state: "error", error: outcome.error };
    this.ctx.logger.info("test run finished", { attributes: { id: running.id, state: finished.state, durationMs: base.durationMs } });
    if (finished.state === "error") this.ctx.toast.show({ text: `Tests: ${finished.error ?? "error"}`, tone: "error" });
    // Only the run the status still shows may record its end (a newer one superseded it otherwise).
    const now = asWatchStatus((await this.ctx.resources.get(WATCH_REF))?.status);
    if (now.run?.id !== running.id) return;
    await this.ctx.resources.patchStatus(WATCH_REF, { run: runPatch(finished) });
  }

  /** The failure as the TestFailure's spec (the output from this process's run, else the saved file). */
  private async failureSpec(run: RunStatus): Promise<FailureSpec> {
    let output: string;
    let lines: readonly string[] = run.firstFailure === undefined ? [] : [run.firstFailure];
    if (this.last?.id === run.id) {
      output = this.last.result.output;
      if (this.last.result.outcome.state === "failed") lines = this.last.result.outcome.report.failureLines;
    } else {
      output = await readFile(this.outputFile, "utf8").catch(() => "");
    }
    return {
      signature: run.signature ?? "unknown",
      command: run.command,
      exitCode: run.exitCode ?? null,
      failing: run.failing ?? null,
      turnId: run.trigger.turnId,
      targetId: run.trigger.targetId,
      failureLines: lines,
      output: tailOf(output, OUTPUT_TAIL_BYTES),
      truncated: run.truncated ?? false,
    };
  }

  /** Act on a finished run once: withdraw on a pass, propose a new failure, never the same one twice. */
  private async settle(watch: Resource, status: WatchStatus, run: RunStatus): Promise<Record<string, JsonValue>> {
    const failures = await this.ctx.resources.list(FAILURE_TYPE);
    const keep = run.state === "failed" ? run.signature : undefined;
    for (const failure of failures) {
      if ((failure.spec as { signature?: string } | null)?.signature !== keep) await this.ctx.resources.delete({ ...FAILURE_TYPE, name: failure.metadata.name });
    }
    const patch: Record<string, JsonValue> = { run: { settled: true } };
    if (run.state !== "failed" || run.signature === undefined) return patch;
    const proposed = status.proposed ?? [];
    if (proposed.includes(run.signature)) return patch;
    const spec = await this.failureSpec(run);
    const owner = { ...WATCH_TYPE, name: watch.metadata.name, uid: watch.metadata.uid };
    try {
      await this.ctx.resources.create({ ...FAILURE_TYPE, metadata: { name: failureName(run.signature), owner }, spec: spec as unknown as JsonValue });
    } catch (error) {
      if (!(error instanceof ResourceError && error.code === "exists")) throw error;
    }
    patch["proposed"] = [...proposed, run.signature].slice(-REMEMBERED_SIGNATURES);
    return patch;
  }

  async reconcileWatch(baton: ReconcileContext, watch: Resource): Promise<ReconcileResult | undefined> {
    if (watch.metadata.deletionTimestamp !== undefined) {
      await this.stop();
      return undefined;
    }
    const status = asWatchStatus(watch.status);
    const patch: Record<string, JsonValue> = {};
    const answer = status.answer ?? (await this.answer(baton));
    if (answer !== undefined && status.answer === undefined) patch["answer"] = answer as JsonValue;
    const { trigger: edited, latest } = newTrigger(baton.snapshot.turns, status.seenRevision, this.settings.runOn);
    if (latest !== undefined && latest !== status.seenRevision) patch["seenRevision"] = latest;
    let wanted: Trigger | undefined = edited ?? status.pending;
    if (wanted === undefined && status.requestedAt !== undefined && (status.run === undefined || status.requestedAt > status.run.startedAt)) {
      wanted = { reason: "manual", turnId: null, targetId: latestTarget(baton.snapshot.turns) };
    }
    const run = status.run;
    // A run this process does not know was cut short by a restart: run it again.
    if (wanted === undefined && run?.state === "running" && this.current?.id !== run.id) wanted = { ...run.trigger, reason: "resume" };
    if (run !== undefined && run.state !== "running" && run.settled !== true) Object.assign(patch, await this.settle(watch, status, run));

    let output: ReconcileResult["output"];
    if (wanted !== undefined) {
      const command = await this.command({ ...status, ...(answer === undefined ? {} : { answer }) });
      if (command !== undefined) {
        if (Object.keys(patch).length > 0 || status.pending !== undefined) await this.ctx.resources.patchStatus(WATCH_REF, { ...patch, pending: null });
        await this.start(command.command, wanted);
        return undefined;
      }
      if (answer !== undefined && "declined" in answer) patch["pending"] = null;
      else {
        patch["pending"] = { reason: wanted.reason, turnId: wanted.turnId, targetId: wanted.targetId };
        output = await this.question();
      }
    }
    if (Object.keys(patch).length > 0) await this.ctx.resources.patchStatus(WATCH_REF, patch);
    return output === undefined ? undefined : { output };
  }

  /**
   * The answer this session does not know yet: the question's outcome (an explicit answer is kept for the
   * project, so another session here is not asked again; a dismissal keeps only this session quiet), else
   * what was answered in another session in this project.
   */
  private async answer(baton: ReconcileContext): Promise<Answer | undefined> {
    const asked = baton.pluginInteractions.find((i) => i.decisionKey === QUESTION_KEY && i.outcome !== undefined);
    if (asked?.outcome !== undefined) {
      if (asked.outcome.type !== "answered") return { declined: true };
      const value = asked.outcome.values[0]?.trim();
      const answer: Answer = value === undefined || value === "" || value === DECLINE_OPTION ? { declined: true } : { command: value };
      try {
        await writeProjectAnswer(this.ctx.dataDirs.project, answer, this.ctx.session.cwd);
      } catch (error) {
        this.ctx.logger.warn("could not keep the test command for this project; the next session asks again", { error });
      }
      return answer;
    }
    return readProjectAnswer(this.ctx.dataDirs.project);
  }

  private async question(): Promise<ReconcileResult["output"]> {
    const options = (await suggestions(this.ctx.session.cwd)).map((command) => ({ optionId: command, label: command }));
    return {
      kind: "interaction",
      decisionKey: QUESTION_KEY,
      title: "Which command runs this project's tests?",
      prompt:
        "test-watch runs it after each turn that edits files and suggests a fix when the tests newly fail. " +
        "Pick one, type a shell command, or choose not to run tests here. (It is asked once for this project; change it later with `command` in plugin.yaml.)",
      options: [...options, { optionId: DECLINE_OPTION, label: DECLINE_OPTION, role: "reject" }],
      allowOther: true,
    };
  }

  /** A TestFailure proposes its fix to the agent whose edit made the tests fail. */
  reconcileFailure(failure: Resource): ReconcileResult | undefined {
    if (failure.metadata.deletionTimestamp !== undefined) return undefined;
    const spec = failure.spec as unknown as FailureSpec;
    return {
      output: {
        kind: "proposed-input",
        title: spec.failing === null ? "Fix the failing tests" : `Fix the failing tests (${spec.failing} failing)`,
        text: proposalText(spec),
        ...(spec.targetId === null ? {} : { targetId: spec.targetId }),
        contextRefs: [{ name: failure.metadata.name }],
      },
    };
  }

  /** `/tests`: the last run's output (its end); `/tests run`: run now. */
  async commandText(argument: string): Promise<string> {
    const verb = argument.trim();
    const watch = await this.ensureWatch();
    const status = asWatchStatus(watch.status);
    const command = await this.command(status);
    if (verb === "run") {
      if (command === undefined) return "No test command: set `command` under this plugin's config in plugin.yaml, or add a `test` script to package.json.";
      // The reconcile this wakes starts the run (one place decides, so a run and an edit never race).
      await this.ctx.resources.patchStatus(WATCH_REF, { requestedAt: new Date().toISOString() });
      return `Running \`${command.command}\`… (/tests shows the output when it ends)`;
    }
    if (verb !== "") return "usage: /tests (the last run's output) | /tests run (run the tests now)";
    const run = status.run;
    if (run === undefined) {
      const how = command === undefined ? "no test command yet" : `\`${command.command}\` (from ${command.source})`;
      return `No test run in this session yet; ${how}. Run now: /tests run`;
    }
    const head =
      run.state === "running"
        ? `Tests are running: \`${run.command}\` since ${run.startedAt}.`
        : run.state === "passed"
          ? `Tests passed in ${((run.durationMs ?? 0) / 1000).toFixed(1)} s: \`${run.command}\`.`
          : run.state === "failed"
            ? `Tests failed${run.failing === undefined ? "" : ` (${run.failing} failing)`}: \`${run.command}\` exited with ${run.exitCode ?? "?"}.`
            : `The test command did not finish: ${run.error ?? "error"}.`;
    const output = await readFile(this.outputFile, "utf8").catch(() => "");
    return output === "" ? head : `${head}\n\n${tailOf(output, 16 * 1024)}`;
  }
}
