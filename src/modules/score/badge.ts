import { escapeXml, renderBadgeSvg, scoreBadgeSpec, unavailableBadgeSpec } from "./badge-svg.js";

/** A badge and the ways to embed it: what GraphQL `Badge` answers and the share page shows. */
export interface Badge {
  readonly svg: string;
  /** The image's absolute address. */
  readonly url: string;
  readonly markdown: string;
  readonly html: string;
}

/** What a badge shows: a score and its stage, or a word saying why there is none. */
export type BadgeContent = { readonly totalScore: number; readonly stageName: string } | { readonly missing: string };

/**
 * A badge image at `url`, linking to `link` when given. The snippets carry the
 * badge's text as alternative text, so a README reads the same without images.
 */
export function badgeOf(content: BadgeContent, url: string, link?: string): Badge {
  const spec =
    "missing" in content
      ? unavailableBadgeSpec(content.missing)
      : scoreBadgeSpec(content.totalScore, content.stageName);
  const alt = `${spec.label}: ${spec.value}`;
  const markdownImage = `![${alt.replace(/[\\[\]]/g, "\\$&")}](${markdownUrl(url)})`;
  const htmlImage = `<img src="${escapeXml(url)}" alt="${escapeXml(alt)}">`;
  return {
    svg: renderBadgeSvg(spec),
    url,
    markdown: link ? `[${markdownImage}](${markdownUrl(link)})` : markdownImage,
    html: link ? `<a href="${escapeXml(link)}">${htmlImage}</a>` : htmlImage,
  };
}

/** Where a result's badge is served, and the share page it links to. */
export function resultBadgeUrls(publicBaseUrl: string, resultId: string): { image: string; page: string } {
  const page = `${publicBaseUrl.replace(/\/+$/, "")}/r/${encodeURIComponent(resultId)}`;
  return { image: `${page}/badge.svg`, page };
}

/** Where a product's badge is served (its latest result, when the owner made it public). */
export function productBadgeUrl(publicBaseUrl: string, productId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/api/products/${encodeURIComponent(productId)}/badge.svg`;
}

/** A URL inside Markdown's parentheses: spaces and parentheses would end or break it. */
function markdownUrl(url: string): string {
  return url.replace(/[ ()]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}
