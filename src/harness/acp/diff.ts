/**
 * ACP diffs (`{path, oldText, newText}`) as Baton diff blocks with a unified patch, in the same shape as Claude's
 * edit diffs. The patch is computed with jsdiff, bounded in edit length; a patch that is too large to show (or to
 * compute quickly) is left out, and the block still names the file and whether it was created.
 */
import path from "node:path";
import { structuredPatch } from "diff";
import type { DiffBlock } from "../../event/content.ts";
import { newFileHeader, oldFileHeader } from "../diff-header.ts";

const MAX_PATCH_LINES = 400;
const MAX_EDIT_LENGTH = 2_000;
const MAX_INPUT_CHARS = 1_000_000;

function display(filePath: string, cwd: string): string {
  if (!path.isAbsolute(filePath)) return filePath;
  const rel = path.relative(cwd, filePath);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : filePath;
}

export function diffBlock(filePath: string, oldText: string | null | undefined, newText: string, cwd: string): DiffBlock {
  const created = oldText === null || oldText === undefined;
  const block: DiffBlock = { type: "diff", changes: [{ operation: created ? "add" : "modify", path: filePath }] };
  const before = oldText ?? "";
  if (before.length + newText.length > MAX_INPUT_CHARS) return block;
  const shown = display(filePath, cwd);
  const computed = structuredPatch(shown, shown, before, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (computed === undefined) return block;
  const lines = [created ? "--- /dev/null" : oldFileHeader(shown), newFileHeader(shown)];
  for (const hunk of computed.hunks) {
    // Unified diff: an empty side is addressed by the line before it (`-0,0` for a new file), as formatPatch does.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines);
  }
  if (lines.length - 2 > MAX_PATCH_LINES || computed.hunks.length === 0) return block;
  return { ...block, patch: `${lines.join("\n")}\n` };
}
