// The example plugin from the README: two commands, a log line, a cleanup.
import { definePlugin } from "baton-plugin";

export default definePlugin({
  pluginId: "example/hello",
  version: "0.1.0",
  activate(ctx) {
    let greeted = 0;
    ctx.registerCommand({
      name: "hello",
      description: "Say hello (add a name)",
      execute: ({ argument }) => {
        greeted++;
        return { kind: "message", text: `Hello, ${argument.trim() || "you"}! (greeting #${greeted} in ${ctx.session.cwd})` };
      },
    });
    ctx.registerCommand({
      name: "branch",
      description: "Show the current git branch",
      execute: async ({ signal }) => {
        const git = await ctx.exec("git", ["branch", "--show-current"], { timeoutMs: 5000, signal });
        if (git.code !== 0) return { kind: "message", text: `git says: ${git.stderr.trim() || `exit code ${git.code}`}` };
        return { kind: "message", text: `On branch ${git.stdout.trim() || "(detached HEAD)"}` };
      },
    });
    ctx.logger.info("hello is ready");
    ctx.onClose(() => ctx.logger.info(`said hello ${greeted} times`));
  },
});
