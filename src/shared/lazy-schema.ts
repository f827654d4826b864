/**
 * zod, loaded the first time a schema is used (#18). Loading zod and building Baton's schemas cost every start
 * ≈ 30 ms before the TUI's first frame, which validates nothing with them (config and meta have hand-written fast
 * paths; see config/fast-config.ts and store/meta-check.ts). A module defines a schema as `lazySchema((z) => …)`:
 * the value it exports stands for the schema (every property read, `instanceof`, spread of its keys goes to it),
 * and the schema — and zod itself, the first time — is built on the first such read. Types stay zod's.
 */
import { createRequire } from "node:module";
import type { z as Zod } from "zod";

export type ZodNamespace = typeof Zod;

const requireHere = createRequire(import.meta.url);
let loaded: ZodNamespace | undefined;

/** zod's `z`, loaded on the first call. */
export function zod(): ZodNamespace {
  return (loaded ??= (requireHere("zod") as { z: ZodNamespace }).z);
}

/** Whether zod has been loaded in this process (tests of the start path read it). */
export function zodLoaded(): boolean {
  return loaded !== undefined;
}

/** A value that is the schema `build` returns, built (with zod) on first use and then kept. */
export function lazySchema<S extends object>(build: (z: ZodNamespace) => S): S {
  let schema: S | undefined;
  const get = (): S => (schema ??= build(zod()));
  return new Proxy({} as S, {
    get: (_target, key) => {
      const target = get();
      return Reflect.get(target, key, target);
    },
    set: (_target, key, value) => Reflect.set(get(), key, value),
    has: (_target, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    // Reported configurable: the proxy's own (empty, extensible) target holds none of the schema's properties.
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(get(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(get(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
}
