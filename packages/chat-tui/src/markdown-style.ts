import { SyntaxStyle } from "@opentui/core";
import type { ChatTheme } from "./theme.ts";

/** Syntax style for markdown and code blocks, derived from the theme. The caller destroys it. */
export function createMarkdownStyle(theme: ChatTheme): SyntaxStyle {
  return SyntaxStyle.fromStyles({
    default: { fg: theme.text },
    conceal: { fg: theme.muted },
    "markup.heading": { fg: theme.accent, bold: true },
    "markup.heading.1": { fg: theme.accent, bold: true },
    "markup.heading.2": { fg: theme.accent, bold: true },
    "markup.heading.3": { fg: theme.accent, bold: true },
    "markup.strong": { bold: true },
    "markup.italic": { italic: true },
    "markup.strikethrough": { dim: true },
    "markup.raw": { fg: theme.code },
    "markup.raw.block": { fg: theme.code },
    "markup.link": { fg: theme.muted },
    "markup.link.label": { fg: theme.info, underline: true },
    "markup.link.url": { fg: theme.muted, underline: true },
    "markup.list": { fg: theme.accent },
    "markup.quote": { fg: theme.muted, italic: true },
    keyword: { fg: theme.diffHunk },
    string: { fg: theme.success },
    comment: { fg: theme.muted, italic: true },
    number: { fg: theme.code },
    function: { fg: theme.info },
    type: { fg: theme.warning },
    punctuation: { fg: theme.muted },
  });
}
