/** Single-slot memoization on input identity, for selectors (pure: same inputs, same output object). */

export function memoOn<S, I extends unknown[], R>(
  inputsOf: (source: S) => readonly [...I],
  compute: (...inputs: I) => R,
): (source: S) => R {
  let last: { inputs: readonly [...I]; result: R } | undefined;
  return (source: S): R => {
    const inputs = inputsOf(source);
    if (last !== undefined && last.inputs.length === inputs.length && last.inputs.every((value, i) => value === inputs[i])) {
      return last.result;
    }
    const result = compute(...(inputs as I));
    last = { inputs, result };
    return result;
  };
}
