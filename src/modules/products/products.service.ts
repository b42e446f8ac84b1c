import type { DataSource, EntityManager } from "typeorm";
import { isUuid } from "../../db/uuid.js";
import { AppError } from "../../errors.js";
import { Account } from "../accounts/account.entity.js";
import { plans } from "../billing/plans.js";
import { keysetPage } from "../score/cursor.js";
import { Product } from "./product.entity.js";


/** The key a product is found by: origin and path, without query, fragment or trailing slash. */
export function productKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

export class ProductsService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The account's product for this address, created when absent (PLAN_LIMIT_REACHED
   * past the plan's products), inside the caller's transaction so a refused
   * score creates nothing.
   */
  async productFor(manager: EntityManager, accountId: string, url: URL): Promise<Product> {
    const key = productKey(url);
    const existing = await manager.findOneBy(Product, { accountId, url: key });
    if (existing) return existing;
    // Serializes product creation per account, so two concurrent first scores cannot both pass the limit.
    const account = await manager.findOneOrFail(Account, { where: { id: accountId }, lock: { mode: "for_no_key_update" } });
    const again = await manager.findOneBy(Product, { accountId, url: key });
    if (again) return again;
    const plan = plans[account.plan];
    if (plan.products !== null && (await manager.countBy(Product, { accountId })) >= plan.products) {
      throw new AppError("PLAN_LIMIT_REACHED", `The ${plan.name} plan includes ${plan.products} product${plan.products === 1 ? "" : "s"}, all in use.`, {
        action: "Score an existing product's address, or upgrade your plan for more products.",
      });
    }
    return manager.save(manager.create(Product, { accountId, url: key, name: url.hostname }));
  }

  /** The caller's product; another account's is NOT_FOUND (its existence is not revealed). */
  async get(accountId: string, id: string): Promise<Product> {
    const product = isUuid(id) ? await this.dataSource.getRepository(Product).findOneBy({ id, accountId }) : null;
    if (!product) throw new AppError("NOT_FOUND", "No such product.");
    return product;
  }

  /** Newest first, keyset-paginated. */
  async list(accountId: string, limit: number, cursor: string | undefined): Promise<{ products: Product[]; nextCursor: string | null }> {
    const query = this.dataSource.getRepository(Product).createQueryBuilder("product").where("product.account_id = :accountId", { accountId });
    const page = await keysetPage(query, "product", limit, cursor);
    return { products: page.rows, nextCursor: page.nextCursor };
  }
}
