/** Unified-diff file headers: `a/`/`b/` prefixes for relative paths, absolute paths as they are (no `a//tmp`). */
export function oldFileHeader(path: string): string {
  return `--- ${path.startsWith("/") ? path : `a/${path}`}`;
}

export function newFileHeader(path: string): string {
  return `+++ ${path.startsWith("/") ? path : `b/${path}`}`;
}
