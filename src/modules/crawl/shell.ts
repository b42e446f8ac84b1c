import type { ExtractedPage } from "./crawl.types.js";
import type { ScriptingSignals } from "./html-tree.js";

/**
 * Whether a page's HTML is a shell whose words a browser writes: the decision
 * that sends a page to headless Chromium (render/). Read from what extraction
 * already found, so it costs nothing on pages that carry their content.
 *
 * A shell ships script bundles and shows next to nothing without them: little
 * visible text once <noscript> is set aside, and a mount node (#root, #app,
 * #__next, <app-root> …) or a <noscript> asking for JavaScript. A page with its
 * words in the HTML is never rendered, however many scripts it has (server-rendered
 * React, Gatsby and Next pages read the same with or without a browser).
 */

/** Visible characters at or above which a page carries its content, scripts or not. */
export const SHELL_MAX_TEXT = 400;
/** Below this a page with bundles is a shell even without a mount node: a title and a spinner. */
const BARE_TEXT = 60;
const ASKS_FOR_JAVASCRIPT =
  /\b(?:enable|turn on|activate|allow|switch on)\b[^.]{0,40}\bjavascript\b|\bjavascript\b[^.]{0,40}\b(?:required|disabled|needed|must be (?:enabled|turned on)|is (?:off|not enabled)|to (?:run|use|view|see))\b|\brequires? javascript\b/i;

/**
 * `appSite`: the site is already known to build its pages in the browser (its home
 * page was a shell), or this is the home page. Then a page with bundles and next to
 * no text is a shell even without a mount node; on a site of HTML pages, such a page
 * is a thin page (a contact form, a 404), and is read as it is.
 */
export function needsBrowser(
  page: Pick<ExtractedPage, "text">,
  scripting: ScriptingSignals,
  appSite: boolean,
): boolean {
  if (scripting.scripts === 0) return false;
  const visible = visibleTextLength(page.text, scripting.noscript);
  if (visible >= SHELL_MAX_TEXT) return false;
  return scripting.emptyMount || ASKS_FOR_JAVASCRIPT.test(scripting.noscript) || (appSite && visible < BARE_TEXT);
}

/** The page's text without what <noscript> added (it is shown only to browsers without JavaScript). */
function visibleTextLength(text: string, noscript: string): number {
  return Math.max(0, text.length - noscript.length);
}
