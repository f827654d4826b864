export function assertNever(value: never, context = "value"): never {
  throw new Error(`unexpected ${context}: ${JSON.stringify(value)}`);
}
