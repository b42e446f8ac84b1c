import type { StageName } from "../scoring/scoring.types.js";

/**
 * The score badge as a shields-style SVG ("maturity | 72 · Scaling"): pure and
 * deterministic (the same score and stage give the same bytes, so its hash is an
 * ETag), self-contained (no fonts, images, links or ids to collide when embedded),
 * and accessible (role="img", aria-label and <title>; every fill is at least 4.5:1
 * against its white text).
 */

/** The label's grey (7.5:1 with white), as shields draws it. */
export const LABEL_COLOUR = "#555555";

/** By stage, lowest first: red to blue, each at least 4.5:1 with white text (WCAG AA for 11 px). */
export const STAGE_COLOURS: Readonly<Record<StageName, string>> = {
  Foundation: "#b42318",
  Developing: "#b54708",
  Scaling: "#8a5a00",
  Compounding: "#067647",
  Leading: "#175cd3",
};

/** A value that is no stage (not scored yet, not found): a neutral grey, 6:1 with white. */
export const NEUTRAL_COLOUR = "#5d6470";

/**
 * Advance widths of Verdana at 11 px (its units per em scaled to 11 px), the font
 * shields measures with. Characters not listed count as the widest glyph listed, so
 * a text of unknown characters is measured too wide, never too narrow; `textLength`
 * then fits the drawn text to the measure whatever font the viewer substitutes.
 */
const VERDANA_11: Readonly<Record<string, number>> = (() => {
  const widths: Record<string, number> = {};
  const set = (chars: string, width: number) => {
    for (const char of chars) widths[char] = width;
  };
  set(" ,.f·", 3.87);
  set("il", 3.02);
  set("j", 3.79);
  set("!t", 4.33);
  set("I", 4.63);
  set("r", 4.69);
  set('"', 5.05);
  set("'", 2.94);
  set("()-/:;[\\]|", 5.49);
  set("J", 5.5);
  set("z", 5.71);
  set("cs", 5.72);
  set("L", 6.18);
  set("F", 6.33);
  set("kvxy", 6.49);
  set("e", 6.51);
  set("?", 6.56);
  set("a", 6.58);
  set("P", 6.61);
  set("o", 6.68);
  set("Y", 6.72);
  set("T", 6.75);
  set("bdgpq", 6.85);
  set("E", 6.95);
  set("hnu", 6.96);
  set("AV", 7.52);
  set("SBXZ", 7.55);
  set("0123456789$*R_`", 7.64);
  set("K", 7.65);
  set("C", 7.68);
  set("{}", 7.81);
  set("U", 8.04);
  set("N", 8.19);
  set("H", 8.27);
  set("D", 8.48);
  set("G", 8.5);
  set("&", 8.85);
  set("w", 8.94);
  set("M", 9.46);
  set("OQ", 8.66);
  set("#+<=>^~", 9.68);
  set("@", 10.74);
  set("m", 10.72);
  set("W", 10.91);
  set("%", 12.89);
  set("…", 11);
  return widths;
})();
const WIDEST = 12.89;
/** Space on each side of a text inside its segment. */
const PADDING = 6;
const HEIGHT = 20;
/** A label or value longer than this is cut with an ellipsis: a badge stays a badge. */
export const MAX_BADGE_TEXT = 48;

/** The width of `text` in Verdana 11 px, in px (per code point; unknown ones as the widest glyph). */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += VERDANA_11[char] ?? WIDEST;
  return width;
}

export interface BadgeSpec {
  /** The left, grey part ("maturity"). */
  readonly label: string;
  /** The right part ("72 · Scaling"). */
  readonly value: string;
  /** The right part's fill. */
  readonly colour: string;
}

/** The badge of a score: "maturity | 72 · Scaling", coloured by stage. */
export function scoreBadgeSpec(totalScore: number, stageName: string): BadgeSpec {
  const colour = (STAGE_COLOURS as Record<string, string | undefined>)[stageName] ?? NEUTRAL_COLOUR;
  return { label: "maturity", value: `${Math.round(totalScore)} · ${stageName}`, colour };
}

/** The badge of something that has no score to show ("not scored yet", "not found"). */
export function unavailableBadgeSpec(value: string): BadgeSpec {
  return { label: "maturity", value, colour: NEUTRAL_COLOUR };
}

/** The SVG document of a badge (UTF-8 text, no XML declaration, no trailing newline). */
export function renderBadgeSvg(spec: BadgeSpec): string {
  const label = clip(spec.label);
  const value = clip(spec.value);
  const labelText = textWidth(label);
  const valueText = textWidth(value);
  const labelWidth = Math.ceil(labelText) + 2 * PADDING;
  const valueWidth = Math.ceil(valueText) + 2 * PADDING;
  const width = labelWidth + valueWidth;
  const title = escapeXml(`${label}: ${value}`);
  const colour = /^#[0-9a-f]{6}$/i.test(spec.colour) ? spec.colour : NEUTRAL_COLOUR;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<rect width="${width}" height="${HEIGHT}" rx="3" fill="${colour}"/>` +
    // The label's segment: rounded on the left only, square where the value begins.
    `<path d="M3 0H${labelWidth}V${HEIGHT}H3A3 3 0 0 1 0 ${HEIGHT - 3}V3A3 3 0 0 1 3 0Z" fill="${LABEL_COLOUR}"/>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    text(labelWidth / 2, labelText, label) +
    text(labelWidth + valueWidth / 2, valueText, value) +
    `</g></svg>`
  );
}

function text(centre: number, width: number, content: string): string {
  return `<text x="${fixed(centre)}" y="14" textLength="${fixed(width)}" lengthAdjust="spacingAndGlyphs">${escapeXml(content)}</text>`;
}

/** One decimal, no trailing ".0": the same number always prints the same way. */
function fixed(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function clip(text: string): string {
  const chars = [...text];
  return chars.length <= MAX_BADGE_TEXT ? text : `${chars.slice(0, MAX_BADGE_TEXT - 1).join("")}…`;
}

/**
 * Text and attribute values alike: the five XML specials as character references,
 * and the characters XML 1.0 cannot hold at all (C0 controls but tab and line
 * breaks, lone surrogates, U+FFFE/U+FFFF) as U+FFFD, so the document always parses.
 */
export function escapeXml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Cs}/gu, "\ufffd")
    .replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
