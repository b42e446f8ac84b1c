import DataLoader from "dataloader";
import { isUuid } from "../../db/uuid.js";
import { AppError } from "../../errors.js";
import { badgeOf, productBadgeUrl, type Badge } from "../score/badge.js";
import type { ProductBadgeRepository, ProductBadgeRow } from "./product-badge.repository.js";

/** What a product with no result yet shows (its first score is still running). */
export const NOT_SCORED_YET = "not scored yet";

/**
 * Product badges (docs/api.md §13): the latest result's badge, for anyone, only
 * while the owner has `publicBadge` on. Otherwise the badge does not exist, for
 * everyone, the owner included: the address is what a README embeds, and an image
 * that only its owner can see would look fine to them and broken to every reader.
 */
export class ProductBadgeService {
  constructor(
    private readonly rows: ProductBadgeRepository,
    private readonly publicBaseUrl: string,
  ) {}

  /** The public badge of a product; unknown, malformed and private ids are the same NOT_FOUND. */
  async publicBadge(productId: string): Promise<Badge> {
    const [row] = isUuid(productId) ? await this.rows.read([productId]) : [];
    const badge = row ? this.badgeOf(row) : null;
    if (!badge)
      throw new AppError("NOT_FOUND", "No such product badge: the product does not exist or its badge is not public.", {
        action: "The product's owner can make its badge public (publicBadge).",
      });
    return badge;
  }

  /** Per-request loader of products' badges (null unless public): a list of products costs one statement. */
  loader(): DataLoader<string, Badge | null> {
    return new DataLoader(async (ids) => {
      const byId = new Map((await this.rows.read(ids)).map((row) => [row.productId, row]));
      return ids.map((id) => {
        const row = byId.get(id);
        return row ? this.badgeOf(row) : null;
      });
    });
  }

  private badgeOf(row: ProductBadgeRow): Badge | null {
    if (!row.publicBadge) return null;
    const url = productBadgeUrl(this.publicBaseUrl, row.productId);
    return badgeOf(row.latest ?? { missing: NOT_SCORED_YET }, url);
  }
}
