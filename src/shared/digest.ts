/**
 * Hashes and random tokens without `node:crypto`: Bun builds Node's crypto module (and the stream machinery under
 * it) when it is first imported, ≈ 10–13 ms of every start that reaches it, more than all of Baton's uses of it
 * cost (#18). Bun's native hasher and Web Crypto give the same digests and the same quality of randomness.
 */

/** Hex sha256 of `data` (a string is hashed as UTF-8). */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

/** `bytes` random bytes from the system's CSPRNG, as 2 × `bytes` hex digits. */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
