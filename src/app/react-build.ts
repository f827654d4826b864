/**
 * React, its reconciler and the scheduler pick their build from `process.env.NODE_ENV` when first required,
 * and nothing sets it for Baton, so the TUI ran React's development build: every render checked and tracked,
 * a slower mount and reconcile on every streamed frame. The CLI therefore loads each command's modules with
 * `NODE_ENV=production` (React is the only dependency that reads it) and then puts the variable back exactly
 * as it was, so the agents, tools and hooks Baton starts later inherit the user's environment unchanged.
 *
 * It has to be the import itself that runs under the setting: Bun evaluates the CommonJS modules of a static
 * graph before the ES module bodies that import them, so a "first import" that sets the variable runs too late.
 * Bun compiles JSX to `jsxDEV` calls unless it started with `NODE_ENV=production` (and in practice whenever the
 * working directory is outside this repository, which is every real use), and React's production
 * `jsx-dev-runtime` exports no `jsxDEV`. So after the production runtimes load, `jsxDEV` is bound to the
 * production `jsx`: the same (type, config, key) arguments, the extra dev-only ones ignored.
 *
 * `BATON_REACT_DEVELOPMENT=1` keeps the development build (its warnings help when changing the TUI).
 */
import { createRequire } from "node:module";

export type ReactBuild = "production" | "development";

/**
 * Runs `load` (a dynamic import) with React's production build selected, restoring `NODE_ENV` after it.
 * `renders: false` (a command that never loads React) skips binding `jsxDEV`, which requires React's jsx runtimes.
 */
export async function loadWithReactProduction<T>(load: () => Promise<T>, env: NodeJS.ProcessEnv = process.env, options: { readonly renders?: boolean } = {}): Promise<T> {
  if (env["BATON_REACT_DEVELOPMENT"] === "1") return load();
  const had = Object.hasOwn(env, "NODE_ENV");
  const prior = env["NODE_ENV"];
  env["NODE_ENV"] = "production";
  try {
    if (options.renders !== false) bindProductionJsxDev();
    return await load();
  } finally {
    if (had) env["NODE_ENV"] = prior ?? "";
    else delete env["NODE_ENV"];
  }
}

function bindProductionJsxDev(): void {
  const require = createRequire(import.meta.url);
  const runtime = require("react/jsx-runtime") as { jsx: unknown };
  const devRuntime = require("react/jsx-dev-runtime") as { jsxDEV?: unknown };
  if (typeof devRuntime.jsxDEV !== "function") devRuntime.jsxDEV = runtime.jsx;
}

/** The build of React this process has loaded, or null before anything required it. */
export function loadedReactBuild(): ReactBuild | null {
  const files = Object.keys(createRequire(import.meta.url).cache);
  const react = files.find((file) => /[\\/]react[\\/]cjs[\\/]react\.(production|development)\.js$/.test(file));
  if (react === undefined) return null;
  return react.endsWith("production.js") ? "production" : "development";
}
